/**
 * Password and client-secret hashing: argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane).
 * Hashes made before (scrypt, N=2^14) still verify; `needsRehash` tells the login to store a new one.
 */
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import argon2 from 'argon2';

const ARGON2 = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2);
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith('$argon2')) {
    try {
      return await argon2.verify(stored, password);
    } catch {
      return false; // a malformed stored hash verifies nothing
    }
  }
  if (stored.startsWith('scrypt$')) return verifyScrypt(password, stored);
  return false;
}

/** Whether a hash that just verified was made with other parameters than today's. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith('$argon2id$') || argon2.needsRehash(stored, ARGON2);
}

const scrypt = (pw: string, salt: Buffer, len: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(pw, salt, len, opts, (err, key) => (err ? reject(err) : resolve(key))));

/** The earlier scheme: `scrypt$N$r$p$salt$hash`. */
async function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const [, n, r, p, salt, hash] = stored.split('$');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(key, expected);
}

/**
 * A hash that verifies nothing, made with today's parameters: compared against when the user or
 * client is unknown, so that the answer's timing does not tell.
 */
export const DUMMY_HASH = await hashPassword(randomBytes(16).toString('base64url'));

/**
 * The longest password and userid a user can have (src/domain/users.ts makes users under these
 * limits): a login with a longer one can never succeed, and is refused before anything is hashed.
 */
export const MAX_PASSWORD = 256;
export const MAX_USERID = 128;

/** For high-entropy tokens (refresh and web tokens) a fast hash is enough: they cannot be guessed. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('base64url');

export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
