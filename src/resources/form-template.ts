import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, defineResource, joined } from '../read/define.js';

/**
 * A template as clients see it: its own name and audit, and the revision a get answers (the
 * latest released one; a template never released shows its latest draft, status 0).
 */
export default defineResource({
  dataType: 'FormTemplate',
  typeName: 'FormTemplate',
  table: 'form_template',
  href: '~/formtemplates/{id}',
  idField: 'id',
  label: 'Form template',
  fields: {
    id: column('id', 'guid'),
    name: column('name', 'string'),
    description: column('description', 'string', { expandOnly: true }),
    revisionId: joined('r', 'id', 'guid'),
    revision: joined('r', 'revision', 'integer', { expandOnly: true }),
    templateRevision: joined('r', 'template_revision', 'string', { expandOnly: true }),
    status: joined('r', 'status', 'integer'),
    latestRevisionId: column('latest_revision_id', 'guid', { expandOnly: true }),
    instanceNamePrefix: column('instance_prefix', 'string', { expandOnly: true }),
    ...auditFields({ expandOnly: true }),
  },
  joins: {
    r: { table: 'form_template_revision', on: 'r.id = coalesce(t.released_revision_id, t.latest_revision_id)' },
    ...AUDIT_JOINS,
  },
  // Names are unique per tenant, case-insensitively: the unique index gives this order.
  order: 'name_key(t.name)',
  relations: {
    revisions: { kind: 'many', target: 'FormTemplateRevision', column: 'template_id' },
    forms: { kind: 'many', target: 'FormInstance', column: 'template_id' },
    latestRevision: { kind: 'one', target: 'FormTemplateRevision', key: 'latestRevisionId', graphqlOnly: true },
    ...AUDIT_RELATIONS,
  },
  queries: { formTemplates: { op: 'list' } },
  access: { see: 'tenant', change: 'admin' },
});
