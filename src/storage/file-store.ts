/**
 * Where documents' file bytes live: a local directory (the default) or an S3-compatible bucket
 * (FILE_STORE). Keys are `<tenant id>/<file id>`, made by the callers, never reused; the database
 * keeps each file's name, type, size and SHA-256 beside its key. A key of any other form (more or
 * fewer segments, `..`, a leading `/` or `.`) is a programming error: a plain Error, thrown by
 * every method of every store before it touches anything.
 */
import type { Readable } from 'node:stream';
import { RETRY_AFTER_SECONDS } from '../db/unavailable.js';
import { AppError, notFound } from '../errors.js';

/** What every store's `get` and `copy` throw for a key with nothing under it; a download answers it as its 404. */
export const fileMissing = () => notFound('The file is not in the file store.');

/**
 * What a store throws when it cannot be reached, did not answer in time or failed on its side (on
 * disk: a read or write error, a read-only file system, no descriptors left, no permission): a
 * 503 naming the file store (it was a 400 "malformed body" on an upload, a 500, a 503 naming the
 * database, or no answer at all). `cause`, the store's own error, is logged, never sent.
 */
export function storeUnavailable(cause: unknown): AppError {
  const err = new AppError(
    'UNAVAILABLE',
    `The file store is not available right now. Try again in ${RETRY_AFTER_SECONDS} seconds.`,
    'The file store refused or dropped the connection, did not answer in time, or failed on its side (a disk that could not be read or written, or that the server may not use). Nothing was stored, read or deleted.',
  );
  err.cause = cause;
  return err;
}

/**
 * What a store throws when it has no room for a file: its disk full, its quota used up, or a file
 * larger than the file system or the process may write. A 507 without Retry-After: it passes only
 * when someone makes room (it was a 500). `cause`, the store's own error, is logged, never sent.
 */
export function storeFull(cause: unknown): AppError {
  const err = new AppError(
    'INSUFFICIENT_STORAGE',
    'The file store has no room for this file: nothing was stored. Tell an administrator of this service, or try a smaller file.',
    "The file store's disk is full, its quota is used up, or it takes no file this large. Nothing was stored.",
  );
  err.cause = cause;
  return err;
}

/**
 * What a store's `put` throws when the store itself refused the file for a reason that is neither
 * an outage nor no room (S3 refusing the server's credentials, a bucket that is not there): the
 * server's configuration, a 500 logged with its cause, unlike the body's own failures, which `put`
 * rethrows as they are (an upload answered it as a 400 "malformed body" quoting the store).
 */
export class FileStoreFault extends Error {
  constructor(cause: unknown) {
    super(`the file store refused the file: ${(cause as { message?: unknown } | null)?.message ?? String(cause)}`, { cause });
    this.name = 'FileStoreFault';
  }
}

/**
 * An error's message, and its cause's after it when it has one (a store's 503 or 507, and what the
 * file system or S3 said): for the log and a background job's record of a failure, not the wire.
 */
export function withCause(e: unknown): string {
  const err = e as { message?: unknown; cause?: { message?: unknown } } | null;
  const text = typeof err?.message === 'string' ? err.message : String(e);
  return typeof err?.cause?.message === 'string' ? `${text} (${err.cause.message})` : text;
}

export interface StoredFile {
  size: number;
  /** Hex SHA-256 of the bytes written. */
  sha256: string;
}

/** Bytes `start` to `end` of a file, both included (as a Range header counts them), within its size. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface FileStore {
  /**
   * Writes `body` under `key`, streamed, hashing as it goes. More than `maxBytes` is an
   * AppError PAYLOAD_TOO_LARGE, and nothing stays under the key. The body's failure is thrown as
   * it is; the store's own, as its 503 or 507, or a FileStoreFault.
   */
  put(key: string, body: Readable | Buffer, maxBytes: number): Promise<StoredFile>;
  /** The bytes under `key` (only `range` of them, when given) as a stream; an AppError NOT_FOUND when there are none. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Whether bytes are under `key`, without reading them (a download that sends none: a 304, a 412, a 416, a HEAD). */
  has(key: string): Promise<boolean>;
  /** A copy of `from`'s bytes under `to`. */
  copy(from: string, to: string): Promise<void>;
  /** Deletes these keys; a key with nothing under it is not an error. */
  delete(keys: string[]): Promise<void>;
  /**
   * Removes what puts cut short by a crash left behind, older than `ageMs`; returns how many.
   * The disk store's temporary files; on S3, the bucket's lifecycle rule for incomplete multipart
   * uploads does it (README), so that store has nothing to sweep.
   */
  sweep(ageMs: number): Promise<number>;
}
