/**
 * Documents' files (docs/decisions.md, "Files"): an upload fills the current revision's empty
 * place or makes a new revision; a download finds the file by any id the clients use for it.
 * The document's row is locked first, so uploads to one document at once make one revision each.
 * The bytes live in the file store (src/storage/) under `<tenant>/<file id>` (src/domain/stored-files.ts).
 */
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { detectMimeType } from 'nodemailer/lib/mime-funcs';
import type { AppContext } from '../context.js';
import { sendAlerts } from './alert-mail.js';
import { copyRows, insertRows, updateRows } from '../db/tenant-writes.js';
import { AppError, badRequest, conflict, notFound } from '../errors.js';
import type { StoredFile } from '../storage/file-store.js';
import { isGuid, newId, requireGuid } from '../ids.js';
import { compileQText } from '../query/index.js';
import { queryFieldMap } from '../read/fields.js';
import { resource } from '../read/registry.js';
import { loadRow } from '../read/resolvers.js';
import { countRows, fieldOf, run, selectRows } from '../read/rows.js';
import { namedBy } from '../resources/document-revision.js';
import { sql, type Sql } from '../sql.js';
import { setIndexFields } from './document-index-values.js';
import { fileKey, storingFiles } from './stored-files.js';
import { changeableDocument, changeTextOf, createDocument, revisionLabelOf, setCheckIn } from './documents.js';
import { base64Bytes, maxLength, oneLine, optionalString } from './validate.js';

type Input = Record<string, unknown>;
type Row = Record<string, unknown>;
export interface FileContent {
  fileName: string;
  contentType: string;
  /** base64 */
  content: string;
}

/** A DocumentFile record, as the read path answers it. */
type FileRecord = Record<string, unknown> & { fileId: string; fileName: string; contentType: string; fileSize: number };

/** A file a caller may read: its record, and its bytes on demand. */
export type FoundFile = FileRecord & { open(): Promise<Readable> };

const FILE = resource('DocumentFile');
const REVISION = resource('DocumentRevision');
const LIMITS = { fileName: 256 } as const;
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t !#-\\[\\]-~]|\\\\[\\t -~])*"';
/**
 * type/subtype with optional parameters, as Content-Type has it (RFC 9110 8.3.1), in printable
 * ASCII: a control character (a line break) in the header sent with the file's bytes made every
 * download of the file hang. Blanks after a ';' belong to the parameter or to the next ';', never
 * to either: with both, a failing match tried every split (`a/b; ; ; ...x` took seconds at 26
 * repetitions, doubling with each), blocking the server.
 */
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;(?:[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))?)*[ \\t]*$`);

/**
 * The file name without any folder part a browser or client put before it. `field` is the input's
 * key that names it (an e-mail's attachment: `fileUpload[0].name`), which a refusal names.
 */
export function fileNameOf(raw: string, field = 'fileName'): string {
  const name = raw.split(/[\\/]/).pop()!.trim();
  if (name === '') throw badRequest(`The file has no name: send '${field}' or a file name on the file part.`, { field });
  oneLine(name, field);
  if (name === '.' || name === '..') throw badRequest(`The field '${field}' may not be '${name}': it names a folder, not a file.`, { field });
  return maxLength(name, LIMITS.fileName, field);
}

/**
 * A file's media type: `sent` (the `contentType` text part), else the type its multipart part
 * declared (undefined when it has no Content-Type; the generic application/octet-stream the
 * clients' blobs carry counts as none), else, given `guessFrom`, the type its extension names,
 * else application/octet-stream. One that is no media type is a 400 naming where it came from:
 * `contentType`, or `declaredAs` (the file's `type`).
 */
export function contentTypeOf(sent: string | undefined, declared: string | undefined, declaredAs: string, guessFrom?: string): string {
  const fromSent = sent?.trim();
  const type = fromSent || (declared && declared !== OCTET_STREAM ? declared : '') || (guessFrom === undefined ? '' : typeByExtension(guessFrom)) || OCTET_STREAM;
  if (!isMediaType(type)) {
    const label = fromSent ? "The field 'contentType'" : `The file's type (${declaredAs})`;
    const field = fromSent ? 'contentType' : undefined;
    throw badRequest(`${label} must be a media type such as text/plain (type/subtype, parameters after ';', printable ASCII), got ${JSON.stringify(type.slice(0, 64))}.`, { field });
  }
  return type;
}

