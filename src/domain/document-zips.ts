/**
 * Zip files of documents (docs/decisions.md, "Zip files"): the current file of each document
 * named, streamed one at a time from the file store through yazl into the store again, under the
 * zip's download key. Built within the request that asks for it, outside any transaction (a large
 * zip holds no database connection while it streams); the row naming it is written once its
 * bytes are stored, and a failure discards them.
 */
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import type { AppContext } from '../context.js';
import { insertRows } from '../db/tenant-writes.js';
import { AppError, badRequest, conflict, notFound } from '../errors.js';
import { isGuid, newId, ZERO_GUID } from '../ids.js';
import { resource } from '../read/registry.js';
import { run, selectRows } from '../read/rows.js';
import { sql } from '../sql.js';
import { DELETED } from './documents.js';
import { fileKey, storingFiles } from './stored-files.js';

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

/** The ids sent: an array, or one comma list (as a form sends it), each a document's id or a revision's. */
function idsOf(input: Input): string[] {
  const raw = input.documentDhIds ?? input.documentIds;
  const list = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v])).filter((v) => v !== undefined && v !== null && v !== '');
  if (list.length === 0) throw badRequest("The mandatory field 'documentDhIds' is missing: name the documents to put in the zip.");
  const ids = list.map((v) => String(v).trim().toLowerCase());
  for (const id of ids) if (!isGuid(id)) throw badRequest(`'documentDhIds' must hold document ids (GUIDs), got '${String(id).slice(0, 64)}'.`);
  const unique = [...new Set(ids)];
  if (unique.length > MAX_ZIP_DOCUMENTS) throw badRequest(`A zip may hold at most ${MAX_ZIP_DOCUMENTS} documents.`);
  return unique;
}

/** Names unique in the zip, without regard to case: a second `a.txt` becomes `a (2).txt`. */
function entryNames(names: string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    let candidate = name;
    for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem} (${n})${ext}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  });
}

/** Makes the zip of the documents `input.documentDhIds` names; returns its download key. */
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
    if (!s) throw notFound(`Document '${id}' was not found.`);
    if (s.archive === DELETED) throw conflict(`Document '${s.name}' is deleted: it cannot go into a zip.`);
    if (s.fileId === ZERO_GUID) throw badRequest(`Document '${s.name}' has no file to put in a zip.`);
    return { documentId: s.documentId, fileId: s.fileId, fileName: s.fileName, size: Number(s.fileSize), modified: new Date(`${s.modifyDate}Z`) };
  });
  const distinct = [...new Map(files.map((f) => [f.documentId, f])).values()];
  const max = ctx.services.config.fileMaxBytes;
  const total = distinct.reduce((n, f) => n + f.size, 0);
  if (total > max) throw new AppError('PAYLOAD_TOO_LARGE', `The files come to ${total} bytes, more than a zip may hold (FILE_MAX_BYTES, ${max}).`);

  const key = newId();
  const storeKey = fileKey(ctx.tenantId, key);
  const names = entryNames(distinct.map((f) => f.fileName));
  return storingFiles(ctx, [storeKey], async () => {
    const zip = new yazl.ZipFile();
    distinct.forEach((f, i) =>
      zip.addReadStreamLazy(names[i], { mtime: f.modified, size: f.size }, (cb) => {
        // Bytes a row names but the store lacks are the server's loss, not the caller's mistake: a 500, logged.
        const lost = (err: Error) => cb(new Error(`the stored bytes of file ${f.fileId} (document ${f.documentId}) could not be read: ${err.message}`), undefined as never);
        ctx.services.files.get(fileKey(ctx.tenantId, f.fileId)).then((s) => cb(null, s), lost);
      }),
    );
    zip.end();
    const out = zip.outputStream as unknown as Readable;
    // A source that fails to open or read fails the zip's stream, and so the put.
    zip.on('error', (err: Error) => out.destroy(err));
    const stored = await ctx.services.files.put(storeKey, out, max);
    await insertRows(ctx.reader, 'document_zip', [
      {
        id: key,
        file_name: `documents-${new Date().toISOString().slice(0, 10)}.zip`,
        size: stored.size,
        file_count: distinct.length,
        sha256: stored.sha256,
        created_by_id: ctx.caller.userId,
        expires_at: sql`now() + make_interval(hours => ${ZIP_KEEP_HOURS})`,
      },
    ]);
    return key;
  });
}
