/**
 * The token endpoint's grants as the legacy clients send them: `password` (also with a web token,
 * or with the API key pair as username/password), `client_credentials` (key pair in
 * client_id/client_secret or username/password) and `refresh_token` (rotating, reuse revokes).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../context.js';
import { RefreshToken, WebToken } from '../entities/auth.js';
import { User } from '../entities/user.js';
import { TENANT_FILTER } from '../db/tenant-filter.js';
import { AppError } from '../errors.js';
import { isGuid, newId } from '../ids.js';
import { lowerEquals } from '../domain/lookup.js';
import { signAccessToken } from './jwt.js';
import { DUMMY_HASH, hashToken, randomSecret, verifyPassword } from './passwords.js';

export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type',
    readonly description: string,
  ) {
    super(description);
  }
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

type Params = Record<string, string | undefined>;


function forkFor(services: Services, tenantId: string): EntityManager {
  const em = services.orm.em.fork({ useContext: false });
  em.setFilterParams(TENANT_FILTER, { id: tenantId });
  return em;
}

/** Finds the API client (any tenant unless one is given) and checks its secret. */
async function authenticateClient(services: Services, clientId: string | undefined, secret: string | undefined, tenantId?: string) {
  if (!clientId || !secret) throw new OAuthError(401, 'invalid_client', 'client_id and client_secret are required.');
  const rows = isGuid(clientId)
    ? await services.orm.em.getConnection().execute<{ id: string; tenant_id: string; secret_hash: string; user_id: string }[]>(
        'select id, tenant_id, secret_hash, user_id from api_client where id = ? and revoked_at is null',
        [clientId.toLowerCase()],
      )
    : [];
  const row = rows[0];
  const ok = await verifyPassword(secret, row?.secret_hash ?? DUMMY_HASH);
  if (!row || !ok || (tenantId && row.tenant_id !== tenantId)) {
    throw new OAuthError(401, 'invalid_client', 'Invalid client credentials: unknown client_id or wrong client_secret.');
  }
  return { id: row.id, tenantId: row.tenant_id, userId: row.user_id };
}

async function issue(services: Services, em: EntityManager, tenantId: string, userId: string, clientId: string, familyId = newId()): Promise<TokenResponse> {
  const { config } = services;
  const access = await signAccessToken(services.keys, services.jwt, { userId, tenantId, clientId });
  const refresh = `${tenantId}.${randomSecret()}`;
  em.create(RefreshToken, {
    id: newId(),
    tenantId,
    familyId,
    tokenHash: hashToken(refresh),
    userId,
    clientId,
    expiresAt: new Date(Date.now() + config.refreshTokenTtlSeconds * 1000),
  });
  await em.flush();
  return { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, refresh_token: refresh };
}

const badLogin = () => new OAuthError(400, 'invalid_grant', 'Invalid username or password.');

function tooMany(until: Date): AppError {
  return new AppError(
    'TOO_MANY_REQUESTS',
    'Too many failed logins for this user: wait until retryTime and try again.',
    undefined,
    { retryTime: until.toISOString() },
  );
}

async function passwordLogin(services: Services, em: EntityManager, username: string, password: string): Promise<User> {
  const { config } = services;
  const user = await em.findOne(User, lowerEquals('user_id', username));
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user) throw badLogin();
  const now = new Date();
  if (user.lockedUntil && user.lockedUntil > now) throw tooMany(user.lockedUntil);
  if (!ok) {
    user.failedLogins += 1;
    if (user.failedLogins >= config.loginMaxFailures) {
      user.lockedUntil = new Date(now.getTime() + config.loginLockSeconds * 1000);
      user.failedLogins = 0;
      await em.flush();
      throw tooMany(user.lockedUntil);
    }
    await em.flush();
    throw badLogin();
  }
  if (!user.enabled) throw new OAuthError(400, 'invalid_grant', 'This user account is disabled.');
  return user;
}

/** A single-use web token (GET users/{id}/webToken) sent as both username and password. */
async function webTokenLogin(em: EntityManager, token: string): Promise<string | undefined> {
  const row = await em.findOne(WebToken, { tokenHash: hashToken(token.toLowerCase()) });
  if (!row || row.usedAt || row.expiresAt < new Date()) return undefined;
  // Claimed in one conditional update, so that two concurrent logins cannot both use it.
  if (!(await em.nativeUpdate(WebToken, { id: row.id, usedAt: null }, { usedAt: new Date() }))) return undefined;
  // The user may have been disabled since the token was issued.
  const user = await em.findOne(User, { id: row.userId });
  if (!user?.enabled) throw new OAuthError(400, 'invalid_grant', 'This user account is disabled.');
  return row.userId;
}

export async function grant(services: Services, p: Params, scopedTenantId: string | undefined, clientIp: string): Promise<TokenResponse> {
  const grantType = p.grant_type;
  if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required.');

  if (grantType === 'password') {
    const client = await authenticateClient(services, p.client_id, p.client_secret, scopedTenantId);
    const { username, password } = p;
    if (!username || !password) throw new OAuthError(400, 'invalid_request', 'username and password are required.');
    const em = forkFor(services, client.tenantId);
    let userId: string | undefined;
    if (username === password && isGuid(username)) userId = await webTokenLogin(em, username);
    if (!userId && username === p.client_id && password === p.client_secret) userId = client.userId;
    if (!userId) {
      const user = await passwordLogin(services, em, username, password);
      user.failedLogins = 0;
      user.lockedUntil = null;
      if (clientIp) user.lastIpAddress = clientIp.slice(0, 64);
      userId = user.id;
    }
    return issue(services, em, client.tenantId, userId, client.id);
  }

  if (grantType === 'client_credentials') {
    const client = await authenticateClient(services, p.client_id ?? p.username, p.client_secret ?? p.password, scopedTenantId);
    return issue(services, forkFor(services, client.tenantId), client.tenantId, client.userId, client.id);
  }

  if (grantType === 'refresh_token') {
    const token = p.refresh_token ?? '';
    const tenantId = token.split('.')[0];
    const invalid = new OAuthError(400, 'invalid_grant', 'The refresh token is invalid, expired or revoked: log in again.');
    if (!isGuid(tenantId) || (scopedTenantId && scopedTenantId !== tenantId)) throw invalid;
    const em = forkFor(services, tenantId);
    const row = await em.findOne(RefreshToken, { tokenHash: hashToken(token) });
    if (!row || row.revokedAt || row.expiresAt < new Date()) throw invalid;
    if (p.client_id && p.client_id.toLowerCase() !== row.clientId) throw invalid;
    if (p.client_id && p.client_secret) await authenticateClient(services, p.client_id, p.client_secret, tenantId);
    // Claimed in one conditional update, so that of two concurrent uses only one wins.
    const claimed = row.usedAt ? 0 : await em.nativeUpdate(RefreshToken, { id: row.id, usedAt: null }, { usedAt: new Date() });
    if (!claimed) {
      // A rotated token came back: someone holds a copy. Revoke the whole family.
      await em.nativeUpdate(RefreshToken, { familyId: row.familyId, revokedAt: null }, { revokedAt: new Date() });
      throw invalid;
    }
    const user = await em.findOne(User, { id: row.userId });
    if (!user?.enabled) throw invalid;
    return issue(services, em, tenantId, row.userId, row.clientId, row.familyId);
  }

  throw new OAuthError(400, 'unsupported_grant_type', `grant_type '${grantType.slice(0, 40)}' is not supported; use password, client_credentials or refresh_token.`);
}
