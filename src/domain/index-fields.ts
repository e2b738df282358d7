/**
 * Index field rules (docs/decisions.md, "Index fields"): a definition's type and values, its
 * place in the definitions' order, and a folder's use of it with the folder's overrides.
 */
import type { AppContext } from '../context.js';
import { deleteRows, insertRows, updateRows } from '../db/tenant-writes.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { guidOrUnset, newId, requireGuid } from '../ids.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql, type Sql } from '../sql.js';
import { existingList } from './dropdown-lists.js';
import { lockedFolder } from './folders.js';
import { typedValue } from './index-field-types.js';
import { maxLength, nameText, optionalString, requireString } from './validate.js';

type Input = Record<string, unknown>;
type Row = Record<string, unknown>;
type DefinitionRow = Row & { id: string; label: string; fieldType: number };

const DEFINITION = resource('IndexFieldDefinition');
const IN_FOLDER = resource('FolderIndexField');
export const LIMITS = { label: 256, description: 4000, queryDisplayField: 256, queryValueField: 256, defaultValue: 4000 } as const;

/** The field types by code, and the names the clients send for them (`Text` is single-line text). */
const TYPE_NAMES: Record<string, number> = {
  multilinetextbox: 0,
  singlelinetextbox: 1,
  text: 1,
  datasourcedropdown: 2,
  calendar: 4,
  date: 4,
  numeric: 5,
  number: 5,
  dropdownlist: 6,
  usersdropdownlist: 7,
  modifiabledropdownlist: 8,
  modifiabledatasourcedropdown: 9,
};
const TYPE_CODES = new Set(Object.values(TYPE_NAMES));

/** `fieldType` as a code (`1`) or a name (`Text`, `SingleLineTextBox`, any case). */
export function fieldTypeOf(v: unknown): number {
  const s = String(v ?? '').trim();
  const code = /^\d{1,3}$/.test(s) ? Number(s) : TYPE_NAMES[s.toLowerCase().replace(/[\s_-]/g, '')];
  if (code === undefined || !TYPE_CODES.has(code)) {
    throw badRequest(`The field 'fieldType' must be one of the codes 0, 1, 2, 4, 5, 6, 7, 8, 9 or their names (such as 'Text'), got '${s.slice(0, 64)}'.`, { field: 'fieldType' });
  }
  return code;
}

/** Queries and connections are not part of this service yet: their ids may only be unset. */
function notYetIds(input: Input): void {
  for (const [key, what] of [['connectionId', 'connections'], ['queryId', 'queries']] as const) {
    if (guidOrUnset(input[key], key)) {
      throw badRequest(`The field '${key}' must be null or the all-zero GUID: ${what} are not part of this service yet.`, { field: key });
    }
  }
}

/** A label sent, checked as names are (`nameText`); an update passes the label it replaces as `stored`. */
const label = (raw: string, stored?: unknown): string => nameText(raw, LIMITS.label, 'label', stored);

/** The text values of a definition and of a folder's overrides, by column. */
const TEXT_COLUMNS = { description: 'description', queryDisplayField: 'query_display_field', queryValueField: 'query_value_field', defaultValue: 'default_value' } as const;

/** The text values sent, by column, within their limits. */
function texts(input: Input): Row {
  const out: Row = {};
  for (const [key, column] of Object.entries(TEXT_COLUMNS) as [keyof typeof TEXT_COLUMNS, string][]) {
    const v = optionalString(input, key);
    if (v !== undefined) out[column] = maxLength(v, LIMITS[key], key);
  }
  return out;
}

/** What one key of an update's body changes (its value never undefined): the columns to set, none when it keeps the stored value. */
type Change = (v: unknown) => Row | Promise<Row>;

/**
 * The columns an update sets: each key of `changes` sent, in its order. A body that changes
 * nothing is a 400 naming every key of `changes`, so the message lists exactly what the update
 * reads (it named neither queryId nor connectionId on `PUT indexfields/{id}`, which takes both).
 */
async function changesSent(input: Input, changes: Record<string, Change>): Promise<Row> {
  const set: Row = {};
  for (const [key, change] of Object.entries(changes)) if (input[key] !== undefined) Object.assign(set, await change(input[key]));
  if (Object.keys(set).length === 0) throw badRequest(`Send at least one of: ${Object.keys(changes).join(', ')}.`);
  return set;
}

/** Query and connection ids sent (only ever unset: `notYetIds`) keep none. */
const NO_QUERY: Record<string, Change> = { queryId: () => ({ query_id: null }), connectionId: () => ({ connection_id: null }) };

