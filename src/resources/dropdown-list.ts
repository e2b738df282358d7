import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, computed, defineResource } from '../read/define.js';

/**
 * A drop-down list (dataType DropDownList): `listID` and `listName` as the clients read them
 * (docs/decisions.md, "Drop-down lists").
 */
export default defineResource({
  dataType: 'DropDownList',
  typeName: 'DropDownList',
  table: 'dropdown_list',
  href: '~/lists/{listID}',
  idField: 'listID',
  label: 'Drop-down list',
  fields: {
    listID: column('id', 'guid'),
    listName: column('name', 'string'),
    description: column('description', 'string'),
    itemCount: computed('(select count(*) from dropdown_item i where i.tenant_id = t.tenant_id and i.list_id = t.id)', 'integer'),
    ...auditFields(),
  },
  joins: AUDIT_JOINS,
  // (tenant_id, name_key(name)) is unique: lists by name.
  order: 'name_key(t.name)',
  relations: {
    items: { kind: 'many', target: 'DropDownListItem', column: 'list_id' },
    ...AUDIT_RELATIONS,
  },
  queries: {
    dropDownLists: { op: 'list' },
    dropDownList: { op: 'get' },
  },
  access: { see: 'tenant', change: 'admin' },
});
