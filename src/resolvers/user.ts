import { randomUUID } from 'node:crypto';
import type { GraphQLResolveInfo } from 'graphql';
import type { AppContext } from '../context.js';
import { RefreshToken, User, UserSupervisor, WebToken } from '../entities/index.js';
import { badRequest, forbidden, notFound, unauthorized } from '../errors.js';
import { newId, ZERO_GUID } from '../ids.js';
import { hashPassword, hashToken, verifyPassword } from '../auth/passwords.js';
import { signAccessToken } from '../auth/jwt.js';
import { assertSiteExists, assertUserIdFree, checkPassword, createUser } from '../domain/users.js';
import { guidOrUnset, maxLength, optionalString, requireGuid, requireString, uniquely } from '../domain/validate.js';
import { BY_NAME, BY_USERID, listPage, queryFieldMap, type ListArgs } from './lists.js';
import { ALL, editable } from './rows.js';
import { groupFields } from './group.js';
import { loadSite } from './site.js';
import { Group } from '../entities/index.js';

type Input = Record<string, unknown>;

export const userFields = (ctx: AppContext, info: GraphQLResolveInfo) =>
  queryFieldMap(ctx, info, 'User', User, { userid: 'userId' });

/** The all-zero GUID names the caller. */
export function loadUser(ctx: AppContext, id: string): Promise<User> {
  const key = id === ZERO_GUID ? ctx.caller.userId : id.toLowerCase();
  return ctx.loaders.user.load(key).then((user) => {
    if (!user) throw notFound(`User '${id}' was not found.`);
    return user;
  });
}

/** A managed user for a write; the all-zero GUID names the caller here too. */
const editUser = (ctx: AppContext, id: string) => editable(ctx, User, id === ZERO_GUID ? ctx.caller.userId : id, 'User');

const page = <T>(items: Promise<T[]>) => ({ items: () => items, totalRecords: async () => (await items).length });

const WEB_TOKEN_TTL_MS = 5 * 60 * 1000;
const MAX_WEB_TOKEN_TTL_MS = 24 * 3600 * 1000;

function optionalDate(v: unknown, label: string): Date | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (v instanceof Date) return v;
  throw badRequest(`The field '${label}' must be a date-time.`);
}

function optionalBool(v: unknown, label: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  throw badRequest(`The field '${label}' must be true or false.`);
}

/** A partial update: keys not sent stay as they are. The userid changes only through changeUserId. */
async function updateUser(ctx: AppContext, user: User, input: Input): Promise<User> {
  const text = (key: string, max: number) => {
    const v = optionalString(input, key);
    return v === undefined ? undefined : maxLength(v, max, key);
  };
  const changes: Partial<User> = {};
  const set = <K extends keyof User>(k: K, v: User[K] | undefined) => {
    if (v !== undefined) changes[k] = v;
  };
  set('firstName', text('firstName', 128));
  set('middleInitial', text('middleInitial', 8));
  set('lastName', text('lastName', 128));
  set('emailAddress', text('emailaddress', 256));
  set('enabled', optionalBool(input.enabled, 'enabled'));
  set('passwordNeverExpires', optionalBool(input.passwordNeverExpires, 'passwordNeverExpires'));
  set('userIdNeverExpires', optionalBool(input.userIdNeverExpires, 'userIdNeverExpires'));
  set('passwordExpires', optionalDate(input.passwordExpires, 'passwordExpires'));
  set('userIdExpires', optionalDate(input.userIdExpires, 'userIdExpires'));
  if (input.mustChangePassword === true) Object.assign(changes, { passwordExpires: new Date(), passwordNeverExpires: false });
  const password = optionalString(input, 'password');
  if (password !== undefined) await setPassword(ctx, user, password);
  const userid = optionalString(input, 'userid')?.trim();
  if (userid && userid.toLowerCase() !== user.userId.toLowerCase()) {
    await assertUserIdFree(ctx.em(), maxLength(userid, 128, 'userid'), user.id);
    Object.assign(changes, { userId: userid, name: userid });
  }
  if (user.id === ctx.caller.userId && changes.enabled === false) throw badRequest('You cannot disable your own account.');
  if (changes.enabled === false) await revokeRefreshTokens(ctx, user.id);
  Object.assign(user, changes);
  await uniquely(`A user with the userid '${userid}'`, () => ctx.em().flush());
  return user;
}