const isMediaType = (type: string) => type.length <= 256 && MEDIA_TYPE.test(type);

/**
 * A stored media type as a file's answer may carry it: one stored before types were checked as
 * they are now (a line break in it made every download hang) is sent as application/octet-stream.
 */
export function servedType(ctx: AppContext, type: string, fileId: string): string {
  if (isMediaType(type)) return type;
  ctx.services.log.warn({ requestId: ctx.requestId, fileId }, 'a stored file has a media type that is not one: it is served as application/octet-stream');
  return OCTET_STREAM;
}

const OCTET_STREAM = 'application/octet-stream';

/**
 * The media type a file name's extension names, or '' when it names none: by nodemailer's table,
 * so an attachment gets the type nodemailer itself gives one sent without a type. Only an
 * extension counts (the table reads a name without one, `pdf`, as if it were one), and only a type
 * that is one (the table has a malformed entry or two).
 */
function typeByExtension(fileName: string): string {
  if (extname(fileName).length < 2) return '';
  const type = detectMimeType(fileName);
  return type !== OCTET_STREAM && isMediaType(type) ? type : '';
}

/** A new revision's label: one more than the highest number among the document's labels, or (when none is a number) than its revisions. */
async function nextLabel(ctx: AppContext, documentId: string): Promise<string> {
  const ofDocument = sql`t.document_id = ${documentId}`;
  const [highest] = await selectRows<Row>(ctx.reader, REVISION, { where: [ofDocument, sql`t.revision ~ '^[0-9]+$'`], order: 't.revision::numeric desc', limit: 1 });
  if (highest) return String(BigInt(highest.revision as string) + 1n);
  return String((await countRows(ctx.reader, REVISION, { where: [ofDocument] })) + 1);
}

/** A 409 when a revision of the document other than `revisionId` has the label: labels do not repeat. */
async function assertLabelFree(ctx: AppContext, doc: Row, label: string, revisionId: string): Promise<void> {
  const where = [sql`t.document_id = ${doc.documentId}`, sql`t.revision = ${label}`, sql`t.id <> ${revisionId}`];
  if (await countRows(ctx.reader, REVISION, { where })) throw conflict(`Document '${doc.name as string}' already has a revision '${label}': a revision's label is its own.`, { field: 'revision' });
}

/** An upload's `checkIn` (UploadCheckIn, src/scalars.ts): 0 checks the document in with it, 1 leaves it as it is. */
const [CHECK_IN, LEAVE_AS_IS] = [0, 1];

/** Records an upload on the document `input.documentId` names; returns the id of the revision that holds it. */
export async function uploadFile(ctx: AppContext, input: Input): Promise<string> {
  fileOf(input);
  // `checkInDocumentState`, a ReleaseState: 0 or 1 when sent.
  const state = (input.checkInDocumentState ?? undefined) as number | undefined;
  const doc = await changeableDocument(ctx, requireGuid(input.documentId, 'documentId'), 'Document', 'documentId');
  return recordFile(ctx, doc, input, async () => {
    await sendAlerts(ctx, 'documentRevised', [doc.documentId as string]);
    // `checkIn`, an UploadCheckIn: 0 (true) with the upload: the uploader's check-out ends with it.
    if (input.checkIn === CHECK_IN) await setCheckIn(ctx, doc.documentId as string, true);
    // The state the document is checked in with (the clients' check-in is the default: unless
    // `checkIn` is false, 1) is its releaseState from this upload on.
    if (state !== undefined && input.checkIn !== LEAVE_AS_IS && state !== doc.releaseState) {
      await updateRows(ctx.reader, 'document', { release_state: state }, sql`t.id = ${doc.documentId}`);
    }
  });
}

/**
 * A new document (`POST documents`) with the file its multipart body carries, as its first
 * revision's; without one, the document alone. Its index field values are set either way (in the
 * same transaction: one that is refused makes no document). Returns the current revision's id.
 */
export async function createDocumentWithFile(ctx: AppContext, input: Input): Promise<string> {
  const revisionId = await createDocument(ctx, input);
  if (input.fileUpload) return recordFile(ctx, await changeableDocument(ctx, revisionId), input, async () => {});
  if (sentIndexFields(input)) await setIndexFields(ctx, revisionId, { indexFields: input.indexFields }, true);
  return revisionId;
}

const sentIndexFields = (input: Input) => input.indexFields !== undefined && input.indexFields !== null && input.indexFields !== '';

