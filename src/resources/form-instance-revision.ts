import { ZERO_GUID } from '../ids.js';
import { AUDIT_RELATIONS, column, defineResource, joined } from '../read/define.js';

/**
 * One kept revision of a form instance and its values then (GraphQL `FormInstance.revisions`).
 * Its href is the REST address that reads it: a template's form by an older revision id.
 */
export default defineResource({
  dataType: 'FormInstanceRevision',
  typeName: 'FormInstanceRevision',
  table: 'form_instance_revision',
  href: '~/formtemplates/{templateId}/forms/{id}',
  idField: 'id',
  label: 'Form instance revision',
  fields: {
    id: column('id', 'guid'),
    formId: column('form_id', 'guid'),
    templateId: joined('f', 'template_id', 'guid'),
    revision: column('revision', 'integer'),
    createDate: column('created_at', 'datetime'),
    createById: column('created_by_id', 'guid', { nullAs: ZERO_GUID }),
    createBy: joined('cu', 'name', 'string', { nullAs: '' }),
  },
  joins: {
    f: { table: 'form_instance', on: 'f.id = t.form_id' },
    cu: { table: 'app_user', on: 'cu.id = t.created_by_id' },
  },
  // (tenant_id, form_id, revision) is unique: oldest first under a form.
  order: 't.form_id, t.revision',
  relations: {
    // A FormInstance's id field is its current revision's id: its own id is `formId`.
    form: { kind: 'one', target: 'FormInstance', key: 'formId', targetKey: 'formId', graphqlOnly: true },
    template: { kind: 'one', target: 'FormTemplate', key: 'templateId', graphqlOnly: true },
    createByUser: AUDIT_RELATIONS.createByUser,
  },
  dynamic: { column: 'values', field: 'values', type: 'string' },
  access: { see: 'tenant', change: 'tenant' },
});
