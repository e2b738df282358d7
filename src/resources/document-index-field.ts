import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, computed, defineResource } from '../read/define.js';
import { FOLDER_OF_DOCUMENT, folderSeenBy } from './folder.js';

/**
 * An index field of a document revision with its value (dataType DocumentIndexField), read from
 * the view `document_index_field`: every field of the document's folder, in the folder's order;
 * a field without a value reads the folder's default (docs/decisions.md, "Index fields").
 */
export default defineResource({
  dataType: 'DocumentIndexField',
  typeName: 'DocumentIndexField',
  table: 'document_index_field',
  href: '~/documents/{dhId}/indexfields/{fieldId}',
  idField: 'id',
  label: 'Document index field',
  fields: {
    id: column('id', 'guid'),
    dhId: column('revision_id', 'guid'),
    fieldId: column('field_id', 'guid'),
    fieldType: column('field_type', 'integer'),
    label: column('label', 'string'),
    description: column('description', 'string'),
    ordinalPosition: column('position', 'integer'),
    required: column('required', 'boolean'),
    units: computed("''::text", 'string'),
    value: column('value', 'string'),
    ...auditFields(),
  },
  joins: AUDIT_JOINS,
  order: 't.revision_id, t.position, t.field_id',
  relations: {
    revision: { kind: 'one', target: 'DocumentRevision', key: 'dhId', graphqlOnly: true },
    definition: { kind: 'one', target: 'IndexFieldDefinition', key: 'fieldId', graphqlOnly: true },
    ...AUDIT_RELATIONS,
  },
  access: { see: folderSeenBy(FOLDER_OF_DOCUMENT), change: 'admin' },
});
