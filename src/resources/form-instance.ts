import { ZERO_GUID } from '../ids.js';
import { column, defineResource, joined } from '../read/define.js';

const audit = { expandOnly: true };
const unset = { expandOnly: true, nullAs: ZERO_GUID };

/**
 * A form instance as clients see it: its current revision, base fields and (REST) its values'
 * keys spread beside them. Lists answer revisionId and instanceName unless `fields` names more.
 */
export default defineResource({
  dataType: 'FormInstance',
  typeName: 'FormInstance',
  table: 'form_instance',
  href: '~/formtemplates/{templateId}/forms/{revisionId}',
  idField: 'revisionId',
  label: 'Form instance',
  fields: {
    revisionId: column('revision_id', 'guid'),
    instanceName: column('instance_name', 'string'),
    formId: column('id', 'guid', audit),
    templateId: column('template_id', 'guid', audit),
    revision: column('revision', 'integer', audit),
    createDate: column('created_at', 'datetime', audit),
    modifyDate: column('modified_at', 'datetime', audit),
    createById: column('created_by_id', 'guid', unset),
    modifyById: column('modified_by_id', 'guid', unset),
    createBy: joined('cu', 'name', 'string', { ...audit, nullAs: '' }),
    modifyBy: joined('mu', 'name', 'string', { ...audit, nullAs: '' }),
  },
  joins: {
    cu: { table: 'app_user', on: 'cu.id = t.created_by_id' },
    mu: { table: 'app_user', on: 'mu.id = t.modified_by_id' },
  },
  // (tenant_id, template_id, seq) is unique: creation order under a template.
  order: 't.template_id, t.seq',
  relations: {
    template: { kind: 'one', target: 'FormTemplate', key: 'templateId' },
    revisions: { kind: 'many', target: 'FormInstanceRevision', column: 'form_id', parentKey: 'formId' },
    relatedForms: { kind: 'through', target: 'FormInstance', link: { table: 'form_instance_relation', from: 'form_id', to: 'related_id' }, parentKey: 'formId' },
    documents: { kind: 'through', target: 'Document', link: { table: 'form_document', from: 'form_id', to: 'document_id' }, parentKey: 'formId' },
  },
  dynamic: { column: 'values', field: 'values', type: 'string', search: 'search' },
  access: { see: 'tenant', change: 'tenant' },
});
