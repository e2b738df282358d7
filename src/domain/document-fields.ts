/**
 * The fields documents have (`GET documentfields`, docs/decisions.md "Document fields"): one
 * record per field of the Document definition (src/resources/document.ts), in its order, so a
 * client can build document queries and forms. The definition is the one source: a field added
 * there is listed here, with the name `q` and `fields=` take, a label, the legacy database column
 * and its types. Index fields are not among them: documents' `q` does not name them, and
 * `GET indexfields` lists them.
 */
import { COMPUTED_TYPES, computedQueryFields } from '../datatypes.js';
import { notFound } from '../errors.js';
import type { FieldType } from '../query/fields.js';
import { compileQText } from '../query/index.js';
import { queryFieldMap } from '../read/fields.js';
import { paging, type ListArgs } from '../read/paging.js';
import { resource } from '../read/registry.js';
import type { Page, ReadContext } from '../read/resolvers.js';
import { run } from '../read/rows.js';
import { join, raw, sql, type Sql } from '../sql.js';
import { FIELD_TYPE_OF_VALUE } from './index-field-types.js';

export interface DocumentField {
  href: string;
  dataType: 'DocumentField';
  name: string;
  label: string;
  databaseField: string;
  fieldType: number;
  valueType: FieldType;
  queryable: boolean;
}

/**
 * The legacy service's columns that its clients show: a revision's header row `DhID` (the record's
 * `id`, the doc API's `dhId`), the document's `DlID` (the doc API's `dlId`), its name `DhDocID`
 * (the forms API's "DhDocId (display name)", the doc API's `dlDocId` is the same name) and `DhDesc`
 * (the doc API's `dhDesc`, which its description updates). The other fields take `databaseColumn`'s rule.
 */
const KNOWN_COLUMNS: Record<string, string> = { id: 'DhID', documentId: 'DlID', name: 'DhDocID', description: 'DhDesc' };

/** `Dh` and the name with a capital first letter, a final `Id` written `ID` as the known columns write it: `folderId` is `DhFolderID`. */
export const databaseColumn = (name: string): string => KNOWN_COLUMNS[name] ?? `Dh${name[0].toUpperCase()}${name.slice(1).replace(/Id$/, 'ID')}`;

/** The name's words, each with a capital letter, `Id` as `ID`: `checkedOutById` is `Checked Out By ID`. */
export const labelOf = (name: string): string =>
  name
    .split(/(?=[A-Z])/)
    .map((w) => (w.toLowerCase() === 'id' ? 'ID' : `${w[0].toUpperCase()}${w.slice(1)}`))
    .join(' ');

const DOCUMENT = resource('Document');
for (const name of Object.keys(KNOWN_COLUMNS)) {
  if (!DOCUMENT.fields[name]) throw new Error(`src/domain/document-fields.ts names the column of Document.${name}, which src/resources/document.ts lacks`);
}

const FIELDS: readonly DocumentField[] = Object.entries(DOCUMENT.fields).map(([name, f]) => ({
  href: `~/documentfields/${name}`,
  dataType: 'DocumentField',
  name,
  label: labelOf(name),
  databaseField: databaseColumn(name),
  fieldType: FIELD_TYPE_OF_VALUE[f.type],
  valueType: f.type,
  queryable: queryFieldMap(DOCUMENT).get(name.toLowerCase()) !== undefined,
}));

/** The record's fields as `q` reads them (src/datatypes.ts, DocumentField): columns of a VALUES list of the records. */
const RECORD_FIELDS = Object.entries(COMPUTED_TYPES.DocumentField.fields).filter((e): e is [keyof DocumentField & string, FieldType] => e[1] !== null);
const Q_FIELDS = computedQueryFields('DocumentField', (field) => raw(`t."${field}"`));
const CAST: Record<FieldType, string> = { string: 'text', guid: 'uuid', integer: 'bigint', numeric: 'numeric', boolean: 'boolean', datetime: 'timestamp' };
const COLUMNS = raw(RECORD_FIELDS.map(([n]) => `"${n}"`).join(', '));
const ROWS = join(FIELDS.map((f) => sql`(${join(RECORD_FIELDS.map(([n, type]) => sql`${f[n]}${raw(`::${CAST[type]}`)}`), ', ')})`), ', ');

/**
 * The fields a `q` condition matches: the fixed list is filtered in SQL, as the alert events are
 * (src/resolvers/alert.ts), so `q` means what it means on every other list. One statement.
 */
async function matching(ctx: ReadContext, condition: Sql): Promise<readonly DocumentField[]> {
  const rows = await run<{ name: string }>(ctx.reader, sql`select t."name" from (values ${ROWS}) as t(${COLUMNS}) where ${condition}`);
  const names = new Set(rows.map((r) => r.name));
  return FIELDS.filter((f) => names.has(f.name));
}

/** A page of the document fields `q` matches, in the definition's order; a bad `q` is a 400 before anything is read. */
export function documentFields(ctx: ReadContext, args: ListArgs): Page<DocumentField> {
  const { limit, offset } = paging(ctx.services.config, args);
  const condition = compileQText(args.q ?? undefined, Q_FIELDS);
  let found: Promise<readonly DocumentField[]> | undefined;
  const all = () => (found ??= condition ? matching(ctx, condition) : Promise.resolve(FIELDS));
  return {
    items: async () => (await all()).slice(offset, offset + limit),
    totalRecords: async () => (await all()).length,
  };
}

/** One document field by its API name, in any case (as `q` and `fields=` take it); a 404 for a name documents lack. */
export function documentField(name: string): DocumentField {
  const field = FIELDS.find((f) => f.name.toLowerCase() === name.toLowerCase());
  if (!field) throw notFound(`Document field '${name}' was not found (GET documentfields lists them).`);
  return field;
}
