/**
 * The key-encryption key that seals the JWT signing keys in the database (AES-256-GCM), so that
 * the database alone (a dump, a replica, a backup) signs nothing. It comes from KEY_ENCRYPTION_KEY
 * or, when that is unset, from `key-encryption.key` under DATA_DIR, created (mode 0600) on first
 * start. Processes sharing a database must share this key: set KEY_ENCRYPTION_KEY, or DATA_DIR.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, type Config } from '../config.js';

export const KEK_FILE = 'key-encryption.key';
const VERSION = 'v1';

/** The configured key, or the data dir's key file (made if missing: written aside, then linked, so a racing process reads a whole key). */
export async function loadKek(config: Pick<Config, 'keyEncryptionKey' | 'dataDir'>): Promise<Buffer> {
  if (config.keyEncryptionKey) return config.keyEncryptionKey;
  const file = path.join(config.dataDir, KEK_FILE);
  try {
    return await readOrMakeKeyFile(config.dataDir, file);
  } catch (e) {
    if (typeof (e as NodeJS.ErrnoException).code !== 'string') throw e;
    // The file system's refusal (DATA_DIR a file, not writable): a setting to correct, said in one line.
    throw new ConfigError(`DATA_DIR (${config.dataDir}) cannot hold the key-encryption key ${KEK_FILE}: ${(e as Error).message}. Set DATA_DIR to a directory this process may write, or set KEY_ENCRYPTION_KEY`);
  }
}

async function readOrMakeKeyFile(dataDir: string, file: string): Promise<Buffer> {
  try {
    return parseKeyFile(file, await fs.readFile(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await fs.writeFile(aside, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await fs.link(aside, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    await fs.unlink(aside);
  }
  return parseKeyFile(file, await fs.readFile(file, 'utf8'));
}

function parseKeyFile(file: string, text: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new ConfigError(`${file} does not hold a 32-byte base64 key: restore it, or set KEY_ENCRYPTION_KEY`);
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url), bound to `context` (the key's kid) so a sealed value cannot be moved to another row. */
export function seal(kek: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function unseal(kek: Buffer, sealed: string, context: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || body === undefined) throw new Error(`signing key ${context}: not a sealed value`);
  const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    // A setting the operator can correct, told as one (a line with no stack when the server starts).
    throw new ConfigError(`signing key ${context} cannot be unsealed: KEY_ENCRYPTION_KEY (or DATA_DIR's ${KEK_FILE}) is not the key it was sealed with`);
  }
}
