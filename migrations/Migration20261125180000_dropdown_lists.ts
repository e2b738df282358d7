import { Migration } from '@mikro-orm/migrations';

/**
 * Drop-down lists and their items (docs/decisions.md, "Drop-down lists"). A list's name is
 * unique in its database without regard to case; its items keep the order they were given in.
 * Index fields may now name a list: a list in use cannot be deleted (the foreign keys refuse).
 */
export class Migration20261125180000_dropdown_lists extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table dropdown_list (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  name text not null check (name <> ''),
  description text not null default '',
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id)
);
create unique index dropdown_list_name_uq on dropdown_list (tenant_id, lower(name));

create table dropdown_item (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  list_id uuid not null,
  position integer not null,
  name text not null,
  value text not null,
  primary key (tenant_id, id),
  constraint dropdown_item_list_fk foreign key (tenant_id, list_id) references dropdown_list (tenant_id, id) on delete cascade
);
create index dropdown_item_list_ix on dropdown_item (tenant_id, list_id, position);

alter table index_field add constraint index_field_list_fk foreign key (tenant_id, drop_down_list_id) references dropdown_list (tenant_id, id);
alter table folder_index_field add constraint folder_index_field_list_fk foreign key (tenant_id, drop_down_list_id) references dropdown_list (tenant_id, id);
create index index_field_list_ix on index_field (tenant_id, drop_down_list_id) where drop_down_list_id is not null;
create index folder_index_field_list_ix on folder_index_field (tenant_id, drop_down_list_id) where drop_down_list_id is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
alter table folder_index_field drop constraint folder_index_field_list_fk;
alter table index_field drop constraint index_field_list_fk;
drop table dropdown_item;
drop table dropdown_list;`);
  }
}
