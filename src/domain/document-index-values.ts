/**
 * Documents' index field values (docs/decisions.md, "Index fields"): which revision a client's id
 * names, what a value must look like for its field's type, and setting values on a document's
 * current revision, one field or several in one change.
 */
import JSON5 from 'json5';
import type { AppContext } from '../context.js';
import { deleteRows, upsertRows } from '../db/tenant-writes.js';
import { badRequest, notFound, requireAgreement, type SentCopy } from '../errors.js';
import { isGuid, ZERO_GUID } from '../ids.js';
import { accessibleIds } from '../permissions/row-checks.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql } from '../sql.js';
import { changeableDocument, documentRow } from './documents.js';
import { DATE_FIELD, LIST_FIELD, NUMERIC_FIELD, typedValue } from './index-field-types.js';
import { keptNumberText, nameKey, shownNumber, unstorable } from './validate.js';

type Row = Record<string, unknown>;
export type IndexFieldRow = Row & { fieldId: string; label: string; fieldType: number; required: boolean; dhId: string };

const FIELDS = resource('DocumentIndexField');
const MAX_VALUE = 4000;
/** More entries than any folder needs in one request. */
const MAX_ENTRIES = 1000;

/** The revision a client's id names: a document id names its current revision, a revision id that revision. */
export async function revisionOf(ctx: AppContext, id: string): Promise<{ revisionId: string; documentId: string }> {
  const doc = await documentRow(ctx, id);
  const key = id.toLowerCase();
  if (key === doc.documentId) return { revisionId: doc.id, documentId: doc.documentId };
  return { revisionId: key, documentId: doc.documentId };
}

/** Revision `revisionId` of document `documentId` (any id of it), or a 404. */
export async function revisionIn(ctx: AppContext, documentId: string, revisionId: string): Promise<string> {
  const doc = await documentRow(ctx, documentId);
  const [rev] = await selectRows<Row>(ctx.reader, resource('DocumentRevision'), { where: [sql`t.id = ${revisionId.toLowerCase()}`, sql`t.document_id = ${doc.documentId}`] });
  if (!rev) throw notFound(`Document '${documentId}' has no revision '${revisionId}'.`);
  return rev.id as string;
}

/** The revision's index fields (its folder's), in the folder's order. */
export function fieldsOf(ctx: AppContext, revisionId: string): Promise<IndexFieldRow[]> {
  return selectRows<IndexFieldRow>(ctx.reader, FIELDS, { where: [sql`t.revision_id = ${revisionId}`], order: FIELDS.order });
}

/**
 * The ids of `fields` whose definitions are still there, held against their delete to the end of
 * the transaction (accessibleIds' hold, as the value's foreign key would hold them, only earlier):
 * a definition deleted meanwhile is missing, so its value is refused as an unknown field's, not with
 * the foreign key's 404, and a delete begun later waits for the write. (The view the fields are read
 * from cannot be locked: it outer-joins the values.)
 */
async function heldFieldIds(ctx: AppContext, fields: IndexFieldRow[]): Promise<Set<string>> {
  return accessibleIds(ctx, resource('IndexFieldDefinition'), [...new Set(fields.map((f) => f.fieldId))], 'see', ctx.caller.userId, true);
}

/**
 * The revision's field that `id` names (the definition's id or the record's own), or a 404 that
 * says the folder lacks it. `hold` (a value to be set): its definition is held (heldFieldIds).
 */
export async function fieldOf(ctx: AppContext, revisionId: string, id: string, hold = false): Promise<IndexFieldRow> {
  const key = id.toLowerCase();
  const [row] = await selectRows<IndexFieldRow>(ctx.reader, FIELDS, { where: [sql`t.revision_id = ${revisionId}`, sql`(t.field_id = ${key} or t.id = ${key})`] });
  if (!row || (hold && !(await heldFieldIds(ctx, [row])).has(row.fieldId))) throw notFound(`Index field '${id}' is not an index field of this document's folder.`);
  return row;
}

