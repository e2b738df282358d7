import { column, computed, defineResource } from '../read/define.js';

/** A field definition of one template revision (GraphQL only); `id` is the field's own id, kept across revisions. */
export default defineResource({
  dataType: 'FormField',
  typeName: 'FormField',
  table: 'form_template_field',
  href: '~/formtemplates/fields/{id}',
  idField: 'id',
  label: 'Form field',
  fields: {
    id: column('field_id', 'guid'),
    key: column('key', 'string'),
    label: column('label', 'string'),
    fieldType: column('field_type', 'integer'),
    required: column('required', 'boolean'),
    options: computed('t.options', 'string'),
    order: column('ord', 'integer'),
    deleted: column('deleted', 'boolean'),
  },
  order: 't.revision_id, t.ord',
  access: { see: 'tenant', change: 'admin' },
});
