import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, defineResource } from '../read/define.js';

/** One revision of a form template and its field definitions; `GET formtemplates/{templateId}/revisions/{id}` reads one. */
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
    ...auditFields(),
  },
  joins: AUDIT_JOINS,
  // (tenant_id, template_id, revision) is unique: its index gives this order under a template.
  order: 't.template_id, t.revision',
  relations: {
    fields: { kind: 'many', target: 'FormField', column: 'revision_id' },
    template: { kind: 'one', target: 'FormTemplate', key: 'templateId', graphqlOnly: true },
    ...AUDIT_RELATIONS,
  },
  access: { see: 'tenant', change: 'admin' },
});