/** The value as kept for the field's type, or a 400 naming the field (and `sentIn`, the input that brought it: AppError); '' clears it. */
export function checkedValue(field: IndexFieldRow, raw: unknown, sentIn?: string): string {
  const at = { field: sentIn };
  if (raw === null || raw === undefined) throw badRequest(`The value of index field '${field.label}' is missing ('' clears it).`, at);
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    throw badRequest(`The value of index field '${field.label}' must be text, a number or a date.`, at);
  }
  // A number (inside indexFields, which the body's own rule does not reach) as its text only when that is surely what was sent.
  const value = typeof raw === 'number' ? keptNumberText(raw) : String(raw);
  if (value === undefined) {
    throw badRequest(`The value of index field '${field.label}' must be sent as a string in quotes: as a JSON number (${shownNumber(raw as number)}) it may already have been rounded or rewritten, so it cannot be kept as sent.`, at);
  }
  if (value.length > MAX_VALUE) throw badRequest(`The value of index field '${field.label}' is longer than ${MAX_VALUE} characters.`, at);
  // Reaches here as sent only inside `indexFields`' JSON text (`"\u0000"`), which the body's own check cannot see.
  const why = unstorable(value);
  if (why) throw badRequest(`The value of index field '${field.label}' holds ${why}, which cannot be stored as sent.`, at);
  const s = value.trim();
  if (s === '') {
    if (field.required) throw badRequest(`Index field '${field.label}' is required: it cannot be cleared.`, at);
    return '';
  }
  const typed = typedValue(field.fieldType, `Index field '${field.label}'`, s, sentIn);
  // Text keeps its spaces; numbers, dates and a list's values are kept trimmed.
  return field.fieldType === NUMERIC_FIELD || field.fieldType === DATE_FIELD || field.fieldType === LIST_FIELD ? typed : value;
}

/**
 * Throws a 400 unless every value of a drop-down list field is one of its list's item values (the
 * folder's list, else the definition's; a field with neither list takes any text). Two statements.
 */
async function assertListed(ctx: AppContext, folderId: string, values: Map<IndexFieldRow, string>, sentIn: string): Promise<void> {
  const listed = [...values].filter(([f, v]) => f.fieldType === LIST_FIELD && v !== '');
  if (listed.length === 0) return;
  const inFolder = await selectRows<{ id: string; dropDownListId: string }>(ctx.reader, resource('FolderIndexField'), {
    where: [sql`t.folder_id = ${folderId}`, sql`t.field_id = any(${listed.map(([f]) => f.fieldId)}::uuid[])`],
  });
  const listOf = new Map(inFolder.filter((f) => f.dropDownListId !== ZERO_GUID).map((f) => [f.id, f.dropDownListId]));
  const items = await selectRows<{ dropDownListId: string; itemValue: string }>(ctx.reader, resource('DropDownListItem'), {
    where: [sql`t.list_id = any(${[...new Set(listOf.values())]}::uuid[])`, sql`t.value = any(${listed.map(([, v]) => v)}::text[])`],
  });
  const offered = new Set(items.map((i) => `${i.dropDownListId}\n${i.itemValue}`));
  for (const [field, value] of listed) {
    const list = listOf.get(field.fieldId);
    if (list && !offered.has(`${list}\n${value}`)) {
      throw badRequest(`Index field '${field.label}' is a drop-down list: '${value.slice(0, 64)}' is none of its values (GET folders/{folderId}/indexfields/{id}/selectoptions lists them).`, { field: sentIn });
    }
  }
}

/**
 * Sets values on the revision (one statement for all; '' removes a value, so the field reads its
 * default again). Two changes of one value at once: the last one to commit is kept, whole.
 */
async function store(ctx: AppContext, revisionId: string, values: Map<IndexFieldRow, string>): Promise<void> {
  const by = ctx.caller.userId;
  const set = [...values].filter(([, v]) => v !== '');
  const cleared = [...values].filter(([, v]) => v === '').map(([f]) => f.fieldId);
  await upsertRows(
    ctx.reader,
    'document_index_value',
    set.map(([f, value]) => ({ revision_id: revisionId, field_id: f.fieldId, value, created_by_id: by, modified_at: sql`now()`, modified_by_id: by })),
    ['revision_id', 'field_id'],
    ['value', 'modified_at', 'modified_by_id'],
  );
  if (cleared.length) await deleteRows(ctx.reader, 'document_index_value', sql`t.revision_id = ${revisionId} and t.field_id = any(${cleared}::uuid[])`);
}

