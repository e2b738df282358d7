import { Migration } from '@mikro-orm/migrations';

/**
 * Form templates, their revisions and each revision's field definitions (docs/decisions.md,
 * "Form templates"). Tenant-leading keys and composite foreign keys as everywhere; audit user
 * ids are kept without a foreign key, so deleting a user leaves the history readable.
 */
export class Migration20261125100000_form_templates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table form_template (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  name text not null,
  description text not null default '',
  instance_prefix text not null default '',
  next_instance_seq bigint not null default 1,
  latest_revision_id uuid,
  released_revision_id uuid,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id)
);
create unique index form_template_name_uq on form_template (tenant_id, lower(name));

create table form_template_revision (
  tenant_id uuid not null,
  id uuid not null,
  template_id uuid not null,
  revision int not null,
  template_revision text not null,
  status smallint not null,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id),
  foreign key (tenant_id, template_id) references form_template (tenant_id, id) on delete cascade
);
create unique index form_template_revision_uq on form_template_revision (tenant_id, template_id, revision);

alter table form_template
  add constraint form_template_latest_fk foreign key (tenant_id, latest_revision_id) references form_template_revision (tenant_id, id) on delete set null (latest_revision_id),
  add constraint form_template_released_fk foreign key (tenant_id, released_revision_id) references form_template_revision (tenant_id, id) on delete set null (released_revision_id);

create table form_template_field (
  tenant_id uuid not null,
  id uuid not null,
  revision_id uuid not null,
  field_id uuid not null,
  key text not null,
  label text not null,
  field_type smallint not null,
  required boolean not null default false,
  options text[] not null default '{}',
  ord int not null,
  deleted boolean not null default false,
  primary key (tenant_id, id),
  foreign key (tenant_id, revision_id) references form_template_revision (tenant_id, id) on delete cascade
);
create unique index form_template_field_key_uq on form_template_field (tenant_id, revision_id, lower(key));
create index form_template_field_order_ix on form_template_field (tenant_id, revision_id, ord);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop table form_template_field;
alter table form_template drop constraint form_template_latest_fk, drop constraint form_template_released_fk;
drop table form_template_revision;
drop table form_template;
`);
  }
}
