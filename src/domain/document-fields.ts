/**
 * The fields documents have (`GET documentfields`, docs/decisions.md "Document fields"): one
 * record per field of the Document definition (src/resources/document.ts), in its order, so a
 * client can build document queries and forms. The definition is the one source: a field added
 * there is listed here, with the name `q` and `fields=` take, a label, the legacy database column
 * and its types. Index fields are not among them: documents' `q` does not name them, and
 * `GET indexfields` lists them.
 */
import { computedMatching } from '../computed-records.js';
import { notFound } from '../errors.js';
import type { FieldType } from '../query/fields.js';
import { queryFieldMap } from '../read/fields.js';
import { paging, type ListArgs } from '../read/paging.js';
import { resource } from '../read/registry.js';
import type { Page, ReadContext } from '../read/resolvers.js';
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

const fieldsMatching = computedMatching<DocumentField>('DocumentField');

/** A page of the document fields `q` matches, in the definition's order; a bad `q` is a 400 before anything is read. */
export function documentFields(ctx: ReadContext, args: ListArgs): Page<DocumentField> {
  const { limit, offset } = paging(ctx.services.config, args);
  const all = fieldsMatching(ctx.reader, FIELDS, args.q);
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
