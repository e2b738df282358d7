import { Migration } from '@mikro-orm/migrations';

/**
 * Index field definitions and their place in folders (docs/decisions.md, "Index fields").
 * A definition's `label` is unique in its database without regard to case (documents name
 * fields by label as well as by id). Its order is `position` once moved, else `pkey`: `pkey`
 * grows with every definition made, so a new one comes last without a lock. A folder's fields
 * have their own order (`position`, set under the folder's row lock); their override columns
 * are NULL where the folder keeps the definition's value.
 */
export class Migration20261125150000_index_fields extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table index_field (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  pkey integer generated always as identity,
  position integer,
  field_type smallint not null check (field_type in (0, 1, 2, 4, 5, 6, 7, 8, 9)),
  label text not null check (label <> ''),
  description text not null default '',
  required boolean not null default false,
  connection_id uuid,
  query_id uuid,
  drop_down_list_id uuid,
  query_display_field text not null default '',
  query_value_field text not null default '',
  default_value text not null default '',
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id)
);
create unique index index_field_pkey_uq on index_field (tenant_id, pkey);
create unique index index_field_label_uq on index_field (tenant_id, lower(label));
create index index_field_order_ix on index_field (tenant_id, coalesce(position, pkey), id);

create table folder_index_field (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  folder_id uuid not null,
  field_id uuid not null,
  position integer not null,
  required boolean,
  connection_id uuid,
  query_id uuid,
  drop_down_list_id uuid,
  query_display_field text,
  query_value_field text,
  default_value text,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, folder_id, field_id),
  constraint folder_index_field_folder_fk foreign key (tenant_id, folder_id) references folder (tenant_id, id) on delete cascade,
  constraint folder_index_field_field_fk foreign key (tenant_id, field_id) references index_field (tenant_id, id) on delete cascade
);
create index folder_index_field_order_ix on folder_index_field (tenant_id, folder_id, position);
create index folder_index_field_field_ix on folder_index_field (tenant_id, field_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table folder_index_field; drop table index_field;');
  }
}
