/** What both file stores share: the key check, and the stream that hashes, counts and limits the bytes of a put. */
import { createHash } from 'node:crypto';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { AppError } from '../errors.js';
import type { StoredFile } from './file-store.js';

/** One path-safe segment: no separators, no leading dot (so no `.`, `..` or the temp folder). */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;

/**
 * The two segments of a key, `<tenant>/<file>`. Anything else is a programming error (keys are
 * made by the code, never taken from a request), so a plain Error: a 500, not a client's 400.
 */
export function keyParts(key: string): [tenant: string, file: string] {
  const parts = key.split('/');
  if (parts.length !== 2 || !parts.every((p) => SEGMENT.test(p))) {
    throw new Error(`not a file key of the form <tenant>/<file>: ${JSON.stringify(key)}`);
  }
  return [parts[0], parts[1]];
}

export const tooLarge = (maxBytes: number) => new AppError('PAYLOAD_TOO_LARGE', `The file is larger than the limit of ${maxBytes} bytes.`);

/**
 * Passes bytes through while hashing (SHA-256) and counting them; the byte past `maxBytes` fails
 * the stream with PAYLOAD_TOO_LARGE before it goes any further.
 */
export class Measure extends Transform {
  // Private (#) on purpose: lib-storage's Upload takes a body's `size`, `length` or `byteLength`
  // for its length, and a public `size` of 0 made it abort every multipart upload.
  #bytes = 0;
  readonly #hash = createHash('sha256');
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    super();
    this.#maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#bytes += chunk.length;
    if (this.#bytes > this.#maxBytes) {
      callback(tooLarge(this.#maxBytes));
      return;
    }
    this.#hash.update(chunk);
    callback(null, chunk);
  }

  /** Once the stream has ended: what went through. */
  stored(): StoredFile {
    return { size: this.#bytes, sha256: this.#hash.digest('hex') };
  }
}

/**
 * A body as a stream; a Buffer over the limit is refused before anything is written. A stream
 * that fails before the put reads it (a put awaits its target first) keeps its error in its state,
 * where the put's pipeline finds it; this listener keeps that early error from being an unhandled
 * 'error' event, which would end the process.
 */
export function bodyStream(body: Readable | Buffer, maxBytes: number): Readable {
  if (!Buffer.isBuffer(body)) return body.on('error', () => undefined);
  if (body.length > maxBytes) throw tooLarge(maxBytes);
  return Readable.from([body]);
}

