/**
 * The JWT signing key: an Ed25519 pair kept in the signing_key table, created on first start.
 * Verification pins EdDSA and looks keys up by `kid`, so a later key rotation only adds a row.
 */
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SigningKey } from '../entities/auth.js';
import { newId } from '../ids.js';

export const ALG = 'EdDSA';

export interface KeyRing {
  current: { kid: string; key: CryptoKey };
  publicKeys: Map<string, CryptoKey>;
}

export async function loadKeyRing(em: EntityManager): Promise<KeyRing> {
  let rows = await em.find(SigningKey, {}, { orderBy: { createdAt: 'desc' } });
  if (rows.length === 0) {
    // Processes starting together on a new database take turns, so exactly one key is made and
    // every process signs with, and verifies, the same one.
    await em.fork().transactional(async (tx) => {
      await tx.getConnection().execute(`select pg_advisory_xact_lock(hashtext('quire:signing-key'))`, [], 'all', tx.getTransactionContext());
      if ((await tx.count(SigningKey, {})) > 0) return;
      const { privateKey, publicKey } = await generateKeyPair(ALG, { crv: 'Ed25519', extractable: true });
      tx.create(SigningKey, {
        kid: newId(),
        alg: ALG,
        privateJwk: (await exportJWK(privateKey)) as Record<string, unknown>,
        publicJwk: (await exportJWK(publicKey)) as Record<string, unknown>,
        createdAt: new Date(),
      });
    });
    rows = await em.fork().find(SigningKey, {}, { orderBy: { createdAt: 'desc' } });
  }
  const publicKeys = new Map<string, CryptoKey>();
  for (const r of rows) publicKeys.set(r.kid, (await importJWK(r.publicJwk as JWK, ALG)) as CryptoKey);
  const latest = rows[0];
  const key = (await importJWK(latest.privateJwk as JWK, ALG)) as CryptoKey;
  return { current: { kid: latest.kid, key }, publicKeys };
}
