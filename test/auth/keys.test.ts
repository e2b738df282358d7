/**
 * The JWT signing keys are sealed in the database (no private key in plain text), rows from before
 * sealing are sealed at start, and a rotation keeps earlier tokens valid while new ones carry the
 * new kid.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { KEK_FILE, loadKek, unseal } from '../../src/auth/kek.js';
import { loadKeyRing, rotateKey } from '../../src/auth/keys.js';
import { signAccessToken, verifyAccessToken } from '../../src/auth/jwt.js';
import { newId } from '../../src/ids.js';
import { Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.stop());

const db = () => h.orm.em.fork().getConnection();
const kek = () => loadKek(h.services.config);

interface KeyRow {
  kid: string;
  private_jwk: unknown;
  private_key_sealed: string | null;
  retired_at: Date | null;
}

test('no signing key row holds its private key in plain text', async () => {
  const rows = await db().execute<KeyRow[]>('select kid, private_jwk, private_key_sealed from signing_key');
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) {
    expect(r.private_jwk).toBeNull();
    expect(r.private_key_sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(r.private_key_sealed).not.toMatch(/"d"|PRIVATE KEY|"kty"/);
  }
});

test('a row written before sealing (plaintext private_jwk) is sealed at the next start, and unseals to the same key', async () => {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = newId();
  // Retired, so no process picks it to sign while it is still plain.
  await db().execute('insert into signing_key (kid, alg, private_jwk, public_jwk, retired_at) values (?, ?, ?, ?, now())', [
    kid,
    'EdDSA',
    JSON.stringify(jwk),
    JSON.stringify(await exportJWK(publicKey)),
  ]);
  await loadKeyRing(h.orm.em.fork(), await kek());
  const [row] = await db().execute<KeyRow[]>('select private_jwk, private_key_sealed from signing_key where kid = ?', [kid]);
  expect(row.private_jwk).toBeNull();
  expect(JSON.parse(unseal(await kek(), row.private_key_sealed!, kid))).toEqual(jwk);
  // Bound to its row: the same sealed value does not unseal as another key's.
  expect(() => unseal(randomBytes(32), row.private_key_sealed!, kid)).toThrow(/cannot be unsealed/);
  expect(() => unseal(Buffer.alloc(32), row.private_key_sealed!, 'other-kid')).toThrow(/cannot be unsealed/);
});

test('after a rotation, tokens signed before still verify, new tokens carry the new kid, and a process started earlier verifies them', async () => {
  const s = h.services.jwt;
  const claims = { userId: newId(), tenantId: newId(), clientId: newId(), sessionEpoch: 0, sessionExpires: Math.floor(Date.now() / 1000) + 3600 };
  const before = await loadKeyRing(h.orm.em.fork(), await kek());
  const old = await signAccessToken(before, s, claims);

  const kid = await rotateKey(h.orm.em.fork(), await kek());
  const after = await loadKeyRing(h.orm.em.fork(), await kek());
  expect(after.current.kid).toBe(kid);
  expect(kid).not.toBe(before.current.kid);
  const [oldRow] = await db().execute<KeyRow[]>('select retired_at from signing_key where kid = ?', [before.current.kid]);
  expect(oldRow.retired_at).not.toBeNull();

  expect((await verifyAccessToken(after, s, old.token)).userId).toBe(claims.userId);
  const fresh = await signAccessToken(after, s, claims);
  expect(decodeProtectedHeader(fresh.token).kid).toBe(kid);
  // `before` has never seen the new kid: it reloads its keys to verify the token.
  expect((await verifyAccessToken(before, s, fresh.token)).userId).toBe(claims.userId);
});

test('without KEY_ENCRYPTION_KEY the key-encryption key is a 0600 file under DATA_DIR, made once and then kept', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-kek-'));
  const [a, b] = await Promise.all([loadKek({ dataDir, keyEncryptionKey: undefined }), loadKek({ dataDir, keyEncryptionKey: undefined })]);
  expect(a.length).toBe(32);
  expect(b.equals(a)).toBe(true);
  expect(fs.statSync(path.join(dataDir, KEK_FILE)).mode & 0o777).toBe(0o600);
  expect(fs.readdirSync(dataDir)).toEqual([KEK_FILE]);
  const configured = randomBytes(32);
  expect((await loadKek({ dataDir, keyEncryptionKey: configured })).equals(configured)).toBe(true);
});
