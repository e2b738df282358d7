import { Migration } from '@mikro-orm/migrations';

/**
 * A document index field's `createDate` and `createBy` are its revision's, whether or not a value
 * was set: the field is there from the revision's start, so its first value no longer moves them
 * forward (docs/decisions.md, "Index fields"). `modifyDate` and `modifyBy` still follow the value.
 */
const view = (createdAt: string, createdById: string) => `
create or replace view document_index_field as
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
  ${createdAt} as created_at,
  ${createdById} as created_by_id,
  coalesce(v.modified_at, r.created_at) as modified_at,
  coalesce(v.modified_by_id, r.created_by_id) as modified_by_id
from document_revision r
join document doc on doc.tenant_id = r.tenant_id and doc.id = r.document_id
join folder_index_field f on f.tenant_id = r.tenant_id and f.folder_id = doc.folder_id
join index_field d on d.tenant_id = f.tenant_id and d.id = f.field_id
left join document_index_value v on v.tenant_id = r.tenant_id and v.revision_id = r.id and v.field_id = f.field_id;
`;

export class Migration20261129000000_index_field_create_date extends Migration {
  override async up(): Promise<void> {
    this.addSql(view('r.created_at', 'r.created_by_id'));
  }

  override async down(): Promise<void> {
    this.addSql(view('coalesce(v.created_at, r.created_at)', 'coalesce(v.created_by_id, r.created_by_id)'));
  }
}
