/**
 * The JWT signing keys: Ed25519 pairs in the signing_key table, the private half sealed with the
 * key-encryption key (src/auth/kek.ts). The newest key that is not retired signs; every key in
 * the table verifies, looked up by `kid`. `quire keys rotate` adds a key and retires the others;
 * a retired key is dropped once every token it can have signed has expired (src/purge.ts).
 */
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../ids.js';
import { seal, unseal } from './kek.js';

export const ALG = 'EdDSA';
/** A token naming a kid this process does not know reloads the ring, at most this often. */
const RELOAD_AT_MOST_EVERY_MS = 10_000;

export interface KeyRing {
  current: { kid: string; key: CryptoKey };
  publicKeys: Map<string, CryptoKey>;
  /** Reads the keys again (a rotation by another process or the CLI); unless forced, at most once every 10 s. */
  reload(force?: boolean): Promise<void>;
}

export interface KeyInfo {
  kid: string;
  alg: string;
  createdAt: Date;
  retiredAt: Date | null;
}

interface Row {
  kid: string;
  alg: string;
  private_key_sealed: string;
  public_jwk: JWK;
  created_at: Date | string;
  retired_at: Date | string | null;
}

/** A statement on `em`'s connection, inside its transaction when it has one. */
const exec = <T = unknown>(em: EntityManager, query: string, params: unknown[] = []): Promise<T> =>
  em.getConnection().execute(query, params as never[], 'all', em.getTransactionContext()) as Promise<T>;

/** Seals the private keys of rows written before keys were sealed (once, at the first start after the migration). */
async function sealPlaintextKeys(em: EntityManager, kek: Buffer): Promise<void> {
  const plain = await exec<{ kid: string; private_jwk: JWK }[]>(em, 'select kid, private_jwk from signing_key where private_jwk is not null');
  for (const r of plain) {
    await exec(em, 'update signing_key set private_key_sealed = ?, private_jwk = null where kid = ? and private_jwk is not null', [
      seal(kek, JSON.stringify(r.private_jwk), r.kid),
      r.kid,
    ]);
  }
}

/** A new signing key, sealed; it signs from the next (re)load of every ring. */
export async function createKey(em: EntityManager, kek: Buffer): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(ALG, { crv: 'Ed25519', extractable: true });
  const kid = newId();
  await exec(em, 'insert into signing_key (kid, alg, private_key_sealed, public_jwk) values (?, ?, ?, ?)', [
    kid,
    ALG,
    seal(kek, JSON.stringify(await exportJWK(privateKey)), kid),
    JSON.stringify(await exportJWK(publicKey)),
  ]);
  return kid;
}

/** `quire keys rotate`: a new key signs from now on; the others are retired and keep verifying. */
export async function rotateKey(em: EntityManager, kek: Buffer): Promise<string> {
  return em.transactional(async (tx) => {
    const kid = await createKey(tx, kek);
    await exec(tx, 'update signing_key set retired_at = now() where retired_at is null and kid <> ?', [kid]);
    return kid;
  });
}

export async function listKeys(em: EntityManager): Promise<KeyInfo[]> {
  const rows = await exec<Row[]>(em, 'select kid, alg, created_at, retired_at from signing_key order by created_at desc, kid desc');
  return rows.map((r) => ({ kid: r.kid, alg: r.alg, createdAt: new Date(r.created_at), retiredAt: r.retired_at === null ? null : new Date(r.retired_at) }));
}

/** Drops keys retired more than `seconds` ago; returns how many. */
export async function dropRetiredKeys(em: EntityManager, seconds: number): Promise<number> {
  const gone = await exec<{ kid: string }[]>(em, 'delete from signing_key where retired_at < now() - make_interval(secs => ?) returning kid', [seconds]);
  return gone.length;
}

async function readRing(em: EntityManager, kek: Buffer): Promise<Pick<KeyRing, 'current' | 'publicKeys'>> {
  await sealPlaintextKeys(em, kek);
  const select = () => exec<Row[]>(em, 'select * from signing_key order by created_at desc, kid desc');
  let rows = await select();
  if (!rows.some((r) => r.retired_at === null)) {
    // Processes starting together on a new database take turns, so exactly one key is made.
    await em.fork().transactional(async (tx) => {
      await exec(tx, `select pg_advisory_xact_lock(hashtext('quire:signing-key'))`);
      const [{ n }] = await exec<{ n: string }[]>(tx, 'select count(*) as n from signing_key where retired_at is null');
      if (Number(n) === 0) await createKey(tx, kek);
    });
    rows = await select();
  }
  const publicKeys = new Map<string, CryptoKey>();
  for (const r of rows) publicKeys.set(r.kid, (await importJWK(r.public_jwk, ALG)) as CryptoKey);
  const latest = rows.find((r) => r.retired_at === null)!;
  const key = (await importJWK(JSON.parse(unseal(kek, latest.private_key_sealed, latest.kid)) as JWK, ALG)) as CryptoKey;
  return { current: { kid: latest.kid, key }, publicKeys };
}

export async function loadKeyRing(em: EntityManager, kek: Buffer): Promise<KeyRing> {
  // When a reload was last asked for without force: the first is immediate.
  let askedAt = 0;
  let loading: Promise<void> | undefined;
  const ring: KeyRing = {
    ...(await readRing(em, kek)),
    reload(force = false) {
      if (!force) {
        if (Date.now() - askedAt < RELOAD_AT_MOST_EVERY_MS) return loading ?? Promise.resolve();
        askedAt = Date.now();
      }
      loading ??= readRing(em, kek)
        .then((r) => Object.assign(ring, r))
        .finally(() => (loading = undefined))
        .then(() => undefined);
      return loading;
    },
  };
  return ring;
}
