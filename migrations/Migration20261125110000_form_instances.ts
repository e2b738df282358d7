import { Migration } from '@mikro-orm/migrations';

/**
 * Form instances (docs/decisions.md, "Form instances"): `form_instance` is the form with its
 * current revision's values and audit; `form_instance_revision` keeps every revision's values,
 * the current one included. Values are keyed by lower-case field key. `search` is the values
 * lower-cased, so a case-insensitive `q` eq on one form field becomes a GIN containment probe.
 */
export class Migration20261125110000_form_instances extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table form_instance (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  template_id uuid not null,
  revision_id uuid not null,
  revision int not null,
  seq bigint not null,
  instance_name text not null,
  values jsonb not null default '{}',
  search jsonb generated always as (lower(values::text)::jsonb) stored,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id),
  foreign key (tenant_id, template_id) references form_template (tenant_id, id) on delete cascade
);
create unique index form_instance_revision_uq on form_instance (tenant_id, revision_id);
create unique index form_instance_seq_uq on form_instance (tenant_id, template_id, seq);
create index form_instance_search_gin on form_instance using gin (search jsonb_path_ops);

create table form_instance_revision (
  tenant_id uuid not null,
  id uuid not null,
  form_id uuid not null,
  revision int not null,
  values jsonb not null,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  primary key (tenant_id, id),
  foreign key (tenant_id, form_id) references form_instance (tenant_id, id) on delete cascade
);
create unique index form_instance_revision_form_uq on form_instance_revision (tenant_id, form_id, revision);

create table form_instance_relation (
  tenant_id uuid not null,
  form_id uuid not null,
  related_id uuid not null,
  primary key (tenant_id, form_id, related_id),
  foreign key (tenant_id, form_id) references form_instance (tenant_id, id) on delete cascade,
  foreign key (tenant_id, related_id) references form_instance (tenant_id, id) on delete cascade
);
create index form_instance_relation_related_ix on form_instance_relation (tenant_id, related_id);

-- A stored value as its field's type for q (dates and numbers), or NULL when it is not one:
-- values are kept as posted, so a malformed one never makes a filter fail.
create function form_value_timestamp(v text) returns timestamp language plpgsql stable as $$
begin return v::timestamp; exception when others then return null; end $$;
create function form_value_numeric(v text) returns numeric language plpgsql immutable as $$
begin return v::numeric; exception when others then return null; end $$;
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop function form_value_timestamp; drop function form_value_numeric; drop table form_instance_relation; drop table form_instance_revision; drop table form_instance;');
  }
}
