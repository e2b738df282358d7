/**
 * The token endpoint's grants as the legacy clients send them: `password` (also with a web token,
 * or with the API key pair as username/password), `client_credentials` (key pair in
 * client_id/client_secret or username/password) and `refresh_token` (rotating, reuse revokes).
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { RefreshToken, WebToken } from '../entities/auth.js';
import { User } from '../entities/user.js';
import { TENANT_FILTER } from '../db/tenant-filter.js';
import { dbNow } from '../db/clock.js';
import { isGuid, newId } from '../ids.js';
import { nameEquals } from '../db/lookup.js';
import { signAccessToken, type JwtSettings } from './jwt.js';
import type { KeyRing } from './keys.js';
import { DUMMY_HASH, hashPassword, hashToken, MAX_PASSWORD, MAX_USERID, needsRehash, randomSecret, verifyPassword } from './passwords.js';
import { addressKey, claim, clientKey, failed, succeeded, userKey, type ThrottleServices } from './throttle.js';

/** What the grants use of the long-lived services (src/context.ts's Services has it). */
interface Services extends ThrottleServices {
  orm: MikroORM;
  keys: KeyRing;
  jwt: JwtSettings;
}

export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401 | 408,
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

type Client = Awaited<ReturnType<typeof authenticateClient>>;

interface Session {
  /** The user's session epoch at login. */
  epoch: number;
  /** When the login's session ends: refresh tokens and renewals stop there. */
  expires: Date;
}

async function issue(
  services: Services, em: EntityManager, tenantId: string, userId: string, clientId: string, session: Session, gone: () => OAuthError, familyId = newId(),
): Promise<TokenResponse> {
  const claims = { userId, tenantId, clientId, sessionEpoch: session.epoch, sessionExpires: Math.floor(session.expires.getTime() / 1000) };
  // A refresh in its session's last second: the row had not expired, but an access token, counted
  // in whole seconds, would end as it is made. The grant's refusal, not signing's 401 (which the
  // token endpoint answered as invalid_client); thrown in rotate's transaction, it uses nothing up.
  const now = Math.floor(Date.now() / 1000);
  if (claims.sessionExpires <= now) throw refreshRefused();
  const access = await signAccessToken(services.keys, services.jwt, claims, undefined, now);
  const refresh = `${tenantId}.${randomSecret()}`;
  em.create(RefreshToken, {
    id: newId(),
    tenantId,
    familyId,
    tokenHash: hashToken(refresh),
    userId,
    clientId,
    sessionEpoch: session.epoch,
    expiresAt: session.expires,
  });
  await em.flush().catch((err: unknown) => {
    // The user was deleted after they were read: the refusal the grant gives a user who is not there
    // (the insert's foreign key answered a 404 "user referred to was not found").
    throw (err as { constraint?: string }).constraint === 'refresh_token_user_fk' ? gone() : err;
  });
  return { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, refresh_token: refresh };
}

/**
 * Uses a refresh token once and issues its successor, or, when it was used before, revokes its
 * family (undefined). A family's rotations and revocations take turns (a transaction-scoped lock),
 * so a revocation sees every successor issued before it and no successor is issued after it: the
 * reuse check and the insert were apart, and a concurrent reuse's revocation missed the winner's.
 */
async function rotate(services: Services, em: EntityManager, row: RefreshToken): Promise<TokenResponse | undefined> {
  return em.transactional(async (tx) => {
    const c = tx.getConnection();
    await c.execute(`select pg_advisory_xact_lock(hashtext('quire:refresh-family:' || ?))`, [row.familyId], 'run', tx.getTransactionContext());
    // Its client must not be revoked (`quire client revoke`): held for share to the commit, so a
    // revocation in progress is waited for and then seen, and one that comes later finds the
    // successor to revoke. A token that a login in the revocation's moment made is refused here too.
    const live = await c.execute(`select 1 from api_client where tenant_id = ? and id = ? and revoked_at is null for share`, [row.tenantId, row.clientId], 'all', tx.getTransactionContext());
    if (live.length === 0) throw refreshRefused();
    // The user's row before the token's, as a password reset, a disable or a delete takes them (the
    // user, then their tokens): the next token's insert needs it. Taken after the token, a change
    // between the two made a deadlock, which PostgreSQL broke after a second with a 409.
    const user = await c.execute(`select 1 from app_user where tenant_id = ? and id = ? for key share`, [row.tenantId, row.userId], 'all', tx.getTransactionContext());
    if (user.length === 0) throw refreshRefused();
    if (await tx.nativeUpdate(RefreshToken, { id: row.id, usedAt: null, revokedAt: null }, { usedAt: dbNow() })) {
      // The family keeps its login's end: rotation never extends a session.
      return issue(services, tx, row.tenantId, row.userId, row.clientId, { epoch: row.sessionEpoch, expires: row.expiresAt }, refreshRefused, row.familyId);
    }
    // A used token came back (or a revoked one): someone holds a copy. Revoke the whole family.
    await tx.nativeUpdate(RefreshToken, { familyId: row.familyId, revokedAt: null }, { revokedAt: dbNow() });
    return undefined;
  });
}

