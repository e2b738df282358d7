import { column, computed, defineResource, joined } from '../read/define.js';

/**
 * A field definition of one template revision; `id` is the field's own id, kept across revisions,
 * so its address names the revision too: `GET formtemplates/{templateId}/revisions/{revisionId}/fields/{id}`.
 */
export default defineResource({
  dataType: 'FormField',
  typeName: 'FormField',
  table: 'form_template_field',
  href: '~/formtemplates/{templateId}/revisions/{revisionId}/fields/{id}',
  idField: 'id',
  label: 'Form field',
  fields: {
    id: column('field_id', 'guid'),
    revisionId: column('revision_id', 'guid'),
    templateId: joined('r', 'template_id', 'guid'),
    key: column('key', 'string'),
    label: column('label', 'string'),
    fieldType: column('field_type', 'integer'),
    required: column('required', 'boolean'),
    options: computed('t.options', 'string'),
    order: column('ord', 'integer'),
    deleted: column('deleted', 'boolean'),
  },
  joins: { r: { table: 'form_template_revision', on: 'r.id = t.revision_id' } },
  order: 't.revision_id, t.ord',
  relations: {
    revision: { kind: 'one', target: 'FormTemplateRevision', key: 'revisionId', graphqlOnly: true },
    template: { kind: 'one', target: 'FormTemplate', key: 'templateId', graphqlOnly: true },
  },
  access: { see: 'tenant', change: 'admin' },
});
