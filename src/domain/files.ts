/**
 * Documents' files (docs/decisions.md, "Files"): an upload fills the current revision's empty
 * place or makes a new revision; a download finds the file by any id the clients use for it.
 * The document's row is locked first, so uploads to one document at once make one revision each.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../context.js';
import { copyRows, insertRows, updateRows } from '../db/tenant-writes.js';
import { badRequest, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { compileQText } from '../query/index.js';
import { queryFieldMap } from '../read/fields.js';
import { resource } from '../read/registry.js';
import { countRows, selectRows } from '../read/rows.js';
import { sql, type Sql } from '../sql.js';
import { setIndexFields } from './document-index-values.js';
import { changeableDocument, setCheckIn } from './documents.js';
import { maxLength, optionalString, requireGuid } from './validate.js';

type Input = Record<string, unknown>;
type Row = Record<string, unknown>;
export interface FileContent {
  fileName: string;
  contentType: string;
  /** base64 */
  content: string;
}

const FILE = resource('DocumentFile');
const LIMITS = { fileName: 256, revision: 64, changeText: 4000 } as const;
/** type/subtype with optional parameters, as Content-Type has it. */
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;.*)?$/;

/** The file name without any folder part a browser or client put before it. */
export function fileNameOf(raw: string): string {
  const name = raw.split(/[\\/]/).pop()!.trim();
  if (name === '') throw badRequest("The file has no name: send 'fileName' or a file name on the file part.");
  if (/[\u0000-\u001f]/.test(name)) throw badRequest("The field 'fileName' may not contain control characters.");
  return maxLength(name, LIMITS.fileName, 'fileName');
}

export function contentTypeOf(sent: string | undefined, declared: string | undefined): string {
  const type = sent?.trim() || (declared && declared !== 'application/octet-stream' ? declared : '') || 'application/octet-stream';
  if (!MEDIA_TYPE.test(type) || type.length > 256) throw badRequest(`The field 'contentType' must be a media type such as text/plain, got '${type.slice(0, 64)}'.`);
  return type;
}

/** The label after `current`: the next number, or (when labels are not numbers) one more than the revisions there are. */
async function nextLabel(ctx: AppContext, documentId: string, current: string): Promise<string> {
  if (/^\d{1,9}$/.test(current)) return String(Number(current) + 1);
  return String((await countRows(ctx.reader, resource('DocumentRevision'), { where: [sql`t.document_id = ${documentId}`] })) + 1);
}

/** Stores an upload; returns the id of the revision that holds it. */
export async function uploadFile(ctx: AppContext, input: Input): Promise<string> {
  const file = input.fileUpload as { name?: string | null; type?: string | null; base64: string } | null | undefined;
  if (!file) throw badRequest("The request has no file: send it as the multipart body's file part (fileUpload).");
  const bytes = Buffer.from(file.base64, 'base64');
  const length = optionalString(input, 'fileLength')?.trim();
  if (length && length !== String(bytes.length)) throw badRequest(`'fileLength' says ${length.slice(0, 20)} bytes, but the file has ${bytes.length}.`);
  const doc = await changeableDocument(ctx, requireGuid(input.documentId, 'documentId'));
  const fileName = fileNameOf(optionalString(input, 'fileName') || file.name || '');
  const contentType = contentTypeOf(optionalString(input, 'contentType'), file.type ?? undefined);
  const label = optionalString(input, 'revision')?.trim();
  if (label !== undefined) maxLength(label, LIMITS.revision, 'revision');
  const changeText = optionalString(input, 'changeText') ?? optionalString(input, 'changeReason');
  if (changeText !== undefined) maxLength(changeText, LIMITS.changeText, 'changeText');
  const by = ctx.caller.userId;

  let revisionId = doc.id;
  const [taken] = await selectRows<Row>(ctx.reader, FILE, { where: [sql`t.revision_id = ${doc.id}`] });
  if (taken) {
    // A new revision, named as sent or numbered on, with the index field values of the one before.
    revisionId = newId();
    const revision = label || (await nextLabel(ctx, doc.documentId, doc.revision as string));
    await insertRows(ctx.reader, 'document_revision', [
      { id: revisionId, document_id: doc.documentId, revision, name: doc.name, description: doc.description, change_text: changeText ?? null, created_by_id: by },
    ]);
    await copyRows(ctx.reader, 'document_index_value', ['field_id', 'value'], { revision_id: revisionId, created_by_id: by, modified_by_id: by }, sql`t.revision_id = ${doc.id}`);
    await updateRows(ctx.reader, 'document', { revision_id: revisionId, revision, change_text: changeText ?? null, modified_at: sql`now()`, modified_by_id: by }, sql`t.id = ${doc.documentId}`);
  } else if (label || changeText !== undefined) {
    const set: Row = { ...(label ? { revision: label } : {}), ...(changeText !== undefined ? { change_text: changeText } : {}) };
    await updateRows(ctx.reader, 'document_revision', set, sql`t.id = ${doc.id}`);
    await updateRows(ctx.reader, 'document', { ...set, modified_at: sql`now()`, modified_by_id: by }, sql`t.id = ${doc.documentId}`);
  }
  await insertRows(ctx.reader, 'document_file', [
    { id: newId(), revision_id: revisionId, file_name: fileName, content_type: contentType, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), content: bytes, created_by_id: by },
  ]);
  if (input.indexFields !== undefined && input.indexFields !== null && input.indexFields !== '') await setIndexFields(ctx, doc.documentId, { indexFields: input.indexFields });
  // `checkIn` true with the upload: the uploader's check-out ends with it.
  if (input.checkIn === true) await setCheckIn(ctx, doc.documentId, { checkIn: true });
  return revisionId;
}

/** The first file `where` finds that the caller may see, with its bytes. */
async function fileWhere(ctx: AppContext, where: Sql[], missing: string): Promise<FileContent> {
  const [f] = await selectRows<Row & { bytes: Buffer }>(ctx.reader, FILE, { where, order: FILE.order, limit: 1, extra: sql`, t.content as "bytes"` });
  if (!f) throw notFound(missing);
  return { fileName: f.fileName as string, contentType: f.contentType as string, content: f.bytes.toString('base64') };
}

/** A file by its id, its revision's id, or its document's id (the current revision's file). */
export function fileById(ctx: AppContext, id: string): Promise<FileContent> {
  const key = id.toLowerCase();
  return fileWhere(
    ctx,
    [sql`(t.revision_id = ${key} or t.id = ${key} or t.revision_id = (select d.revision_id from document d where d.tenant_id = t.tenant_id and d.id = ${key}))`],
    `No file has the id '${id}' (a file's, a revision's or a document's).`,
  );
}

/** The first file `q` finds (`[id] eq '<revision id>'`, as the clients ask; `fileId` is the file's own). */
export function fileByQuery(ctx: AppContext, q: string): Promise<FileContent> {
  const where = compileQText(q, queryFieldMap(FILE));
  if (!where) throw badRequest("The query parameter 'q' names no condition.");
  return fileWhere(ctx, [where], 'No file matches the query.');
}
