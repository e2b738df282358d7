/**
 * Drop-down list rules (docs/decisions.md, "Drop-down lists"): names, items, replacing and
 * deleting items, and the options an index field offers.
 */
import type { AppContext } from '../context.js';
import { deleteRows, insertRows, updateRows } from '../db/tenant-writes.js';
import { badRequest, conflict, namedList, notFound } from '../errors.js';
import { isGuid, newId } from '../ids.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql, type Sql } from '../sql.js';
import { maxLength, nameText, optionalString, requireName } from './validate.js';

type Input = Record<string, unknown>;
type Row = Record<string, unknown>;

const LIST = resource('DropDownList');
export const LIMITS = { name: 256, description: 4000, item: 1000, items: 10_000 } as const;

async function assertNameFree(ctx: AppContext, name: string, except?: string): Promise<void> {
  const others: Sql[] = except ? [sql`t.id <> ${except}`] : [];
  const [taken] = await selectRows<Row>(ctx.reader, LIST, { where: [sql`name_key(t.name) = name_key(${name})`, ...others], limit: 1 });
  if (taken) throw conflict(`A drop-down list named '${taken.listName as string}' already exists.`, { field: 'name' });
}

/** The items as sent, checked: `itemName` mandatory and not blank, `itemValue` the name when left out. */
function itemsOf(sent: unknown): { name: string; value: string }[] {
  if (!Array.isArray(sent)) throw badRequest("The field 'items' must be an array of {itemName, itemValue}.", { field: 'items' });
  if (sent.length > LIMITS.items) throw badRequest(`A drop-down list may have at most ${LIMITS.items} items.`, { field: 'items' });
  return sent.map((item, i) => {
    const label = `items[${i}].itemName`;
    const name = optionalString(item as Input, 'itemName', label);
    // Worded as run-route respells a body field's refusal ('The field ...'): `Items[0].ItemName` as sent.
    if (name === undefined) throw badRequest(`The field '${label}' is missing.`, { field: label });
    if (name.trim() === '') throw badRequest(`The field '${label}' must not be blank.`, { field: label });
    const value = optionalString(item as Input, 'itemValue', `items[${i}].itemValue`) ?? name;
    return { name: maxLength(name, LIMITS.item, `items[${i}].itemName`), value: maxLength(value, LIMITS.item, `items[${i}].itemValue`) };
  });
}

const insertItems = (ctx: AppContext, listId: string, items: { name: string; value: string }[]) =>
  insertRows(ctx.reader, 'dropdown_item', items.map((item, i) => ({ id: newId(), list_id: listId, position: i + 1, name: item.name, value: item.value })));

/** A new list with its items; returns its id. Two of one name at once: one is made, the other gets a 409. */
export async function createList(ctx: AppContext, input: Input): Promise<string> {
  const name = requireName(input, LIMITS.name);
  const description = maxLength(optionalString(input, 'description') ?? '', LIMITS.description, 'description');
  const items = input.items === undefined || input.items === null ? [] : itemsOf(input.items);
  await assertNameFree(ctx, name);
  const id = newId();
  const by = ctx.caller.userId;
  await insertRows(ctx.reader, 'dropdown_list', [{ id, name, description, created_by_id: by, modified_by_id: by }]);
  await insertItems(ctx, id, items);
  return id;
}

/** Changes what is sent; `items`, when sent, replace every item. The list's row is locked, so two updates run one after the other. */
export async function updateList(ctx: AppContext, id: string, input: Input): Promise<void> {
  const [list] = await selectRows<Row>(ctx.reader, LIST, { where: [sql`t.id = ${id.toLowerCase()}`], lock: true });
  if (!list) throw notFound(`Drop-down list '${id}' was not found.`);
  const set: Row = {};
  const name = optionalString(input, 'name');
  if (name !== undefined) {
    set.name = nameText(name, LIMITS.name, 'name', list.listName);
    await assertNameFree(ctx, set.name as string, list.listID as string);
  }
  const description = optionalString(input, 'description');
  if (description !== undefined) set.description = maxLength(description, LIMITS.description, 'description');
  const items = input.items === undefined || input.items === null ? undefined : itemsOf(input.items);
  if (Object.keys(set).length === 0 && items === undefined) throw badRequest('Send at least one of: name, description, items.');
  await updateRows(ctx.reader, 'dropdown_list', { ...set, modified_at: sql`now()`, modified_by_id: ctx.caller.userId }, sql`t.id = ${list.listID as string}`);
  if (items) {
    await deleteRows(ctx.reader, 'dropdown_item', sql`t.list_id = ${list.listID as string}`);
    await insertItems(ctx, list.listID as string, items);
  }
}