type SentFile = { name?: string | null; type?: string | null; base64: string };

function fileOf(input: Input): SentFile {
  const file = input.fileUpload as SentFile | null | undefined;
  if (!file) throw badRequest("The request has no file: send it as the multipart body's file part (fileUpload).", { field: 'fileUpload' });
  return file;
}

/**
 * Records the input's file on `doc` (in its current revision's empty place, or as a new
 * revision), with the index field values it names, then `after`; returns the revision's id.
 * The bytes are those the REST face already streamed into the file store (`ctx.upload`), else
 * the input's base64 (GraphQL), stored here and discarded again when anything after fails.
 */
async function recordFile(ctx: AppContext, doc: Row, input: Input, after: () => Promise<void>): Promise<string> {
  const file = fileOf(input);
  const bytes = ctx.upload ? undefined : base64Bytes(file.base64, 'fileUpload.base64');
  const size = ctx.upload?.size ?? bytes!.length;
  const length = optionalString(input, 'fileLength')?.trim();
  // A count of bytes, compared as a number (`022` is 22); anything else says no size at all.
  if (length && !/^\d+$/.test(length)) throw badRequest(`The field 'fileLength' must be the file's size, a whole number of bytes (${size} here), got '${length.slice(0, 20)}'.`, { field: 'fileLength' });
  if (length && BigInt(length) !== BigInt(size)) throw badRequest(`'fileLength' says ${length.slice(0, 20)} bytes, but the file has ${size}.`, { field: 'fileLength' });
  const upload: Upload = {
    fileName: fileNameOf(optionalString(input, 'fileName') || file.name || ''),
    // The clients say a file's type in `contentType`; a part that declares none (the older Node
    // client's) is bytes, application/octet-stream, until `contentType` says more.
    contentType: contentTypeOf(optionalString(input, 'contentType'), file.type ?? undefined, "fileUpload.type, the file part's Content-Type"),
    label: revisionLabelOf(input),
    changeText: changeTextOf(input),
  };
  const fileId = ctx.upload?.fileId ?? newId();
  const key = fileKey(ctx.tenantId, fileId);
  // Bytes the REST face received are its to discard when this refuses; those stored here are ours.
  return storingFiles(ctx, ctx.upload ? [] : [key], async () => {
    const stored = ctx.upload ?? (await ctx.services.files.put(key, bytes!, ctx.services.config.fileMaxBytes));
    const revisionId = await recordUpload(ctx, doc, upload, { id: fileId, size: stored.size, sha256: stored.sha256 });
    if (sentIndexFields(input)) await setIndexFields(ctx, doc.documentId as string, { indexFields: input.indexFields }, true);
    await after();
    return revisionId;
  });
}

interface Upload {
  fileName: string;
  contentType: string;
  /** The revision's label, as sent. */
  label: string | undefined;
  changeText: string | undefined;
}

/** The rows of a stored upload: in the current revision's empty place, or in a new revision; returns the revision's id. */
async function recordUpload(ctx: AppContext, doc: Row, u: Upload, file: StoredFile & { id: string }): Promise<string> {
  const by = ctx.caller.userId;
  const [taken] = await selectRows<Row>(ctx.reader, FILE, { where: [sql`t.revision_id = ${doc.id}`] });
  const revisionId = taken ? newId() : (doc.id as string);
  if (taken) {
    const folder = await loadRow(ctx, resource('Folder'), doc.folderId as string);
    if (!folder.allowRevision) throw conflict(`Folder '${folder.name as string}' does not allow revisions: document '${doc.name as string}' already has its file.`);
  }
  if (u.label) await assertLabelFree(ctx, doc, u.label, revisionId);
  // When a new revision is made: under the document's lock (not when the transaction began, before
  // it waited for that lock), so that revisions uploaded at once are ordered as they were made. The
  // revision, its file and the document's modifyDate show this one instant.
  let made: Sql | undefined;
  if (taken) {
    // A new revision, named as sent or numbered on, with the index field values of the one before.
    const revision = u.label || (await nextLabel(ctx, doc.documentId as string));
    const [{ at }] = await run<{ at: string }>(ctx.reader, sql`select clock_timestamp()::text as at`);
    made = sql`${at}::timestamptz`;
    await insertRows(ctx.reader, 'document_revision', [
      { id: revisionId, document_id: doc.documentId, revision, name: doc.name, description: doc.description, change_text: u.changeText ?? null, created_at: made, created_by_id: by },
    ]);
    await copyRows(ctx.reader, 'document_index_value', ['field_id', 'value'], { revision_id: revisionId, created_by_id: by, modified_by_id: by }, sql`t.revision_id = ${doc.id}`);
    await updateRows(ctx.reader, 'document', { revision_id: revisionId, revision, change_text: u.changeText ?? null, modified_at: made, modified_by_id: by }, sql`t.id = ${doc.documentId}`);
  } else {
    // The first file changes the document (its modify fields name the uploader), and may relabel its revision.
    const set: Row = { ...(u.label ? { revision: u.label } : {}), ...(u.changeText !== undefined ? { change_text: u.changeText } : {}) };
    if (Object.keys(set).length) await updateRows(ctx.reader, 'document_revision', set, sql`t.id = ${doc.id}`);
    await updateRows(ctx.reader, 'document', { ...set, modified_at: sql`now()`, modified_by_id: by }, sql`t.id = ${doc.documentId}`);
  }
  await insertRows(ctx.reader, 'document_file', [
    { id: file.id, revision_id: revisionId, file_name: u.fileName, content_type: u.contentType, size: file.size, sha256: file.sha256, created_at: made ?? sql`now()`, created_by_id: by },
  ]);
  return revisionId;
}

