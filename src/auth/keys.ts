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
    const { privateKey, publicKey } = await generateKeyPair(ALG, { crv: 'Ed25519', extractable: true });
    const row = em.create(SigningKey, {
      kid: newId(),
      alg: ALG,
      privateJwk: (await exportJWK(privateKey)) as Record<string, unknown>,
      publicJwk: (await exportJWK(publicKey)) as Record<string, unknown>,
      createdAt: new Date(),
    });
    // Two processes starting at once may both try: the loser re-reads the winner's key.
    await em.upsert(row).catch(() => undefined);
    em.clear();
    rows = await em.find(SigningKey, {}, { orderBy: { createdAt: 'desc' } });
  }
  const publicKeys = new Map<string, CryptoKey>();
  for (const r of rows) publicKeys.set(r.kid, (await importJWK(r.publicJwk as JWK, ALG)) as CryptoKey);
  const latest = rows[0];
  const key = (await importJWK(latest.privateJwk as JWK, ALG)) as CryptoKey;
  return { current: { kid: latest.kid, key }, publicKeys };
}
