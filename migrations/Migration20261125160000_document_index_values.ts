import { Migration } from '@mikro-orm/migrations';

/**
 * Documents' index field values, one row per revision and field that has one
 * (docs/decisions.md, "Index fields"). `document_index_field` is what the API reads: every
 * revision with every index field of its document's folder, its value or, where none was set,
 * the folder's default; its `id` is derived from the revision and field ids, so a field without
 * a value has a stable id too.
 */
export class Migration20261125160000_document_index_values extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table document_index_value (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  revision_id uuid not null,
  field_id uuid not null,
  value text not null,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, revision_id, field_id),
  constraint document_index_value_revision_fk foreign key (tenant_id, revision_id) references document_revision (tenant_id, id) on delete cascade,
  constraint document_index_value_field_fk foreign key (tenant_id, field_id) references index_field (tenant_id, id) on delete cascade
);
create index document_index_value_field_ix on document_index_value (tenant_id, field_id);

create view document_index_field as
select r.tenant_id,
  md5(r.id::text || f.field_id::text)::uuid as id,
  r.id as revision_id,
  r.document_id,
  f.field_id,
  d.field_type,
  d.label,
  d.description,
  f.position,
  coalesce(f.required, d.required) as required,
  coalesce(v.value, f.default_value, d.default_value) as value,
  coalesce(v.created_at, r.created_at) as created_at,
  coalesce(v.created_by_id, r.created_by_id) as created_by_id,
  coalesce(v.modified_at, r.created_at) as modified_at,
  coalesce(v.modified_by_id, r.created_by_id) as modified_by_id
from document_revision r
join document doc on doc.tenant_id = r.tenant_id and doc.id = r.document_id
join folder_index_field f on f.tenant_id = r.tenant_id and f.folder_id = doc.folder_id
join index_field d on d.tenant_id = f.tenant_id and d.id = f.field_id
left join document_index_value v on v.tenant_id = r.tenant_id and v.revision_id = r.id and v.field_id = f.field_id;
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop view document_index_field; drop table document_index_value;');
  }
}