/** The first file `where` finds that the caller may see. */
async function findFile(ctx: AppContext, where: Sql[], order = FILE.order): Promise<FoundFile | undefined> {
  const [f] = await selectRows<FileRecord>(ctx.reader, FILE, { where, order, limit: 1 });
  if (!f) return undefined;
  const key = fileKey(ctx.tenantId, f.fileId);
  return { ...f, contentType: servedType(ctx, f.contentType, f.fileId), open: () => ctx.services.files.get(key) };
}

/** A found file's bytes, for answers that carry them whole (GraphQL, e-mail): at most `limit` of them. */
export async function fileBytes(f: FoundFile, limit: number, tooLarge: () => Error): Promise<Buffer> {
  if (f.fileSize > limit) throw tooLarge();
  return buffer(await f.open());
}

/** A found file as GraphQL's FileContent (base64): one larger than MAX_BODY_BYTES is downloaded from `GET files/{id}`. */
export async function fileContent(ctx: AppContext, f: FoundFile): Promise<FileContent> {
  const limit = ctx.services.config.maxBodyBytes;
  const bytes = await fileBytes(f, limit, () => new AppError('PAYLOAD_TOO_LARGE', `The file has ${f.fileSize} bytes, more than an answer here may carry (${limit}, MAX_BODY_BYTES): download it with GET files/${f.fileId}.`));
  return { fileName: f.fileName, contentType: f.contentType, content: bytes.toString('base64') };
}

/** A file by its id, its revision's id, or its document's id (the current revision's file). */
export async function fileById(ctx: AppContext, id: string): Promise<FoundFile> {
  const missing = `No file has the id '${id.slice(0, 64)}' (a file's, a revision's or a document's).`;
  // Text that is no GUID names no file (and would make PostgreSQL's uuid comparison fail).
  if (!isGuid(id)) throw notFound(missing);
  const key = id.toLowerCase();
  const file = await findFile(ctx, [sql`(t.revision_id = ${key} or t.id = ${key} or t.revision_id = ${fieldOf(ctx.reader, resource('Document'), 'id', [sql`t.id = ${key}`])})`]);
  if (file) return file;
  // A document the caller sees, without a file (only its current revision can lack one): say so, and how to add one.
  const [doc] = await selectRows<{ name: string }>(ctx.reader, resource('Document'), { where: [namedBy(ctx.reader, key)] });
  throw notFound(doc ? `Document '${doc.name}' has no file yet: POST files uploads one.` : missing);
}

/** The first file `q` finds (`[id] eq '<revision id>'`, as the clients ask; `fileId` is the file's own). */
export async function fileByQuery(ctx: AppContext, q: string): Promise<FoundFile> {
  const where = compileQText(q, queryFieldMap(FILE));
  if (!where) throw badRequest("The query parameter 'q' names no condition.");
  // Of several, a document's current file first, then the newest: `[documentId] eq` served the first revision's.
  const file = await findFile(ctx, [where], '(t.revision_id = d.revision_id) desc, t.created_at desc, t.id desc');
  if (!file) throw notFound('No file matches the query.');
  return file;
}