/** Ordinary users change only their own password, also through PUT users/{id} (as the Node client does). */
const SELF_EDITABLE = new Set(['newPassword', 'oldPassword']);

/** Other sessions end with a password change: their refresh tokens stop working. */
async function revokeRefreshTokens(ctx: AppContext, userId: string) {
  await ctx.em().nativeUpdate(RefreshToken, { userId, revokedAt: null }, { revokedAt: new Date() });
}

async function setPassword(ctx: AppContext, user: User, password: string) {
  user.passwordHash = await hashPassword(checkPassword(password));
  user.failedLogins = 0;
  user.lockedUntil = null;
  await revokeRefreshTokens(ctx, user.id);
}

/** Users changing their own password prove the old one; administrators need not. */
async function changePassword(ctx: AppContext, user: User, input: Input) {
  const newPassword = requireString(input, 'newPassword');
  if (user.id === ctx.caller.userId) {
    const old = requireString(input, 'oldPassword');
    if (!(await verifyPassword(old, user.passwordHash))) throw forbidden('The old password is not correct.');
  }
  await setPassword(ctx, user, newPassword);
  await ctx.em().flush();
}

async function newUser(ctx: AppContext, siteId: string | undefined, input: Input) {
  await ctx.requireAdmin();
  if (!siteId) throw badRequest("The mandatory field 'siteId' is missing.");
  const user = await createUser(ctx.em(), ctx.tenantId, siteId, input);
  if (input.mustChangePassword === true) {
    Object.assign(user, { passwordExpires: new Date(), passwordNeverExpires: false });
    await ctx.em().flush();
  }
  return user;
}

