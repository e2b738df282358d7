/**
 * The file routes' answers: a stored file's bytes from the file store (`files/...`, a ready zip)
 * and content a field answers whole (a form's PDF, an e-mail's attachment), each as its Range and
 * conditional headers select it (src/rest/conditional.ts), with the headers that describe it.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import contentDisposition from 'content-disposition';
import { Response } from '@whatwg-node/fetch';
import { buildContext, type Services } from '../context.js';
import { parseDateTime } from '../scalars.js';
import type { Logger } from '../log.js';
import { fileKey } from '../domain/stored-files.js';
import { fileMissing, type ByteRange } from '../storage/index.js';
import { cutConnection } from './connection.js';
import type { Match } from './match.js';
import { requestIdOf } from './request-id.js';
import { selectBytes, type Selection, type Validators } from './conditional.js';

export interface FileContent {
  fileName: string;
  contentType: string;
  content: string;
}

/** What a file's answer says of it in its headers. */
interface FileHead {
  fileName: string;
  contentType: string;
  fileSize: number;
}

/** A stored file's record, as the file routes' fields answer it (a DocumentFile, or a ready DocumentZip). */
export interface StoredFileRecord extends FileHead {
  fileId: string;
  /** When it was stored (a zip's: asked for), zone-less in UTC as record dates are. */
  createDate: string;
  /** A DocumentFile's: its document's, and when the document last changed. */
  documentId?: string;
  documentModifyDate?: string;
}

/**
 * A download's Last-Modified: when its file was stored, where the path names that one file (its id
 * or its revision's), whose bytes never change. At `files/{documentId}`, which serves whichever
 * file is current, and `files?q=`, which serves the first its query finds, the later of that and
 * the document's last change, so that it never goes back (the current revision deleted, the one
 * before is served with its older date, and an If-Modified-Since of the deleted one's would be a 304).
 */
function lastModifiedOf(m: Match, f: StoredFileRecord): Date {
  const stored = parseDateTime(f.createDate);
  const namesTheFile = m.params.id !== undefined && m.params.id.toLowerCase() !== f.documentId;
  if (!f.documentModifyDate || namesTheFile) return stored;
  const changed = parseDateTime(f.documentModifyDate);
  return changed > stored ? changed : stored;
}

export function contentResponse(request: Request, f: FileContent): Promise<Response> {
  const bytes = Buffer.from(f.content, 'base64');
  // Made (a form's PDF) or read (an attachment) on each request: a tag of the bytes is the one
  // validator that holds; no date says when they last changed (docs/decisions.md, "Files").
  const etag = `"${createHash('sha256').update(bytes).digest('base64url')}"`;
  return downloadResponse(request, { ...f, fileSize: bytes.length }, { etag }, {
    read: async (range) => (range ? bytes.subarray(range.start, range.end + 1) : bytes),
    check: async () => undefined,
  });
}

/** A download's bytes, read when an answer sends them. */
interface ByteSource {
  /** All of them, or one range. */
  read(range?: ByteRange): Promise<Buffer | Readable>;
  /**
   * Throws what `read` would where the bytes are gone: asked before an answer that reads none (a
   * 304, 412, 416 or HEAD), which is then the plain GET's 404 (RFC 9110 13.2.1).
   */
  check(): Promise<void>;
}

/** A download as its Range and conditional headers select it (src/rest/conditional.ts): a 304, a 206 of one range, or all the bytes. */
async function downloadResponse(request: Request, f: FileHead, validators: Validators, source: ByteSource): Promise<Response> {
  const cacheHeaders: Record<string, string> = { etag: validators.etag };
  if (validators.lastModified) cacheHeaders['last-modified'] = validators.lastModified.toUTCString();
  let selected: Selection;
  try {
    selected = selectBytes(request, f.fileSize, validators);
  } catch (e) {
    await source.check();
    throw e;
  }
  if (selected.status === 304) {
    await source.check();
    return new Response(null, { status: 304, headers: { ...cacheHeaders, 'x-request-id': requestIdOf(request) } });
  }
  const headers = { ...cacheHeaders, 'accept-ranges': 'bytes' };
  // HEAD answers the headers only: nothing to read.
  if (request.method === 'HEAD') {
    await source.check();
    return fileResponse(request, Buffer.alloc(0), f, 200, headers);
  }
  const range = selected.status === 206 ? selected.range : undefined;
  const bytes = await source.read(range);
  if (!range) return fileResponse(request, bytes, f, 200, headers);
  const ranged = { 'content-range': `bytes ${range.start}-${range.end}/${f.fileSize}`, 'content-length': String(range.end - range.start + 1) };
  return fileResponse(request, bytes, f, 206, { ...headers, ...ranged });
}

/**
 * The store's stream (an open file, or an S3 answer holding one of the SDK's connections), tied to
 * its request. Closed when the client goes away: the adapter destroys a body it is sending when the
 * connection closes, but a body whose client left before the answer was ready it drops unread: the
 * file stayed open until the garbage collector closed it (with a warning), and on S3 every such
 * answer kept a connection of the pool (50: then every download waited). Failing midway (a read
 * error, S3's connection lost or its checksum wrong), it is logged and the client's connection
 * closed, the one way to say the answer is short: the error, which nobody heard, stopped the
 * server, and the client waited for the rest for ever.
 */
function tiedToRequest(request: Request, bytes: Readable, log: Logger): Readable {
  const { signal } = request;
  const close = () => bytes.destroy();
  if (signal.aborted) close();
  else {
    signal.addEventListener('abort', close, { once: true });
    bytes.once('close', () => signal.removeEventListener('abort', close));
  }
  bytes.on('error', (err) => {
    log.warn({ requestId: requestIdOf(request), err }, 'the file store failed during a download: its connection is closed');
    cutConnection(request);
  });
  return bytes;
}

function fileResponse(request: Request, body: Buffer | Readable, f: FileHead, status = 200, more: Record<string, string> = {}): Response {
  return new Response(body as BodyInit, {
    status,
    headers: {
      'content-type': f.contentType,
      'content-length': String(f.fileSize),
      'x-request-id': requestIdOf(request),
      // The name as stored in filename* (RFC 6266), and in ASCII for clients that read only filename:
      // one '_' for each character beyond it (read by code point: an emoji is one, not two).
      'content-disposition': contentDisposition(f.fileName, { fallback: f.fileName.replace(/[^\x20-\x7e]/gu, '_') }),
      ...more,
    },
  });
}

/**
 * A stored file's bytes, streamed from the file store (the tenant's, as the caller's token says):
 * all of them, or the one range asked for (src/rest/conditional.ts). Its file id is its entity
 * tag: the bytes, name and type under a file id never change.
 */
export async function storedFileResponse(services: Services, request: Request, m: Match, f: StoredFileRecord): Promise<Response> {
  const { tenantId } = await buildContext(services, request, requestIdOf(request), m.tenant);
  const key = fileKey(tenantId, f.fileId);
  return downloadResponse(request, f, { etag: `"${f.fileId}"`, lastModified: lastModifiedOf(m, f) }, {
    read: async (range) => tiedToRequest(request, await services.files.get(key, range), services.log),
    // One more round trip to the store, only on answers that would otherwise not ask it.
    check: async () => {
      if (!(await services.files.has(key))) throw fileMissing();
    },
  });
}