/**
 * Deletes a list; one an index field names (a definition, or a folder's override) is a 409 naming
 * them, definitions first in their order, each override with its folder. One named at that moment
 * meets the foreign key, whose 409 names no field.
 */
export async function deleteList(ctx: AppContext, id: string): Promise<void> {
  const [list] = await selectRows<Row>(ctx.reader, LIST, { where: [sql`t.id = ${id.toLowerCase()}`], lock: true });
  if (!list) throw notFound(`Drop-down list '${id}' was not found.`);
  const listId = list.listID as string;
  const definitions = await selectRows<Row>(ctx.reader, resource('IndexFieldDefinition'), { where: [sql`t.drop_down_list_id = ${listId}`] });
  const overrides = await selectRows<Row>(ctx.reader, resource('FolderIndexField'), { where: [sql`t.drop_down_list_id = ${listId}`], order: 'd.label, t.folder_id' });
  const users: { label: string; folderId?: string }[] = [
    ...definitions.map((d) => ({ label: d.label as string })),
    ...overrides.map((o) => ({ label: o.label as string, folderId: o.folderId as string })),
  ];
  if (users.length > 0) {
    // The paths of the folders the message names (it names at most 10 fields).
    const folderIds = [...new Set(users.slice(0, 10).flatMap((u) => (u.folderId ? [u.folderId] : [])))];
    const folders = folderIds.length ? await selectRows<Row>(ctx.reader, resource('Folder'), { where: [sql`t.id = any(${folderIds}::uuid[])`] }) : [];
    const pathOf = new Map(folders.map((f) => [f.id as string, f.folderPath as string]));
    const shown = users.map((u) => `'${u.label.slice(0, 256)}'${u.folderId ? ` (in folder '${pathOf.get(u.folderId) ?? u.folderId}')` : ''}`);
    const named = namedList(shown, (text) => text);
    const many = users.length > 1;
    throw conflict(`Drop-down list '${list.listName as string}' is used by the index field${many ? 's' : ''} ${named}: point ${many ? 'them' : 'it'} at another list, or at none, first.`);
  }
  await deleteRows(ctx.reader, 'dropdown_list', sql`t.id = ${listId}`);
}

/**
 * Deletes the items named in `itemIds` (comma-separated), all of them items of the list, or none:
 * a 404 names those that are not, as sent. The list's row is locked, so its items stay as read.
 */
export async function deleteItems(ctx: AppContext, id: string, itemIds: string): Promise<void> {
  const [list] = await selectRows<Row>(ctx.reader, LIST, { where: [sql`t.id = ${id.toLowerCase()}`], lock: true });
  if (!list) throw notFound(`Drop-down list '${id}' was not found.`);
  // Each id once, in the spelling first sent.
  const sent = new Map<string, string>();
  for (const s of itemIds.split(',').map((x) => x.trim()).filter(Boolean)) if (!sent.has(s.toLowerCase())) sent.set(s.toLowerCase(), s);
  const ids = [...sent.keys()];
  if (ids.length === 0) throw badRequest("The query parameter 'itemIds' names no item.", { field: 'itemIds' });
  const bad = ids.find((i) => !isGuid(i));
  if (bad) throw badRequest(`The query parameter 'itemIds' must hold item ids (GUIDs), got '${String(sent.get(bad)).slice(0, 64)}'.`, { field: 'itemIds' });
  const listId = list.listID as string;
  const found = await selectRows<Row>(ctx.reader, resource('DropDownListItem'), { where: [sql`t.list_id = ${listId} and t.id = any(${ids}::uuid[])`] });
  const mine = new Set(found.map((i) => i.listId as string));
  const missing = ids.filter((i) => !mine.has(i)).map((i) => sent.get(i)!);
  if (missing.length === 1) throw notFound(`Item '${missing[0].slice(0, 64)}' is not an item of drop-down list '${list.listName as string}'; nothing was deleted.`, { field: 'itemIds' });
  if (missing.length > 1) throw notFound(`Items ${namedList(missing)} are not items of drop-down list '${list.listName as string}'; nothing was deleted.`, { field: 'itemIds' });
  await deleteRows(ctx.reader, 'dropdown_item', sql`t.list_id = ${listId} and t.id = any(${ids}::uuid[])`);
}

/**
 * The list `dropDownListId` names (unset: the all-zero GUID or null), or a 404; held against its
 * delete (RowQuery.lock 'keyShare'), so one committed meanwhile is this 404, not the foreign key's.
 */
export async function existingList(ctx: AppContext, id: string | undefined): Promise<string | undefined> {
  if (!id) return undefined;
  const [list] = await selectRows<Row>(ctx.reader, LIST, { where: [sql`t.id = ${id}`], lock: 'keyShare' });
  if (!list) throw notFound(`Drop-down list '${id}' was not found.`, { field: 'dropDownListId' });
  return id;
}