/** Sets one field of the document's current revision; returns the revision id. */
export async function setIndexField(ctx: AppContext, documentId: string, fieldId: string, input: Row): Promise<string> {
  const doc = await changeableDocument(ctx, documentId);
  const field = await fieldOf(ctx, doc.id, fieldId, true);
  if (input.value === undefined) throw badRequest("The mandatory field 'value' is missing ('' clears the value).", { field: 'value' });
  const values = new Map([[field, checkedValue(field, input.value, 'value')]]);
  await assertListed(ctx, doc.folderId as string, values, 'value');
  await store(ctx, doc.id, values);
  return doc.id;
}

/** `indexFields` as sent: a JSON array of one-key objects or one object, as a string (single quotes allowed) or as JSON. */
function entriesOf(sent: unknown): [string, unknown][] {
  let parsed = sent;
  if (typeof sent === 'string') {
    try {
      parsed = JSON5.parse(sent);
    } catch {
      throw badRequest("The field 'indexFields' must be JSON: an array of {\"<field id or label>\": \"<value>\"} objects, or one such object.", { field: 'indexFields' });
    }
  }
  const objects = Array.isArray(parsed) ? parsed : [parsed];
  if (objects.some((o) => o === null || typeof o !== 'object' || Array.isArray(o))) {
    throw badRequest("The field 'indexFields' must hold objects such as {\"<field id or label>\": \"<value>\"}.", { field: 'indexFields' });
  }
  const entries = objects.flatMap((o) => Object.entries(o as Row));
  if (entries.length > MAX_ENTRIES) throw badRequest(`The field 'indexFields' may set at most ${MAX_ENTRIES} values at once.`, { field: 'indexFields' });
  return entries;
}

/**
 * Sets several fields of the document's current revision, named by id or label (any case or Unicode normal form), all or
 * none; returns the revision id. `noneIsNothing`: a request that names none (`{}`, which the
 * Python and .NET clients send with every new document and upload) sets nothing; else it is a 400.
 */
export async function setIndexFields(ctx: AppContext, documentId: string, input: Row, noneIsNothing = false): Promise<string> {
  if (input.indexFields === undefined || input.indexFields === null) throw badRequest("The mandatory field 'indexFields' is missing.", { field: 'indexFields' });
  const entries = entriesOf(input.indexFields);
  if (entries.length === 0 && !noneIsNothing) throw badRequest("The field 'indexFields' names no index field.", { field: 'indexFields' });
  const doc = await changeableDocument(ctx, documentId);
  if (entries.length === 0) return doc.id;
  const fields = await fieldsOf(ctx, doc.id);
  const named = entries.map(([key, value]) => {
    const k = key.trim();
    return { key, value, field: isGuid(k) ? fields.find((f) => f.fieldId === k.toLowerCase()) : fields.find((f) => nameKey(f.label) === nameKey(k)) };
  });
  // Held before any value is checked: one deleted meanwhile is refused where an unknown one would be.
  const held = await heldFieldIds(ctx, named.flatMap((n) => (n.field ? [n.field] : [])));
  const copies = new Map<IndexFieldRow, (SentCopy & { kept: string })[]>();
  for (const { key, value, field } of named) {
    if (!field || !held.has(field.fieldId)) throw badRequest(`'${key.slice(0, 64)}' is not an index field of this document's folder (name one by its id or label).`, { field: 'indexFields' });
    const copy = { sent: value, as: key, kept: checkedValue(field, value, 'indexFields') };
    copies.set(field, [...(copies.get(field) ?? []), copy]);
  }
  // A field named twice (by label and by id, in two cases, in two objects) must name one value, as a form field must.
  const values = new Map<IndexFieldRow, string>();
  for (const [field, sent] of copies) {
    if (sent.length > 1) requireAgreement(`index field '${field.label}'`, sent);
    values.set(field, sent[0].kept);
  }
  await assertListed(ctx, doc.folderId as string, values, 'indexFields');
  await store(ctx, doc.id, values);
  return doc.id;
}
