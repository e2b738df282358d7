import { Migration } from '@mikro-orm/migrations';

/**
 * Document types (docs/decisions.md, "Document types"): a tenant's named kinds of document.
 * Names are unique without regard to case; a lookup by name reads one index entry.
 */
export class Migration20261127000000_document_types extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table document_type (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  name text not null,
  description text not null default '',
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id)
);
create unique index document_type_name_uq on document_type (tenant_id, lower(name));
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table document_type;');
  }
}
