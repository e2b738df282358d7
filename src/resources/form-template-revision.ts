import { ZERO_GUID } from '../ids.js';
import { column, defineResource, joined } from '../read/define.js';

const unset = { nullAs: ZERO_GUID };

/** One revision of a form template and its field definitions (GraphQL only). */
export default defineResource({
  dataType: 'FormTemplateRevision',
  typeName: 'FormTemplateRevision',
  table: 'form_template_revision',
  href: '~/formtemplates/{templateId}/revisions/{id}',
  idField: 'id',
  label: 'Form template revision',
  fields: {
    id: column('id', 'guid'),
    templateId: column('template_id', 'guid'),
    revision: column('revision', 'integer'),
    templateRevision: column('template_revision', 'string'),
    status: column('status', 'integer'),
    createDate: column('created_at', 'datetime'),
    modifyDate: column('modified_at', 'datetime'),
    createById: column('created_by_id', 'guid', unset),
    modifyById: column('modified_by_id', 'guid', unset),
    createBy: joined('cu', 'name', 'string', { nullAs: '' }),
    modifyBy: joined('mu', 'name', 'string', { nullAs: '' }),
  },
  joins: {
    cu: { table: 'app_user', on: 'cu.id = t.created_by_id' },
    mu: { table: 'app_user', on: 'mu.id = t.modified_by_id' },
  },
  // (tenant_id, template_id, revision) is unique: its index gives this order under a template.
  order: 't.template_id, t.revision',
  relations: {
    fields: { kind: 'many', target: 'FormField', column: 'revision_id' },
  },
  access: { see: 'tenant', change: 'admin' },
});
