import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, defineResource } from '../read/define.js';

const audit = { expandOnly: true };

/**
 * A form instance as clients see it: its current revision, base fields and (REST) its values'
 * keys spread beside them. Lists answer revisionId and instanceName, and `fields` adds to them
 * (the spec: "href, dataType, revisionId, instanceName, plus requested fields").
 */
export default defineResource({
  dataType: 'FormInstance',
  typeName: 'FormInstance',
  table: 'form_instance',
  href: '~/formtemplates/{templateId}/forms/{revisionId}',
  idField: 'revisionId',
  label: 'Form instance',
  fields: {
    revisionId: column('revision_id', 'guid', { always: true }),
    instanceName: column('instance_name', 'string', { always: true }),
    formId: column('id', 'guid', audit),
    templateId: column('template_id', 'guid', audit),
    revision: column('revision', 'integer', audit),
    ...auditFields(audit),
  },
  joins: AUDIT_JOINS,
  // (tenant_id, template_id, seq) is unique: creation order under a template.
  order: 't.template_id, t.seq',
  relations: {
    template: { kind: 'one', target: 'FormTemplate', key: 'templateId' },
    revisions: { kind: 'many', target: 'FormInstanceRevision', column: 'form_id', parentKey: 'formId' },
    relatedForms: { kind: 'through', target: 'FormInstance', link: { table: 'form_instance_relation', from: 'form_id', to: 'related_id' }, parentKey: 'formId' },
    documents: { kind: 'through', target: 'Document', link: { table: 'form_document', from: 'form_id', to: 'document_id' }, parentKey: 'formId' },
    ...AUDIT_RELATIONS,
  },
  dynamic: { column: 'values', field: 'values', type: 'string', search: 'search' },
  access: { see: 'tenant', change: 'tenant' },
});
