/**
 * Zip files of documents (docs/decisions.md, "Zip files"): the current file of each document
 * named, streamed one at a time from the file store through yazl into the store again, under the
 * zip's download key. The request records what goes in; a zip builder (src/jobs/zip-builder.ts)
 * makes it in the background.
 */
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import type { AppContext } from '../context.js';
import { insertRows } from '../db/tenant-writes.js';
import { AppError, badRequest, conflict, notFound, shownValue } from '../errors.js';
import { isGuid, newId, ZERO_GUID } from '../ids.js';
import { isoInstant } from '../scalars.js';
import { resource } from '../read/registry.js';
import { run, selectRows } from '../read/rows.js';
import { sql } from '../sql.js';
import { DELETED } from './documents.js';
import { withCause, type FileStore, type StoredFile } from '../storage/file-store.js';
import { fileKey } from './stored-files.js';

type Input = Record<string, unknown>;

/** At most this many documents in one zip. */
const MAX_ZIP_DOCUMENTS = 1000;
/** How long a zip is kept for its creator to download. */
const ZIP_KEEP_HOURS = 24;

/** A document with its current revision's file (the all-zero GUID: none). */
interface Source {
  documentId: string;
  name: string;
  archive: number;
  fileId: string;
  fileName: string;
  fileSize: string | number;
  modifyDate: string;
}

/** The key its refusals name (AppError.field), as their messages do. */
const IDS = 'documentDhIds';

/** The ids sent: an array, or one comma list (as a form sends it), each a document's id or a revision's. */
function idsOf(input: Input): string[] {
  const raw = input.documentDhIds ?? input.documentIds;
  const list = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v])).filter((v) => v !== undefined && v !== null && v !== '');
  if (list.length === 0) throw badRequest("The mandatory field 'documentDhIds' is missing: name the documents to put in the zip.", { field: IDS });
  const bad = list.find((v) => !isGuid(typeof v === 'string' ? v.trim() : v));
  if (bad !== undefined) throw badRequest(`'documentDhIds' must hold document ids (GUIDs), got ${shownValue(bad)}.`, { field: IDS });
  const ids = list.map((v) => (v as string).trim().toLowerCase());
  const unique = [...new Set(ids)];
  if (unique.length > MAX_ZIP_DOCUMENTS) throw badRequest(`A zip may hold at most ${MAX_ZIP_DOCUMENTS} documents.`, { field: IDS });
  return unique;
}

/**
 * A stored file name as yazl takes it for an entry: no folder separators, no drive letter, and
 * not `.` or `..` (uploads refuse those now; files stored before keep them): 'file' instead.
 */
function safeEntryName(stored: string): string {
  const name = stored.replace(/[\\/]/g, '_').replace(/^([a-zA-Z]):/, '$1_').trim();
  return name === '' || name === '.' || name === '..' ? 'file' : name;
}

/** Names safe and unique in the zip, without regard to case: a second `a.txt` becomes `a (2).txt`. */
function entryNames(stored: string[]): string[] {
  const taken = new Set<string>();
  return stored.map(safeEntryName).map((name) => {
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    let candidate = name;
    for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem} (${n})${ext}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  });
}

/** One file of a zip, as its request decided it: where its bytes are and the name it goes in under. */
export interface ZipEntry {
  fileId: string;
  documentId: string;
  name: string;
  size: number;
  /** When its revision was last changed, ISO 8601 in UTC: the entry's date in the zip. */
  modified: string;
}

/**
 * Records a zip of the documents `input.documentDhIds` names, to be built in the background
 * (src/jobs/zip-builder.ts); returns its download key. Every refusal is made here, before a byte
 * is read: what goes in is what the caller may see now.
 */
