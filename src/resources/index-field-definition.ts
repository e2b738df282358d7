import { ZERO_GUID } from '../ids.js';
import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, computed, defineResource } from '../read/define.js';

/** A definition's place in their order (on alias `a`): `position` once they were reordered, else `pkey` (the order they were made in). */
export const definitionOrder = (a: string) => `coalesce(${a}.position, ${a}.pkey)`;

/**
 * An index field definition of the document library (dataType IndexFieldDefinition): a typed
 * field that folders take on and their documents fill in (docs/decisions.md, "Index fields").
 */
export default defineResource({
  dataType: 'IndexFieldDefinition',
  typeName: 'IndexFieldDefinition',
  table: 'index_field',
  href: '~/indexfields/{id}',
  idField: 'id',
  label: 'Index field',
  fields: {
    pkey: column('pkey', 'integer'),
    id: column('id', 'guid'),
    fieldType: column('field_type', 'integer'),
    label: column('label', 'string'),
    description: column('description', 'string'),
    required: column('required', 'boolean'),
    connectionId: column('connection_id', 'guid', { nullAs: ZERO_GUID }),
    queryId: column('query_id', 'guid', { nullAs: ZERO_GUID }),
    dropDownListId: column('drop_down_list_id', 'guid', { nullAs: ZERO_GUID }),
    queryDisplayField: column('query_display_field', 'string'),
    queryValueField: column('query_value_field', 'string'),
    defaultValue: column('default_value', 'string'),
    ordinalPosition: computed(definitionOrder('t'), 'integer', { expandOnly: true }),
    ...auditFields(),
  },
  joins: AUDIT_JOINS,
  order: `${definitionOrder('t')}, t.id`,
  relations: {
    dropDownList: { kind: 'one', target: 'DropDownList', key: 'dropDownListId', graphqlOnly: true },
    folders: { kind: 'through', target: 'Folder', link: { table: 'folder_index_field', from: 'field_id', to: 'folder_id' }, graphqlOnly: true },
    ...AUDIT_RELATIONS,
  },
  queries: {
    indexFields: { op: 'list' },
    indexField: { op: 'get' },
  },
  access: { see: 'tenant', change: 'admin' },
});