/** A default value sent (in `set`, by column) kept as a value of the field's type would be: a number for a numeric field, a date for a date field. */
function typedDefault(set: Row, fieldType: number, label: string): Row {
  const v = set.default_value;
  if (typeof v === 'string' && v.trim() !== '') set.default_value = typedValue(fieldType, `The default value of index field '${label}'`, v.trim(), 'defaultValue');
  return set;
}

async function assertLabelFree(ctx: AppContext, name: string, except?: string): Promise<void> {
  const others: Sql[] = except ? [sql`t.id <> ${except}`] : [];
  const [taken] = await selectRows<Row>(ctx.reader, DEFINITION, { where: [sql`name_key(t.label) = name_key(${name})`, ...others], limit: 1 });
  if (taken) throw conflict(`An index field labelled '${taken.label as string}' already exists.`, { field: 'label' });
}

async function lockedDefinition(ctx: AppContext, id: string): Promise<DefinitionRow> {
  const [row] = await selectRows<DefinitionRow>(ctx.reader, DEFINITION, { where: [sql`t.id = ${id.toLowerCase()}`], lock: true });
  if (!row) throw notFound(`Index field '${id}' was not found.`);
  return row;
}

/** A new definition, last in the order; returns its id. Two of the same label at once: the unique index lets one in, the other gets a 409. */
export async function createIndexField(ctx: AppContext, input: Input): Promise<string> {
  const fieldType = fieldTypeOf(requireString(input, 'fieldType'));
  const name = label(requireString(input, 'label'));
  notYetIds(input);
  await assertLabelFree(ctx, name);
  const id = newId();
  const by = ctx.caller.userId;
  const required = input.required ?? false;
  const list = await existingList(ctx, guidOrUnset(input.dropDownListId, 'dropDownListId'));
  await insertRows(ctx.reader, 'index_field', [
    {
      id, field_type: fieldType, label: name, required, drop_down_list_id: list ?? null, description: '', query_display_field: '', query_value_field: '', default_value: '',
      ...typedDefault(texts(input), fieldType, name), created_by_id: by, modified_by_id: by,
    },
  ]);
  return id;
}

/** Changes the values sent (absent keys stay); the type cannot change. */
export async function updateIndexField(ctx: AppContext, id: string, input: Input): Promise<void> {
  const current = await lockedDefinition(ctx, id);
  if (input.fieldType !== undefined && input.fieldType !== null && fieldTypeOf(input.fieldType) !== current.fieldType) {
    throw badRequest(`The type of an index field cannot change (index field '${current.label}' is of type ${current.fieldType}): make a new one.`, { field: 'fieldType' });
  }
  notYetIds(input);
  // Null keeps a value, but for the ids, where null is none.
  const text = (key: keyof typeof TEXT_COLUMNS): Change => (v) => texts({ [key]: v });
  const changes: Record<string, Change> = {
    label: async (v) => {
      if (v === null) return {};
      const name = label(optionalString({ label: v }, 'label')!, current.label);
      await assertLabelFree(ctx, name, current.id);
      return { label: name };
    },
    description: text('description'),
    required: (v) => (typeof v === 'boolean' ? { required: v } : {}),
    queryDisplayField: text('queryDisplayField'),
    queryValueField: text('queryValueField'),
    defaultValue: text('defaultValue'),
    dropDownListId: async (v) => ({ drop_down_list_id: (await existingList(ctx, guidOrUnset(v, 'dropDownListId'))) ?? null }),
    ...NO_QUERY,
  };
  const set = typedDefault(await changesSent(input, changes), current.fieldType, current.label);
  await updateRows(ctx.reader, 'index_field', { ...set, modified_at: sql`now()`, modified_by_id: ctx.caller.userId }, sql`t.id = ${current.id}`);
}

export async function deleteIndexField(ctx: AppContext, id: string): Promise<void> {
  if (!(await deleteRows(ctx.reader, 'index_field', sql`t.id = ${id.toLowerCase()}`))) throw notFound(`Index field '${id}' was not found.`);
}

/**
 * Puts `sourceFieldId` directly after `destinationFieldId` and numbers the definitions 1, 2, ...
 * Every definition is locked first, in order, so two moves at once run one after the other
 * and neither loses the other's place.
 */
