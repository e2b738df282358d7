import { Migration } from '@mikro-orm/migrations';

/**
 * Persisted data dictionaries (docs/decisions.md, "Persisted data"): JSON text of an object,
 * scope 0 (the creator's own) or 1 (the tenant's), an optional expiry after which reads skip the
 * row and the purge deletes it. Keys lead with tenant_id as everywhere; the creator's id is kept
 * without a foreign key (like the form templates' audit ids), so deleting a user keeps the rows
 * readable to administrators.
 */
export class Migration20261125120000_persisted_data extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table persisted_data (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  name text not null,
  scope smallint not null check (scope in (0, 1)),
  data text not null,
  data_mime_type text not null,
  expires_at timestamptz,
  linked_object_id text not null default '',
  linked_object_type int not null default 0,
  created_at timestamptz not null default now(),
  created_by_id uuid not null,
  modified_at timestamptz not null default now(),
  modified_by_id uuid not null,
  primary key (tenant_id, id)
);
create index persisted_data_owner_ix on persisted_data (tenant_id, created_by_id);
create index persisted_data_expiry_ix on persisted_data (expires_at) where expires_at is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table persisted_data;');
  }
}
