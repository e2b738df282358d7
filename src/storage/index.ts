/** The file store the configuration names (FILE_STORE): the disk store by default, or an S3 bucket. */
import type { Config, S3Settings } from '../config.js';
import { DiskFileStore } from './disk-store.js';
import type { FileStore } from './file-store.js';

export { fileMissing, type ByteRange, type FileStore, type StoredFile } from './file-store.js';

export function createFileStore(config: Pick<Config, 'fileStore' | 'filesDir' | 's3'>): FileStore {
  if (config.fileStore === 'disk') return new DiskFileStore(config.filesDir);
  // loadConfig sets s3 whenever FILE_STORE is s3; only a config made by hand can miss it.
  if (!config.s3) throw new Error("fileStore is 's3' but the config has no s3 settings");
  return lazyS3(config.s3);
}

/**
 * The S3 store, its module loaded on first use: the AWS SDK takes about 100 ms to import, which a
 * process on the disk store (and every test file) need not pay.
 */
function lazyS3(settings: S3Settings): FileStore {
  let loaded: Promise<FileStore> | undefined;
  const store = () => (loaded ??= import('./s3-store.js').then(({ S3FileStore }) => new S3FileStore(settings)));
  return {
    put: async (key, body, maxBytes) => (await store()).put(key, body, maxBytes),
    get: async (key, range) => (await store()).get(key, range),
    has: async (key) => (await store()).has(key),
    copy: async (from, to) => (await store()).copy(from, to),
    delete: async (keys) => (await store()).delete(keys),
    sweep: async (ageMs) => (await store()).sweep(ageMs),
  };
}
