/** User writes, web tokens, JWT renewal and GET users' `enabled` and `isVaultAccess` (other reads come from src/resources/user.ts). Who may call each: schema/user.graphql. */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { ApiClient, WebToken } from '../entities/auth.js';
import { Site } from '../entities/site.js';
import { User, UserSupervisor } from '../entities/user.js';
import { badRequest, conflict, forbidden, notFound, unauthorized } from '../errors.js';
import { guidOrUnset, newId, requireGuid } from '../ids.js';
import { hashPassword, hashToken, verifyPassword } from '../auth/passwords.js';
import { signAccessToken } from '../auth/jwt.js';
import { assertAdminsRemain, LAST_ADMIN } from '../domain/admins.js';
import { editable } from '../domain/editable.js';
import { nameEquals } from '../db/lookup.js';
import { dbNow } from '../db/clock.js';
import { HOME_SITE } from '../domain/tenants.js';
import { assertOneSite, assertSiteExists, assertUserIdFree, checkPassword, createUser, MAX_USERID, pathSite, revokeRefreshTokens } from '../domain/users.js';
import { maxLength, oneLine, optionalDate, optionalString, requireString, uniquely } from '../domain/validate.js';
import { insertRows } from '../db/tenant-writes.js';
import { queryFieldMap } from '../read/fields.js';
import type { ListArgs } from '../read/paging.js';
import { heldRow, idKey, listPage, loadRow, reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { sql, type Sql } from '../sql.js';

/** The longest `audience` a token from getjwt names beside ours: a URI's usual limit. */
export const MAX_AUDIENCE = 2048;

type Input = Record<string, unknown>;

const USER = resource('User');

/** A managed user for a write; the all-zero GUID names the caller here too. */
// Locked: a password change proves the old password against what the change before it wrote.
const editUser = (ctx: AppContext, id: string) => editable(ctx, User, idKey(ctx, USER, id), 'User', true);

const WEB_TOKEN_TTL_MS = 5 * 60 * 1000;
const MAX_WEB_TOKEN_TTL_MS = 24 * 3600 * 1000;

function optionalBool(v: unknown, label: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  throw badRequest(`The field '${label}' must be true or false.`, { field: label });
}

/**
 * A partial update: keys not sent stay as they are. The userid changes only through changeUserId.
 * `oldPassword` proves a caller's own `password` change, as for everyone (administrators too).
 */
async function updateUser(ctx: AppContext, user: User, input: Input) {
  const text = (key: string, max: number) => {
    const v = optionalString(input, key);
    return v === undefined ? undefined : maxLength(v, max, key);
  };
  const changes: Partial<User> = {};
  const set = <K extends keyof User>(k: K, v: User[K] | undefined) => {
    if (v !== undefined) changes[k] = v;
  };
  // Names of a person: one line (as every name), kept as sent; checked unless resent as stored.
  const name = (key: 'firstName' | 'middleInitial' | 'lastName', max: number) => {
    const v = text(key, max);
    return v === undefined ? undefined : oneLine(v, key, user[key]);
  };
  set('firstName', name('firstName', 128));
  set('middleInitial', name('middleInitial', 8));
  set('lastName', name('lastName', 128));
  set('emailAddress', text('emailaddress', 256));
  set('enabled', optionalBool(input.enabled, 'enabled'));
  set('isVaultAccess', optionalBool(input.isVaultAccess, 'isVaultAccess'));
  set('passwordNeverExpires', optionalBool(input.passwordNeverExpires, 'passwordNeverExpires'));
  set('userIdNeverExpires', optionalBool(input.userIdNeverExpires, 'userIdNeverExpires'));
  set('passwordExpires', optionalDate(input.passwordExpires, 'passwordExpires'));
  set('userIdExpires', optionalDate(input.userIdExpires, 'userIdExpires'));
  if (input.mustChangePassword === true) Object.assign(changes, { passwordExpires: dbNow(), passwordNeverExpires: false });
  const password = optionalString(input, 'password');
  if (password !== undefined) {
    checkPassword(password);
    await proveOwnPassword(ctx, user, input);
    await setPassword(ctx, user, password);
  }
  const userid = optionalString(input, 'userid')?.trim();
  if (userid === '') throw badRequest("The field 'userid' must not be blank.", { field: 'userid' });
  // A change of case alone is a change too (the name is free: it is the user's own).
  if (userid && userid !== user.userId) {
    await assertUserIdFree(ctx.em(), maxLength(oneLine(userid, 'userid'), MAX_USERID, 'userid'), user.id);
    Object.assign(changes, { userId: userid, name: userid });
  }
  if (user.id === ctx.caller.userId && changes.enabled === false) throw badRequest('You cannot disable your own account.', { field: 'enabled' });
  if (changes.enabled === false && user.enabled) {
    await assertAdminsRemain(ctx, [user.id], `${LAST_ADMIN}: '${user.userId}' is the last one and cannot be disabled.`);
    await revokeRefreshTokens(ctx.em(), user.id);
  }
  Object.assign(user, changes);
  await uniquely(`A user with the userid '${userid}'`, () => ctx.em().flush());
  return reread(ctx, USER, user.id);
}

async function setPassword(ctx: AppContext, user: User, password: string) {
  user.passwordHash = await hashPassword(checkPassword(password));
  await revokeRefreshTokens(ctx.em(), user.id);
}

/** Users changing their own password prove the old one, administrators included; for another user an administrator need not. */
async function proveOwnPassword(ctx: AppContext, user: User, input: Input) {
  if (user.id !== ctx.caller.userId) return;
  const old = requireString(input, 'oldPassword');
  if (!(await verifyPassword(old, user.passwordHash))) throw forbidden('The old password is not correct.');
}

async function changePassword(ctx: AppContext, user: User, input: Input) {
  const newPassword = checkPassword(requireString(input, 'newPassword'), 'newPassword');
  await proveOwnPassword(ctx, user, input);
  await setPassword(ctx, user, newPassword);
  await ctx.em().flush();
}

/** `PUT users/{id}` and `PUT sites/{siteId}/users/{userId}`: a password change (newPassword) and the other keys, alike on both routes. */
async function changeUser(ctx: AppContext, user: User, input: Input) {
  // An administrator's siteId moves the user, on either route (the ownProfileOrAdmin policy refuses it to others).
  const siteId = guidOrUnset(input.siteId, 'siteId');
  if (siteId && siteId !== user.siteId) {
    await assertSiteExists(ctx.em(), ctx.tenantId, siteId);
    user.siteId = siteId;
  }
  if (input.newPassword !== undefined) await changePassword(ctx, user, input);
  const { newPassword: _n, oldPassword, ...profile } = input;
  return Object.keys(profile).length ? updateUser(ctx, user, { ...profile, oldPassword }) : reread(ctx, USER, user.id);
}

/** Without a siteId a new user goes to the tenant's Home site, as the legacy clients expect. */
async function homeSiteId(ctx: AppContext): Promise<string> {
  const home = await ctx.em().findOne(Site, nameEquals('name', HOME_SITE), { fields: ['id'], orderBy: { createdAt: 'asc' } });
  if (!home) throw badRequest(`Send a siteId: this tenant has no '${HOME_SITE}' site to put the user in.`, { field: 'siteId' });
  return home.id;
}

/** An API client acts as its user: deleting that user would lock the client out, so it is refused. */
async function assertOwnsNoClient(ctx: AppContext, user: User) {
  const client = await ctx.em().findOne(ApiClient, { userId: user.id }, { fields: ['id', 'name'], orderBy: { createdAt: 'asc' } });
  if (client) {
    throw conflict(`User '${user.userId}' owns the API client '${client.name}' (${client.id}), which acts as this user: give the client another owner or remove it first.`);
  }
}

async function newUser(ctx: AppContext, siteId: string | undefined, input: Input) {
  const user = await createUser(ctx.em(), ctx.tenantId, siteId ?? (await homeSiteId(ctx)), input);
  if (input.mustChangePassword === true) {
    Object.assign(user, { passwordExpires: dbNow(), passwordNeverExpires: false });
    await ctx.em().flush();
  }
  return reread(ctx, USER, user.id);
}

/**
 * The condition of `enabled` on GET users, as the .NET client sends it (GetDisabledUsers: `false`,
 * GetAllEnabledAndDisabledUsers: `all`), in any case. Not sent, enabled users only: what the
 * client's GetUsers implies (docs/decisions.md). The same SQL as `q`'s field `enabled`.
 */
function enabledFilter(enabled: string | null | undefined): Sql[] {
  const v = (enabled ?? '').trim().toLowerCase() || 'true';
  if (v === 'all') return [];
  if (v !== 'true' && v !== 'false') throw badRequest(`The value of 'enabled' must be true, false or all (any case), got '${String(enabled).slice(0, 64)}'.`, { field: 'enabled' });
  return [sql`${queryFieldMap(USER).get('enabled')!.sql} = ${v === 'true'}`];
}

/** The users list's conditions for its filters (test/db/list-orders.test.ts EXPLAINs them). */
export const usersFiltered = (args: { enabled?: string | null; isVaultAccess?: boolean | null }): Sql[] => [
  ...enabledFilter(args.enabled),
  ...vaultAccessFilter(args.isVaultAccess),
];

/** `isVaultAccess` on GET users: true the account owners (the .NET client's GetAccountOwnersList), false the others. */
function vaultAccessFilter(isVaultAccess: boolean | null | undefined): Sql[] {
  if (isVaultAccess === undefined || isVaultAccess === null) return [];
  return [sql`${queryFieldMap(USER).get('isvaultaccess')!.sql} = ${isVaultAccess}`];
}

export const resolvers = {
  Query: {
    users: (_: unknown, args: ListArgs & { enabled?: string | null; isVaultAccess?: boolean | null }, ctx: AppContext) =>
      listPage(ctx, USER, args, usersFiltered(args)),
    me: (_: unknown, __: unknown, ctx: AppContext) => loadRow(ctx, USER, ctx.caller.userId),
    userWebToken: async (_: unknown, a: { userId: string; expiration?: Date | null; u?: string | null; p?: string | null }, ctx: AppContext) => {
      // Ignored, these would hand a token for any password to an app that asks whether one is right.
      if (a.u != null || a.p != null) {
        throw badRequest(
          "Checking a user name and password here (u, p) is not available on this service: check them with the token endpoint's password grant, which answers a token only for the right password.",
          { field: a.u != null ? 'u' : 'p' },
        );
      }
      const user = await loadRow(ctx, USER, a.userId);
      const now = Date.now();
      const wanted = a.expiration ? a.expiration.getTime() - now : WEB_TOKEN_TTL_MS;
      if (wanted <= 0) throw badRequest('expiration must be in the future.', { field: 'expiration' });
      const expires = new Date(now + Math.min(wanted, MAX_WEB_TOKEN_TTL_MS));
      const token = randomUUID();
      ctx.em().create(WebToken, { id: newId(), tokenHash: hashToken(token), userId: user.id as string, expiresAt: expires });
      await ctx.em().flush();
      return { webToken: token, expires };
    },
    getJwt: async (_: unknown, { audience }: { audience?: string | null }, ctx: AppContext) => {
      const { services, caller } = ctx;
      // This is how the Node clients renew: like the refresh grant, it ends with the account.
      const me = await ctx.loaders.byId(USER).load(caller.userId);
      if (!me?.enabled) throw unauthorized('This user account is disabled or deleted: log in again.');
      // It goes into the token, which must still fit a request's headers to be used.
      if (audience && audience.length > MAX_AUDIENCE) throw badRequest(`'audience' is longer than ${MAX_AUDIENCE} characters: it names the service the token is for.`, { field: 'audience' });
      const jwt = await signAccessToken(services.keys, services.jwt, caller, audience ?? undefined);
      // An absolute instant, unlike record timestamps: a zone-less string would be read as client-local time.
      return { token: jwt.token, expires: jwt.expiresAt.toISOString() };
    },
  },
  Mutation: {
    createUser: (_: unknown, { siteId, input }: { siteId?: string | null; input: Input }, ctx: AppContext) => {
      assertOneSite(siteId, 'query', input);
      return newUser(ctx, guidOrUnset(siteId ?? input.siteId, 'siteId'), input);
    },
    createSiteUser: async (_: unknown, { siteId, input }: { siteId: string; input: Input }, ctx: AppContext) => {
      assertOneSite(siteId, 'path', input);
      // The site is in the path: an unknown one, or one deleted meanwhile, is a 404, not a bad body value.
      return newUser(ctx, await pathSite(ctx.em(), siteId), input);
    },
    // Ordinary users get here only for their own profile and password (the ownProfileOrAdmin policy).
    updateUser: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => changeUser(ctx, await editUser(ctx, id), input),
    updateSiteUser: async (_: unknown, a: { siteId: string; userId: string; input: Input }, ctx: AppContext) => {
      const user = await editUser(ctx, a.userId);
      if (user.siteId !== a.siteId.toLowerCase()) throw notFound(`User '${a.userId}' was not found in site '${a.siteId}'.`);
      return changeUser(ctx, user, a.input);
    },
    deleteUser: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      const user = await editUser(ctx, id);
      if (user.id === ctx.caller.userId) throw badRequest('You cannot delete your own account.');
      await assertOwnsNoClient(ctx, user);
      await assertAdminsRemain(ctx, [user.id], `${LAST_ADMIN}: '${user.userId}' is the last one and cannot be deleted.`);
      await ctx.em().remove(user).flush();
      return true;
    },
    changeUserPassword: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      const user = await editUser(ctx, id);
      if (input.resetPassword === true) {
        throw badRequest('Password reset e-mails are not available on this service: send newPassword instead.', { field: 'resetPassword' });
      }
      await changePassword(ctx, user, input);
      return reread(ctx, USER, user.id);
    },
    changeUserId: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      const user = await editUser(ctx, id);
      requireString(input, 'userId');
      return updateUser(ctx, user, { userid: input.userId });
    },
    addUserSupervisor: async (_: unknown, { userId, input }: { userId: string; input: Input }, ctx: AppContext) => {
      const user = await heldRow(ctx, USER, userId);
      const supervisor = await heldRow(ctx, USER, requireGuid(input.supervisorId, 'supervisorId'), 'supervisorId');
      if (supervisor.id === user.id) throw badRequest('A user cannot supervise themselves.', { field: 'supervisorId' });
      await insertRows(ctx.reader, 'user_supervisor', [{ user_id: user.id, supervisor_id: supervisor.id }], true);
      return user;
    },
    removeUserSupervisor: async (_: unknown, a: { userId: string; supervisorId: string }, ctx: AppContext) => {
      // The all-zero GUID names the caller, as in addUserSupervisor.
      const removed = await ctx.em().nativeDelete(UserSupervisor, { userId: idKey(ctx, USER, a.userId), supervisorId: a.supervisorId.toLowerCase() });
      if (!removed) throw notFound(`User '${a.supervisorId}' does not supervise '${a.userId}'.`);
      return true;
    },
  },
};
