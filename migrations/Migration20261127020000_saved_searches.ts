import { Migration } from '@mikro-orm/migrations';

/**
 * Saved searches (docs/decisions.md, "Saved searches"): a user's named `q` over documents,
 * optionally within a folder and the folders under it, private or shared with the database.
 * Names are unique per owner without regard to case; they go with their owner and their folder.
 */
export class Migration20261127020000_saved_searches extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table saved_search (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  owner_id uuid not null,
  name text not null,
  description text not null default '',
  q text not null default '',
  folder_id uuid,
  shared boolean not null default false,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id),
  constraint saved_search_owner_fk foreign key (tenant_id, owner_id) references app_user (tenant_id, id) on delete cascade,
  constraint saved_search_folder_fk foreign key (tenant_id, folder_id) references folder (tenant_id, id) on delete cascade
);
create unique index saved_search_name_uq on saved_search (tenant_id, owner_id, lower(name));
create index saved_search_order_ix on saved_search (tenant_id, lower(name), id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table saved_search;');
  }
}