/** A new login's session: REFRESH_TOKEN_TTL from now, under the user's current epoch. */
function newSession(services: Services, user: User): Session {
  return { epoch: user.sessionEpoch, expires: new Date(Date.now() + services.config.refreshTokenTtlSeconds * 1000) };
}

const refreshRefused = () => new OAuthError(400, 'invalid_grant', 'The refresh token is invalid, expired or revoked: log in again.');
const badLogin = () => new OAuthError(400, 'invalid_grant', 'Invalid username or password.');
const disabled = () => new OAuthError(400, 'invalid_grant', 'This user account is disabled.');
const expired = () => new OAuthError(400, 'invalid_grant', 'This user account has expired (its userIdExpires has passed): an administrator can extend it.');

/** Past `userIdExpires`, unless `userIdNeverExpires`: the account takes no new login and no refresh. */
const accountExpired = (user: User) => !user.userIdNeverExpires && !!user.userIdExpires && user.userIdExpires.getTime() <= Date.now();

/** A user who may log in: enabled, and an account that has not expired. */
function assertActive(user: User | null | undefined): asserts user is User {
  if (!user?.enabled) throw disabled();
  if (accountExpired(user)) throw expired();
}

/**
 * Checks a user's password under the throttle (src/auth/throttle.ts); stores a stronger hash when
 * today's parameters differ. A disabled or expired account answers any password as a wrong one and
 * counts it: saying why would confirm to a guesser that the password was right.
 */
async function passwordLogin(services: Services, em: EntityManager, client: Client, username: string, password: string, address: string): Promise<User> {
  const user = await em.findOne(User, nameEquals('user_id', username));
  const keys = [clientKey(services, client.id), userKey(services, client.tenantId, username, address)];
  const attempt = await claim(services, keys);
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok || !user.enabled || accountExpired(user)) return failed(services, attempt, badLogin());
  await succeeded(services, attempt);
  if (needsRehash(user.passwordHash)) await rehash(em, user, password);
  return user;
}

/** The same password under today's parameters: not a password change, so sessions stay (see the sessions migration). */
async function rehash(em: EntityManager, user: User, password: string): Promise<void> {
  const hash = await hashPassword(password);
  await em.getConnection().transactional(async (tx) => {
    await em.getConnection().execute(`set local quire.password_rehash = 'on'`, [], 'run', tx);
    await em.getConnection().execute('update app_user set password_hash = ? where tenant_id = ? and id = ? and password_hash = ?', [hash, user.tenantId, user.id, user.passwordHash], 'run', tx);
  });
}

/** A single-use web token (GET users/{id}/webToken) sent as both username and password. */
async function webTokenLogin(em: EntityManager, token: string): Promise<User | undefined> {
  const row = await em.findOne(WebToken, { tokenHash: hashToken(token.toLowerCase()) });
  if (!row || row.usedAt || row.expiresAt < new Date()) return undefined;
  // Claimed in one conditional update, so that two concurrent logins cannot both use it.
  if (!(await em.nativeUpdate(WebToken, { id: row.id, usedAt: null }, { usedAt: dbNow() }))) return undefined;
  // The user may have been disabled, or the account expired, since the token was issued.
  const user = await em.findOne(User, { id: row.userId });
  assertActive(user);
  return user;
}

async function activeUser(em: EntityManager, id: string): Promise<User> {
  const user = await em.findOne(User, { id });
  assertActive(user);
  return user;
}

/**
 * Every token request runs under its source address's throttle: a failure of any kind counts
 * against the address (checked before any hash is computed), a success gives its claim back.
 */
export async function grant(services: Services, body: Params, scopedTenantId: string | undefined, clientIp: string, authorization: string | null): Promise<TokenResponse> {
  const attempt = await claim(services, [addressKey(services, clientIp)]);
  try {
    // Read under the claim, so a bad Basic header counts against the address as a bad body does.
    const answer = await grantOf(services, withBasic(body, authorization), scopedTenantId, clientIp);
    await succeeded(services, attempt);
    return answer;
  } catch (e) {
    return failed(services, attempt, e as Error);
  }
}

/** Whether the request tried HTTP Basic client authentication (any other scheme, a Bearer, is not read here). */
export const isBasic = (authorization: string | null): authorization is string => /^basic(\s|$)/i.test(authorization ?? '');

/**
 * The body's parameters with the client's credentials from HTTP Basic (RFC 6749 2.3.1:
 * `Basic base64(urlencode(client_id):urlencode(client_secret))`), when the request sent it. A
 * client uses one method per request, so the body then carries no client_secret (a client_id
 * there must name the same client). A header that does not decode is a failed client
 * authentication, 401 `invalid_client`: RFC 6749 5.2 asks for a 401 whenever the client tried the
 * Authorization header.
 */
