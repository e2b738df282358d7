/**
 * The default file store: one file per key under a directory (FILES_DIR), `<dir>/<tenant>/<file>`.
 * A put streams into `<dir>/.tmp/<random>` (the same file system, so the final rename is atomic)
 * while hashing and counting; only a complete file within the limit is renamed into place, so a
 * reader never sees half a file and a failed put leaves nothing. The directory is made on the
 * first put: a server that never stores a file creates nothing. The file system's refusals are
 * answered as the store's (`asStoreError`), and a put's other failures of its own as a FileStoreFault.
 */
import { randomUUID } from 'node:crypto';
import { constants as fsConstants, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileStoreFault, fileMissing, storeFull, storeUnavailable, type ByteRange, type FileStore, type StoredFile } from './file-store.js';
import { bodyStream, keyParts, Measure } from './measure.js';

const isNotFound = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

/** No room: the disk full, a quota used up, a file past the process's or the file system's largest. */
const NO_ROOM = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);
/** A file system failing (EIO), read-only, out of descriptors, or refusing the server's user: the store is away. */
const AWAY = new Set(['EIO', 'EROFS', 'EMFILE', 'ENFILE', 'EACCES', 'EPERM']);

/**
 * `e`, or the store's 507 (`storeFull`) or 503 (`storeUnavailable`) when its code says the file
 * system has no room or is away; either keeps `e` as the cause the log names. By code alone:
 * under jest Node's errors come from another realm. Any other error goes on as it is (a 500).
 */
export function asStoreError(e: unknown): unknown {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return e;
  if (NO_ROOM.has(code)) return storeFull(e);
  return AWAY.has(code) ? storeUnavailable(e) : e;
}

/** A file system error names the call that failed; a body's failures (its limit, a sender gone) name none. */
const isFileSystemError = (e: unknown) => typeof (e as { syscall?: unknown } | null)?.syscall === 'string';

/** A failure of the store's own (its folders, its temporary file, the rename): its 503 or 507, else a FileStoreFault. */
const ownFailure = (e: unknown): unknown => {
  const known = asStoreError(e);
  return known === e ? new FileStoreFault(e) : known;
};

export class DiskFileStore implements FileStore {
  private readonly dir: string;
  private readonly tmpDir: string;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
    this.tmpDir = path.join(this.dir, '.tmp');
  }

  private pathOf(key: string): string {
    return path.join(this.dir, ...keyParts(key));
  }

  /** A fresh temporary path; its folder made (lazily: the first put or copy makes the store's directory). */
  private async tempPath(): Promise<string> {
    await fs.mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
    return path.join(this.tmpDir, randomUUID());
  }

  /** Moves a complete temporary file to its key's path, making the tenant's folder as needed. */
  private async settle(tmp: string, target: string): Promise<void> {
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    await fs.rename(tmp, target);
  }

  async put(key: string, body: Readable | Buffer, maxBytes: number): Promise<StoredFile> {
    const target = this.pathOf(key);
    const source = bodyStream(body, maxBytes);
    let tmp: string;
    try {
      tmp = await this.tempPath();
    } catch (e) {
      source.destroy();
      throw ownFailure(e);
    }
    const measure = new Measure(maxBytes);
    const out = createWriteStream(tmp, { flags: 'wx', mode: 0o600 });
    try {
      await pipeline(source, measure, out);
    } catch (e) {
      // The file is closed before it is removed: a late open must not bring it back.
      // (Not events.once: it rejects on the 'error' the stream emits on its way to closing.)
      if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
      await fs.rm(tmp, { force: true });
      // The body's failures (its limit, a sender gone) go on as they are; the file's are the store's.
      throw isFileSystemError(e) ? ownFailure(e) : e;
    }
    try {
      await this.settle(tmp, target);
    } catch (e) {
      await fs.rm(tmp, { force: true });
      throw ownFailure(e);
    }
    return measure.stored();
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    // Opened here, so that a missing file is a NOT_FOUND now rather than an error mid-stream.
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.pathOf(key), 'r');
    } catch (e) {
      if (isNotFound(e)) throw fileMissing();
      throw asStoreError(e);
    }
    return handle.createReadStream(range);
  }

  async has(key: string): Promise<boolean> {
    try {
      await fs.access(this.pathOf(key));
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw asStoreError(e);
    }
  }

  async copy(from: string, to: string): Promise<void> {
    const source = this.pathOf(from);
    const target = this.pathOf(to);
    let tmp: string | undefined;
    try {
      tmp = await this.tempPath();
      // A clone where the file system can (copy-on-write), else a plain copy; renamed into place whole.
      await fs.copyFile(source, tmp, fsConstants.COPYFILE_EXCL | fsConstants.COPYFILE_FICLONE);
      await this.settle(tmp, target);
    } catch (e) {
      if (tmp) await fs.rm(tmp, { force: true });
      if (isNotFound(e) && !(await this.has(from))) throw fileMissing();
      throw asStoreError(e);
    }
  }

  async sweep(ageMs: number): Promise<number> {
    return this.sweepOlder(ageMs).catch((e: unknown) => {
      throw asStoreError(e);
    });
  }

  private async sweepOlder(ageMs: number): Promise<number> {
    const names = await fs.readdir(this.tmpDir).catch((e: unknown) => {
      if (isNotFound(e)) return [];
      throw e;
    });
    const before = Date.now() - ageMs;
    let swept = 0;
    for (const name of names) {
      const file = path.join(this.tmpDir, name);
      // Gone meanwhile (renamed into place, or swept by another process): nothing to do.
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat && stat.mtimeMs < before) {
        await fs.rm(file, { force: true });
        swept++;
      }
    }
    return swept;
  }

  async delete(keys: string[]): Promise<void> {
    const paths = keys.map((k) => this.pathOf(k));
    // force: a missing file is not an error.
    await Promise.all(paths.map((p) => fs.rm(p, { force: true }))).catch((e: unknown) => {
      throw asStoreError(e);
    });
  }
}