export const userResolvers = {
  User: {
    userid: (u: User) => u.userId,
    site: (u: User, _: unknown, ctx: AppContext) => ctx.loaders.site.load(u.siteId),
    groups: (u: User, _: unknown, ctx: AppContext) => ctx.loaders.groupsByUser.load(u.id),
    supervisors: (u: User, _: unknown, ctx: AppContext) => ctx.loaders.supervisorsByUser.load(u.id),
    supervisees: (u: User, _: unknown, ctx: AppContext) => ctx.loaders.superviseesByUser.load(u.id),
  },
  Query: {
    users: (_: unknown, args: ListArgs, ctx: AppContext, info: GraphQLResolveInfo) =>
      listPage(ctx, User, userFields(ctx, info), args, ALL, BY_USERID),
    me: (_: unknown, __: unknown, ctx: AppContext) => loadUser(ctx, ZERO_GUID),
    user: (_: unknown, { id }: { id: string }, ctx: AppContext) => loadUser(ctx, id),
    userGroups: async (_: unknown, { userId, ...args }: ListArgs & { userId: string }, ctx: AppContext, info: GraphQLResolveInfo) => {
      const user = await loadUser(ctx, userId);
      const memberships = { sql: 't.id in (select m.group_id from group_member m where m.tenant_id = t.tenant_id and m.user_id = ?)', params: [user.id] };
      return listPage(ctx, Group, groupFields(ctx, info), args, memberships, BY_NAME);
    },
    userSupervisors: async (_: unknown, { userId }: { userId: string }, ctx: AppContext) =>
      page(ctx.loaders.supervisorsByUser.load((await loadUser(ctx, userId)).id)),
    userSupervisees: async (_: unknown, { userId }: { userId: string }, ctx: AppContext) =>
      page(ctx.loaders.superviseesByUser.load((await loadUser(ctx, userId)).id)),
    userWebToken: async (_: unknown, a: { userId: string; expiration?: Date | null }, ctx: AppContext) => {
      const user = await loadUser(ctx, a.userId);
      await ctx.requireSelfOrAdmin(user.id);
      const now = Date.now();
      const wanted = a.expiration ? a.expiration.getTime() - now : WEB_TOKEN_TTL_MS;
      if (wanted <= 0) throw badRequest('expiration must be in the future.');
      const expires = new Date(now + Math.min(wanted, MAX_WEB_TOKEN_TTL_MS));
      const token = randomUUID();
      ctx.em().create(WebToken, { id: newId(), tenantId: ctx.tenantId, tokenHash: hashToken(token), userId: user.id, expiresAt: expires });
      await ctx.em().flush();
      return { webToken: token, expires };
    },
    getJwt: async (_: unknown, { audience }: { audience?: string | null }, ctx: AppContext) => {
      const { services, caller } = ctx;
      // This is how the Node clients renew: like the refresh grant, it ends with the account.
      const me = await ctx.loaders.user.load(caller.userId);
      if (!me?.enabled) throw unauthorized('This user account is disabled or deleted: log in again.');
      const jwt = await signAccessToken(services.keys, services.jwt, caller, audience ?? undefined);
      // An absolute instant, unlike record timestamps: a zone-less string would be read as client-local time.
      return { token: jwt.token, expires: jwt.expiresAt.toISOString() };
    },
  },
  Mutation: {
    createUser: (_: unknown, { siteId, input }: { siteId?: string | null; input: Input }, ctx: AppContext) =>
      newUser(ctx, guidOrUnset(siteId ?? input.siteId, 'siteId'), input),
    createSiteUser: async (_: unknown, { siteId, input }: { siteId: string; input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      // The site is in the path: an unknown one is a 404, not a bad body value.
      await loadSite(ctx, siteId);
      return newUser(ctx, siteId.toLowerCase(), input);
    },
    updateUser: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      const user = await editUser(ctx, id);
      if (!(await ctx.isAdmin())) {
        await ctx.requireSelfOrAdmin(user.id);
        const denied = Object.keys(input).filter((k) => !SELF_EDITABLE.has(k));
        if (denied.length) throw forbidden(`Only an administrator may change ${denied.join(', ')}.`);
      }
      if (input.newPassword !== undefined) await changePassword(ctx, user, input);
      const { newPassword: _n, oldPassword: _o, ...profile } = input;
      return Object.keys(profile).length ? updateUser(ctx, user, profile) : user;
    },
    updateSiteUser: async (_: unknown, a: { siteId: string; userId: string; input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const user = await editUser(ctx, a.userId);
      if (user.siteId !== a.siteId.toLowerCase()) throw notFound(`User '${a.userId}' was not found in site '${a.siteId}'.`);
      const siteId = guidOrUnset(a.input.siteId, 'siteId');
      if (siteId && siteId !== user.siteId) {
        await assertSiteExists(ctx.em(), siteId);
        user.siteId = siteId;
      }
      return updateUser(ctx, user, a.input);
    },
    deleteUser: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const user = await editUser(ctx, id);
      if (user.id === ctx.caller.userId) throw badRequest('You cannot delete your own account.');
      await ctx.em().remove(user).flush();
      return true;
    },
    changeUserPassword: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      const user = await editUser(ctx, id);
      await ctx.requireSelfOrAdmin(user.id);
      if (input.resetPassword === true) {
        throw badRequest('Password reset e-mails are not available on this service: send newPassword instead.');
      }
      await changePassword(ctx, user, input);
      return user;
    },
    changeUserId: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const user = await editUser(ctx, id);
      requireString(input, 'userId');
      return updateUser(ctx, user, { userid: input.userId });
    },
    addUserSupervisor: async (_: unknown, { userId, input }: { userId: string; input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const user = await loadUser(ctx, userId);
      const supervisor = await loadUser(ctx, requireGuid(input.supervisorId, 'supervisorId'));
      if (supervisor.id === user.id) throw badRequest('A user cannot supervise themselves.');
      await ctx.em().upsert(UserSupervisor, { userId: user.id, supervisorId: supervisor.id, tenantId: ctx.tenantId });
      return user;
    },
    removeUserSupervisor: async (_: unknown, a: { userId: string; supervisorId: string }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const removed = await ctx.em().nativeDelete(UserSupervisor, { userId: a.userId.toLowerCase(), supervisorId: a.supervisorId.toLowerCase() });
      if (!removed) throw notFound(`User '${a.supervisorId}' does not supervise '${a.userId}'.`);
      return true;
    },
  },
};