function withBasic(p: Params, authorization: string | null): Params {
  if (!isBasic(authorization)) return p;
  if (p.client_secret !== undefined) {
    throw new OAuthError(400, 'invalid_request', 'The client authenticated twice, in the Authorization header and with client_secret in the body: use one method.');
  }
  const malformed = (why: string) =>
    new OAuthError(401, 'invalid_client', `The Authorization header is not Basic client authentication: ${why}. Send Basic base64(urlencode(client_id):urlencode(client_secret)).`);
  const encoded = authorization.slice('basic'.length).trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw malformed('its credentials are not base64');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
  } catch {
    throw malformed('its credentials are not UTF-8');
  }
  const colon = text.indexOf(':');
  if (colon < 0) throw malformed('its credentials have no colon between client_id and client_secret');
  let id: string, secret: string;
  try {
    [id, secret] = [text.slice(0, colon), text.slice(colon + 1)].map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
  } catch {
    throw malformed('a percent-escape in its credentials does not decode');
  }
  // Sent, they are checked on every grant: an empty secret is a failed authentication, not none (a refresh takes none).
  if (!id || !secret) throw malformed(`its ${id ? 'client_secret' : 'client_id'} is empty`);
  // Many OAuth libraries name the client in the body beside Basic: the same id is no second method.
  // Client ids are GUIDs, found in any case (authenticateClient): another spelling is the same client.
  if (p.client_id !== undefined && p.client_id.toLowerCase() !== id.toLowerCase()) {
    throw new OAuthError(400, 'invalid_request', 'The body\'s client_id is not the client the Authorization header authenticates: send one client.');
  }
  return { ...p, client_id: id, client_secret: secret };
}

/**
 * What is hashed (a password, a secret) or kept as a throttle key (a username) is no longer than
 * any user or client can have: a 1 MB password cost hundreds of milliseconds of argon2 before.
 */
const CREDENTIAL_LIMITS = [
  ['username', MAX_USERID],
  ['password', MAX_PASSWORD],
  ['client_secret', MAX_PASSWORD],
] as const;

async function grantOf(services: Services, p: Params, scopedTenantId: string | undefined, clientIp: string): Promise<TokenResponse> {
  for (const [key, max] of CREDENTIAL_LIMITS) {
    if ((p[key]?.length ?? 0) > max) throw new OAuthError(400, 'invalid_request', `${key} is longer than ${max} characters, more than any account's can be.`);
  }
  const grantType = p.grant_type;
  if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required.');

  if (grantType === 'password') {
    const client = await authenticateClient(services, p.client_id, p.client_secret, scopedTenantId);
    const { username, password } = p;
    if (!username || !password) throw new OAuthError(400, 'invalid_request', 'username and password are required.');
    const em = forkFor(services, client.tenantId);
    let user: User | undefined;
    if (username === password && isGuid(username)) user = await webTokenLogin(em, username);
    if (!user && username === p.client_id && password === p.client_secret) user = await activeUser(em, client.userId);
    if (!user) {
      user = await passwordLogin(services, em, client, username, password, clientIp);
      if (clientIp) user.lastIpAddress = clientIp.slice(0, 64);
    }
    return issue(services, em, client.tenantId, user.id, client.id, newSession(services, user), badLogin);
  }

  if (grantType === 'client_credentials') {
    const client = await authenticateClient(services, p.client_id ?? p.username, p.client_secret ?? p.password, scopedTenantId);
    const em = forkFor(services, client.tenantId);
    const user = await activeUser(em, client.userId);
    return issue(services, em, client.tenantId, user.id, client.id, newSession(services, user), disabled);
  }

  if (grantType === 'refresh_token') {
    const token = p.refresh_token ?? '';
    const tenantId = token.split('.')[0];
    const invalid = refreshRefused();
    if (!isGuid(tenantId) || (scopedTenantId && scopedTenantId !== tenantId)) throw invalid;
    const em = forkFor(services, tenantId);
    const row = await em.findOne(RefreshToken, { tokenHash: hashToken(token) });
    if (!row || row.revokedAt || row.expiresAt < new Date()) throw invalid;
    if (p.client_id && p.client_id.toLowerCase() !== row.clientId) throw invalid;
    // A secret sent is checked, also without its client_id (the token names its client): a wrong one authenticates nothing.
    if (p.client_secret) await authenticateClient(services, p.client_id || row.clientId, p.client_secret, tenantId);
    // The session ends with the account (disabled or expired), and with a password change (a new epoch).
    const user = await em.findOne(User, { id: row.userId });
    if (!user?.enabled || user.sessionEpoch !== row.sessionEpoch || accountExpired(user)) throw invalid;
    const rotated = await rotate(services, em, row);
    if (!rotated) throw invalid;
    return rotated;
  }

  throw new OAuthError(400, 'unsupported_grant_type', `grant_type '${grantType.slice(0, 40)}' is not supported; use password, client_credentials or refresh_token.`);
}