export async function moveIndexFieldAfter(ctx: AppContext, input: Input): Promise<string> {
  const source = requireGuid(input.sourceFieldId, 'sourceFieldId');
  const destination = requireGuid(input.destinationFieldId, 'destinationFieldId');
  if (source === destination) throw badRequest("'sourceFieldId' and 'destinationFieldId' name the same index field.");
  // Every definition locked in id order, which no move changes (in the order of their places, which
  // moves change, two moves at once could lock the same rows in opposite orders: a deadlock); then
  // their places read with every lock held.
  await selectRows(ctx.reader, DEFINITION, { order: 't.id', lock: true });
  const ids = (await selectRows<{ id: string }>(ctx.reader, DEFINITION, { order: DEFINITION.order })).map((r) => r.id);
  for (const [id, key] of [[source, 'sourceFieldId'], [destination, 'destinationFieldId']]) {
    if (!ids.includes(id)) throw notFound(`Index field '${id}' (${key}) was not found.`, { field: key });
  }
  const order = ids.filter((id) => id !== source);
  order.splice(order.indexOf(destination) + 1, 0, source);
  await updateRows(ctx.reader, 'index_field', { position: sql`array_position(${order}::uuid[], t.id)` }, sql`t.id = any(${order}::uuid[])`);
  await updateRows(ctx.reader, 'index_field', { modified_at: sql`now()`, modified_by_id: ctx.caller.userId }, sql`t.id = ${source}`);
  return source;
}

/** Folder `folderId`'s use of definition `id`, or undefined. */
export async function folderIndexField(ctx: AppContext, folderId: string, id: string, lock = false): Promise<Row | undefined> {
  const [row] = await selectRows<Row>(ctx.reader, IN_FOLDER, { where: [sql`t.folder_id = ${folderId.toLowerCase()}`, sql`t.field_id = ${id.toLowerCase()}`], lock });
  return row;
}

/**
 * Adds the definition to the folder, last in the folder's order; already there, nothing changes.
 * The folder's row is locked first, so two adds at once take different places.
 */
export async function relateToFolder(ctx: AppContext, id: string, folderId: string): Promise<void> {
  // Held against its delete (RowQuery.lock): one committed meanwhile is this 404, not the foreign key's.
  const [definition] = await selectRows<DefinitionRow>(ctx.reader, DEFINITION, { where: [sql`t.id = ${id.toLowerCase()}`], lock: 'keyShare' });
  if (!definition) throw notFound(`Index field '${id}' was not found.`);
  const folder = await lockedFolder(ctx, folderId);
  if (await folderIndexField(ctx, folder.id, definition.id)) return;
  const [last] = await selectRows<{ folderOrdinalPosition: number }>(ctx.reader, IN_FOLDER, { where: [sql`t.folder_id = ${folder.id}`], order: 't.position desc', limit: 1 });
  const by = ctx.caller.userId;
  await insertRows(ctx.reader, 'folder_index_field', [
    { folder_id: folder.id, field_id: definition.id, position: (last?.folderOrdinalPosition ?? 0) + 1, created_by_id: by, modified_by_id: by },
  ]);
}

/** A folder's override columns, all unset: the definition's values show through. */
const NO_OVERRIDES: Row = {
  required: null, connection_id: null, query_id: null, drop_down_list_id: null, query_display_field: null, query_value_field: null, default_value: null,
};

/**
 * Sets the folder's overrides sent (absent keys stay; null: the definition's value again). A
 * field the folder does not have yet is added first: overriding it says the folder uses it.
 */
export async function updateFolderIndexField(ctx: AppContext, folderId: string, id: string, input: Input): Promise<void> {
  notYetIds(input);
  let row = await folderIndexField(ctx, folderId, id, true);
  if (!row) {
    await relateToFolder(ctx, id, folderId);
    row = (await folderIndexField(ctx, folderId, id, true))!;
  }
  // Null: the definition's value again.
  const override = (key: 'queryDisplayField' | 'queryValueField' | 'defaultValue'): Change => (v) => (v === null ? { [TEXT_COLUMNS[key]]: null } : texts({ [key]: v }));
  const changes: Record<string, Change> = {
    // First, so that keys sent beside it are set after it.
    overriden: (v) => (v === false ? NO_OVERRIDES : {}),
    required: (v) => ({ required: v }),
    queryDisplayField: override('queryDisplayField'),
    queryValueField: override('queryValueField'),
    defaultValue: override('defaultValue'),
    // A list of its own for this folder; unset (null or the all-zero GUID): the definition's.
    dropDownListId: async (v) => ({ drop_down_list_id: (await existingList(ctx, guidOrUnset(v, 'dropDownListId'))) ?? null }),
    ...NO_QUERY,
  };
  const set = typedDefault(await changesSent(input, changes), row.fieldType as number, row.label as string);
  await updateRows(
    ctx.reader,
    'folder_index_field',
    { ...set, modified_at: sql`now()`, modified_by_id: ctx.caller.userId },
    sql`t.folder_id = ${row.folderId as string} and t.field_id = ${row.id as string}`,
  );
}

export async function removeFromFolder(ctx: AppContext, folderId: string, id: string): Promise<void> {
  const removed = await deleteRows(ctx.reader, 'folder_index_field', sql`t.folder_id = ${folderId.toLowerCase()} and t.field_id = ${id.toLowerCase()}`);
  if (!removed) throw notFound(`Index field '${id}' is not in folder '${folderId}'.`);
}
