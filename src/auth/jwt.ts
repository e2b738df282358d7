/**
 * Access tokens: short-lived JWTs carrying user, tenant, API client and the session they belong to
 * (the user's session epoch and when the login's session ends). Roles are asked of the database per
 * request, and so is the epoch (src/auth/session.ts): a token outlives neither its account nor a
 * password change.
 */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError, unauthorized } from '../errors.js';
import { newId } from '../ids.js';
import { ALG, type KeyRing } from './keys.js';

export interface AccessClaims {
  userId: string;
  tenantId: string;
  clientId: string;
  /** The user's session epoch at login (`sep`). */
  sessionEpoch: number;
  /** When the login's session ends, in seconds since the epoch (`sxp`): no renewal goes past it. */
  sessionExpires: number;
}

export interface JwtSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export interface IssuedToken {
  token: string;
  expiresAt: Date;
  expiresIn: number;
}

/** `now` in seconds since the epoch: a caller that checked the session's end against it signs at that same second. */
export async function signAccessToken(ring: KeyRing, s: JwtSettings, c: AccessClaims, extraAudience?: string, now = Math.floor(Date.now() / 1000)): Promise<IssuedToken> {
  const exp = Math.min(now + s.ttlSeconds, c.sessionExpires);
  if (c.sessionExpires <= now) throw unauthorized('This session has ended: log in again.');
  const audience = extraAudience && extraAudience !== s.audience ? [s.audience, extraAudience] : s.audience;
  const token = await new SignJWT({ tid: c.tenantId, cid: c.clientId, sep: c.sessionEpoch, sxp: c.sessionExpires })
    .setProtectedHeader({ alg: ALG, kid: ring.current.kid, typ: 'JWT' })
    .setIssuer(s.issuer)
    .setAudience(audience)
    .setSubject(c.userId)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .setJti(newId())
    .sign(ring.current.key);
  return { token, expiresAt: new Date(exp * 1000), expiresIn: exp - now };
}

/**
 * Verified tokens, remembered until they expire: signature checks were the largest fixed cost of
 * a read. Bounded; the oldest entries go first. A token is only ever cached after full verification.
 */
const verified = new WeakMap<KeyRing, Map<string, { claims: AccessClaims; exp: number }>>();
const MAX_CACHED = 10_000;

/** The claims of a token verified before and not yet expired, without waiting for anything. */
export function cachedClaims(ring: KeyRing, token: string): AccessClaims | undefined {
  const cache = verified.get(ring);
  const hit = cache?.get(token);
  if (!hit) return undefined;
  if (hit.exp > Date.now() / 1000) return hit.claims;
  cache!.delete(token);
  return undefined;
}

export async function verifyAccessToken(ring: KeyRing, s: JwtSettings, token: string): Promise<AccessClaims> {
  const hit = cachedClaims(ring, token);
  if (hit) return hit;
  let cache = verified.get(ring);
  if (!cache) verified.set(ring, (cache = new Map()));
  const entry = await verifyUncached(ring, s, token);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(token, entry);
  return entry.claims;
}

async function verifyUncached(ring: KeyRing, s: JwtSettings, token: string): Promise<{ claims: AccessClaims; exp: number }> {
  try {
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        if (!header.kid) throw new joseErrors.JWKSNoMatchingKey();
        // A kid we do not know may be a key another process made since we loaded ours.
        if (!ring.publicKeys.has(header.kid)) await ring.reload();
        const key = ring.publicKeys.get(header.kid);
        if (!key) throw new joseErrors.JWKSNoMatchingKey();
        return key;
      },
      { issuer: s.issuer, audience: s.audience, algorithms: [ALG] },
    );
    const { sub, tid, cid, exp, sep, sxp } = payload as Record<string, unknown>;
    if (typeof sub !== 'string' || typeof tid !== 'string' || typeof cid !== 'string' || typeof exp !== 'number' || !Number.isInteger(sep) || typeof sxp !== 'number') {
      throw unauthorized('The access token is missing required claims.');
    }
    return { claims: { userId: sub, tenantId: tid, clientId: cid, sessionEpoch: sep as number, sessionExpires: sxp }, exp };
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (err instanceof joseErrors.JWTExpired) throw unauthorized('The access token has expired: request a new one.');
    throw unauthorized('The access token is invalid.');
  }
}
