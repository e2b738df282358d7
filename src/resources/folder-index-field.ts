import { ZERO_GUID } from '../ids.js';
import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, computed, defineResource, type FieldDef, joined } from '../read/define.js';
import { folderSeenBy } from './folder.js';
import { definitionOrder } from './index-field-definition.js';

/** The folder's value where it overrides one (a column of `t`), else the definition's (`d`). */
const effective = (name: string, type: FieldDef['type'], nullAs?: string): FieldDef => {
  const value = `coalesce(t.${name}, d.${name})`;
  return computed(nullAs === undefined ? value : `coalesce(${value}, '${nullAs}'::uuid)`, type);
};

/**
 * An index field as a folder has it (dataType FolderIndexField): `id` is the definition's id,
 * the unprefixed fields are the folder's values (its overrides, else the definition's), the
 * `global*` fields the definition's (docs/decisions.md, "Index fields").
 */
export default defineResource({
  dataType: 'FolderIndexField',
  typeName: 'FolderIndexField',
  table: 'folder_index_field',
  href: '~/folders/{folderId}/indexfields/{id}',
  idField: 'id',
  label: 'Folder index field',
  fields: {
    id: column('field_id', 'guid'),
    definitionPkey: joined('d', 'pkey', 'integer'),
    folderId: column('folder_id', 'guid'),
    fieldType: joined('d', 'field_type', 'integer'),
    label: joined('d', 'label', 'string'),
    description: joined('d', 'description', 'string'),
    ordinalPosition: computed(definitionOrder('d'), 'integer'),
    folderOrdinalPosition: column('position', 'integer'),
    required: effective('required', 'boolean'),
    connectionId: effective('connection_id', 'guid', ZERO_GUID),
    queryId: effective('query_id', 'guid', ZERO_GUID),
    dropDownListId: effective('drop_down_list_id', 'guid', ZERO_GUID),
    queryDisplayField: effective('query_display_field', 'string'),
    queryValueField: effective('query_value_field', 'string'),
    defaultValue: effective('default_value', 'string'),
    globalRequired: joined('d', 'required', 'boolean'),
    globalConnectionId: joined('d', 'connection_id', 'guid', { nullAs: ZERO_GUID }),
    globalQueryID: joined('d', 'query_id', 'guid', { nullAs: ZERO_GUID }),
    globalDropDownListId: joined('d', 'drop_down_list_id', 'guid', { nullAs: ZERO_GUID }),
    globalQueryValueField: joined('d', 'query_value_field', 'string'),
    globalQueryDisplayField: joined('d', 'query_display_field', 'string'),
    globalDefaultValue: joined('d', 'default_value', 'string'),
    ...auditFields(),
  },
  joins: {
    d: { table: 'index_field', on: 'd.id = t.field_id' },
    ...AUDIT_JOINS,
  },
  order: 't.position, t.field_id',
  relations: {
    definition: { kind: 'one', target: 'IndexFieldDefinition', key: 'id' },
    folder: { kind: 'one', target: 'Folder', key: 'folderId' },
    dropDownList: { kind: 'one', target: 'DropDownList', key: 'dropDownListId', graphqlOnly: true },
    ...AUDIT_RELATIONS,
  },
  queries: {
    folderIndexFields: { op: 'list', parent: { resource: 'Folder', arg: 'id', field: 'folderId' } },
  },
  access: { see: folderSeenBy('t.folder_id'), change: 'admin' },
});
