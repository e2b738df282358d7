/** Creating and changing users: the rules shared by the REST/GraphQL mutations and the CLI. */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hashPassword, MAX_PASSWORD, MAX_USERID } from '../auth/passwords.js';
import { RefreshToken } from '../entities/auth.js';
import { Site } from '../entities/site.js';
import { User } from '../entities/user.js';
import { nameEquals } from '../db/lookup.js';
import { dbNow } from '../db/clock.js';
import { badRequest, conflict, notFound, shownValue } from '../errors.js';
import { newId } from '../ids.js';
import { maxLength, oneLine, optionalDate, optionalString, requireString, requireText, uniquely } from './validate.js';

export interface NewUser {
  userid?: unknown;
  name?: unknown;
  firstName?: unknown;
  middleInitial?: unknown;
  lastName?: unknown;
  emailaddress?: unknown;
  password?: unknown;
  passwordNeverExpires?: unknown;
  userIdNeverExpires?: unknown;
  passwordExpires?: unknown;
  userIdExpires?: unknown;
  enabled?: unknown;
  isVaultAccess?: unknown;
}

export const MIN_PASSWORD = 1;
export { MAX_PASSWORD, MAX_USERID };

/**
 * A password as every route takes it: not blank (spaces alone are no password, as `requireString`
 * already says for `POST users` and `newPassword`), at most MAX_PASSWORD characters. Kept as sent,
 * its spaces included.
 */
export function checkPassword(pw: string, label = 'password'): string {
  if (pw.length < MIN_PASSWORD || pw.trim() === '') throw badRequest(`The field '${label}' must not be blank.`, { field: label });
  if (pw.length > MAX_PASSWORD) throw badRequest(`The password is longer than ${MAX_PASSWORD} characters.`, { field: label });
  return pw;
}

/**
 * A 400 unless site `siteId` (a body's siteId or newSiteId) exists. Its row is held against its
 * delete to the end of the transaction (`for key share`, as the foreign key to it would hold it,
 * only earlier): a delete committed meanwhile is this 400 too, not the foreign key's 404, and one
 * begun later waits for the write.
 */
export async function assertSiteExists(em: EntityManager, tenantId: string, siteId: string, label = 'siteId'): Promise<void> {
  const found = await em.getConnection().execute(
    'select 1 from site where tenant_id = ? and id = ? for key share',
    [tenantId, siteId],
    'all',
    em.getTransactionContext(),
  );
  if (found.length === 0) throw badRequest(`The site '${siteId}' does not exist.`, { field: label });
}

/**
 * The site a path names (`sites/{id}/users`, `sites/{id}/groups`), locked for share to the end of
 * the mutation: a delete committed first makes it a 404, as an unknown site is (not the 400 that
 * assertSiteExists gives a body's siteId); a delete that comes later waits for the create.
 */
export async function pathSite(em: EntityManager, siteId: string): Promise<string> {
  const site = await em.findOne(Site, { id: siteId.toLowerCase() }, { fields: ['id'], lockMode: LockMode.PESSIMISTIC_READ });
  if (!site) throw notFound(`Site '${siteId}' was not found.`);
  return site.id;
}

/** A new user's or group's site named in the query or path and in the body too: two different ones are a 400, not one dropped. */
export function assertOneSite(siteId: string | null | undefined, where: 'query' | 'path', input: Record<string, unknown>): void {
  const body = input.siteId;
  if (siteId == null || body == null || body === '') return;
  if (typeof body !== 'string' || body.trim().toLowerCase() !== siteId.trim().toLowerCase()) {
    throw badRequest(`The siteId in the ${where} ('${siteId.slice(0, 64)}') and in the body (${shownValue(body)}) differ: send one of them, or the same in both.`, { field: 'siteId' });
  }
}

export async function assertUserIdFree(em: EntityManager, userid: string, exceptId?: string, label = 'userid'): Promise<void> {
  const taken = await em.findOne(User, nameEquals('user_id', userid), { fields: ['id'] });
  if (taken && taken.id !== exceptId) throw conflict(`A user with the userid '${userid}' already exists.`, { field: label });
}

function bool(v: unknown, label: string, fallback: boolean): boolean {
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v === 'boolean') return v;
  throw badRequest(`The field '${label}' must be true or false.`, { field: label });
}

export async function createUser(em: EntityManager, tenantId: string, siteId: string, input: NewUser): Promise<User> {
  const rec = input as Record<string, unknown>;
  // The spec's mandatory keys: a userid and a password may not be blank; the other texts must be
  // sent but may be empty, the spec's unset value.
  const text = (key: string, max: number) => maxLength(requireText(rec, key), max, key);
  const userid = oneLine(maxLength(requireString(rec, 'userid'), MAX_USERID, 'userid').trim(), 'userid');
  // Names of a person: one line, kept as sent.
  const firstName = oneLine(text('firstName', 128), 'firstName');
  const lastName = oneLine(text('lastName', 128), 'lastName');
  const emailAddress = text('emailaddress', 256);
  const middleInitial = oneLine(maxLength(optionalString(rec, 'middleInitial') ?? '', 8, 'middleInitial'), 'middleInitial');
  const password = checkPassword(requireString(rec, 'password'));
  await assertSiteExists(em, tenantId, siteId);
  await assertUserIdFree(em, userid);
  const user = em.create(User, {
    id: newId(),
    tenantId,
    siteId,
    userId: userid,
    // The legacy service names a new user after its userid (the spec's examples show name == userid).
    name: userid,
    firstName,
    middleInitial,
    lastName,
    emailAddress,
    passwordHash: await hashPassword(password),
    passwordNeverExpires: bool(rec.passwordNeverExpires, 'passwordNeverExpires', true),
    passwordExpires: optionalDate(rec.passwordExpires, 'passwordExpires') ?? null,
    userIdExpires: optionalDate(rec.userIdExpires, 'userIdExpires') ?? null,
    userIdNeverExpires: bool(rec.userIdNeverExpires, 'userIdNeverExpires', true),
    enabled: bool(rec.enabled, 'enabled', true),
    isVaultAccess: bool(rec.isVaultAccess, 'isVaultAccess', false),
  });
  await uniquely(`A user with the userid '${userid}'`, () => em.flush());
  return user;
}

/** A user's sessions end with a password change: their refresh tokens stop working (`em` has the tenant). */
export async function revokeRefreshTokens(em: EntityManager, userId: string) {
  await em.nativeUpdate(RefreshToken, { userId, revokedAt: null }, { revokedAt: dbNow() });
}

/**
 * An operator's reset of `userid`'s password (`quire user password`): the user's sessions end and
 * their lock-outs lift, as with an administrator's reset through the API (the app_user trigger
 * bumps the session epoch and clears the throttles when the hash changes; the refresh tokens are
 * revoked besides). `em` has the tenant.
 */
export async function resetPassword(em: EntityManager, tenantId: string, userid: string, password: string): Promise<{ id: string; userid: string }> {
  const hash = await hashPassword(checkPassword(password));
  return em.transactional(async (tx) => {
    const c = tx.getConnection();
    const ctx = tx.getTransactionContext();
    const rows = await c.execute<{ id: string; user_id: string }[]>(
      'update app_user set password_hash = ? where tenant_id = ? and name_key(user_id) = name_key(?) returning id, user_id',
      [hash, tenantId, userid],
      'all',
      ctx,
    );
    if (rows.length === 0) throw notFound(`no user '${userid}' in this tenant`);
    await revokeRefreshTokens(tx, rows[0].id);
    return { id: rows[0].id, userid: rows[0].user_id };
  });
}