export async function createDocumentZip(ctx: AppContext, input: Input): Promise<string> {
  const ids = idsOf(input);
  // Each id as a document's own or any revision's (two index probes an id), then the documents the
  // caller may see with their current files: two statements for all.
  const named = await run<{ requested: string; documentId: string | null }>(
    ctx.reader,
    sql`select req.id::text as "requested", coalesce(d.id, r.document_id)::text as "documentId"
          from unnest(${ids}::uuid[]) as req(id)
          left join document d on d.tenant_id = ${ctx.tenantId} and d.id = req.id
          left join document_revision r on r.tenant_id = ${ctx.tenantId} and r.id = req.id`,
  );
  const documentIds = [...new Set(named.map((n) => n.documentId).filter((d): d is string => d !== null))];
  const sources = await selectRows<Source>(ctx.reader, resource('Document'), { where: [sql`t.id = any(${documentIds}::uuid[])`] });
  const byDocument = new Map(sources.map((s) => [s.documentId, s]));
  const documentOf = new Map(named.map((n) => [n.requested, n.documentId]));
  const files = ids.map((id) => {
    const documentId = documentOf.get(id);
    const s = documentId ? byDocument.get(documentId) : undefined;
    if (!s) throw notFound(`Document '${id}' was not found.`, { field: IDS });
    if (s.archive === DELETED) throw conflict(`Document '${s.name}' is deleted: it cannot go into a zip.`);
    if (s.fileId === ZERO_GUID) throw badRequest(`Document '${s.name}' has no file to put in a zip.`);
    return { documentId: s.documentId, fileId: s.fileId, fileName: s.fileName, size: Number(s.fileSize), modified: (isoInstant(s.modifyDate) ?? new Date()).toISOString() };
  });
  const distinct = [...new Map(files.map((f) => [f.documentId, f])).values()];
  const max = ctx.services.config.fileMaxBytes;
  const total = distinct.reduce((n, f) => n + f.size, 0);
  if (total > max) throw new AppError('PAYLOAD_TOO_LARGE', `The files come to ${total} bytes, more than a zip may hold (FILE_MAX_BYTES, ${max}).`);

  const names = entryNames(distinct.map((f) => f.fileName));
  const entries: ZipEntry[] = distinct.map((f, i) => ({ fileId: f.fileId, documentId: f.documentId, name: names[i], size: f.size, modified: f.modified }));
  const key = newId();
  await insertRows(ctx.reader, 'document_zip', [
    {
      id: key,
      file_name: `documents-${new Date().toISOString().slice(0, 10)}.zip`,
      file_count: entries.length,
      entries: sql`${JSON.stringify(entries)}::jsonb`,
      created_by_id: ctx.caller.userId,
      expires_at: sql`now() + make_interval(hours => ${ZIP_KEEP_HOURS})`,
    },
  ]);
  return key;
}

/** A source the store lacks: the zip can never be built (the builder fails it at once). */
export class LostSource extends Error {}

/**
 * Why a zip failed, as its row's `failure` keeps it: the first two are for good, trying again
 * cannot help; the last two may pass (the store had no room, or could not be read).
 */
export type ZipFailure = 'tooLarge' | 'sourceLost' | 'noRoom' | 'unreadable';

/** What a failed try says of the zip: larger than a stored file may be, a source missing, no room in the store, or another error that may pass. */
export function zipFailureOf(err: unknown): ZipFailure {
  if (err instanceof LostSource) return 'sourceLost';
  const code = err instanceof AppError ? err.code : undefined;
  return code === 'PAYLOAD_TOO_LARGE' ? 'tooLarge' : code === 'INSUFFICIENT_STORAGE' ? 'noRoom' : 'unreadable';
}

/** Whether a try that failed so may be tried again. */
export const mayPass = (failure: ZipFailure) => failure === 'noRoom' || failure === 'unreadable';

/**
 * Streams the entries' bytes from the file store through yazl into the store under `key`, one
 * source open at a time; `signal` abandons it. Never whole in memory.
 */
export async function writeZip(files: FileStore, tenantId: string, key: string, entries: ZipEntry[], maxBytes: number, signal: AbortSignal): Promise<StoredFile> {
  const zip = new yazl.ZipFile();
  const out = zip.outputStream as unknown as Readable;
  // A source that fails to open or read fails the zip's stream, and so the put; so does an abort.
  let failure: Error | undefined;
  // The source being read (one at a time): closed when the zip fails or the put stops taking bytes
  // (too large, an abort), or it would stay open, paused, until the garbage collector closed it.
  let source: Readable | undefined;
  const fail = (err: Error) => {
    failure ??= err;
    out.destroy(err);
    source?.destroy();
  };
  // Names a zip asked for before they were made safe (`..`) would fail it: safe ones again, the others unchanged.
  const names = entryNames(entries.map((e) => e.name));
  for (const [i, e] of entries.entries()) {
    zip.addReadStreamLazy(names[i], { mtime: new Date(e.modified), size: e.size }, (cb) => {
      const what = `the stored bytes of file ${e.fileId} (document ${e.documentId})`;
      const failed = (err: Error) => {
        // Bytes a row names but the store lacks are lost for good; any other error may pass.
        cb(err instanceof AppError && err.code === 'NOT_FOUND' ? new LostSource(`${what} are not in the file store`) : new Error(`${what} could not be read: ${withCause(err)}`), undefined as never);
      };
      files.get(fileKey(tenantId, e.fileId)).then((s) => {
        if (failure) return void s.destroy();
        source = s;
        // yazl pipes a lazy source without listening for its errors: one failing mid-way (a read
        // error) would be an unhandled 'error' event, which stops the process.
        s.on('error', (err: Error) => fail(new Error(`${what} could not be read: ${err.message}`)));
        s.once('close', () => {
          if (source === s) source = undefined;
        });
        cb(null, s);
      }, failed);
    });
  }
  zip.end();
  zip.on('error', fail);
  const abort = () => fail(new Error('zip building stopped'));
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  try {
    return await files.put(fileKey(tenantId, key), out, maxBytes);
  } catch (err) {
    throw failure ?? err;
  } finally {
    signal.removeEventListener('abort', abort);
    source?.destroy();
  }
}
