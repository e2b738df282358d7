import { column, defineResource } from '../read/define.js';

/**
 * One item of a drop-down list (dataType DropDownListItem). The clients read an item's own id
 * under `listId` (docs/decisions.md, "Drop-down lists"); its list is `dropDownListId`.
 */
export default defineResource({
  dataType: 'DropDownListItem',
  typeName: 'DropDownListItem',
  table: 'dropdown_item',
  href: '~/lists/{dropDownListId}/items/{listId}',
  idField: 'listId',
  label: 'Drop-down list item',
  fields: {
    listId: column('id', 'guid'),
    dropDownListId: column('list_id', 'guid'),
    itemName: column('name', 'string'),
    itemValue: column('value', 'string'),
    ordinalPosition: column('position', 'integer'),
  },
  order: 't.list_id, t.position, t.id',
  relations: {
    list: { kind: 'one', target: 'DropDownList', key: 'dropDownListId', graphqlOnly: true },
  },
  queries: {
    dropDownListItems: { op: 'list', parent: { resource: 'DropDownList', arg: 'id', field: 'dropDownListId' } },
    dropDownListItem: { op: 'get', arg: 'itemId', parent: { resource: 'DropDownList', arg: 'id', field: 'dropDownListId' } },
  },
  access: { see: 'tenant', change: 'admin' },
});
