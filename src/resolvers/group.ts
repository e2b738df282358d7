import type { GraphQLResolveInfo } from 'graphql';
import type { AppContext } from '../context.js';
import { Group, GroupMember, User } from '../entities/index.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { isGuid, newId, ZERO_GUID } from '../ids.js';
import { escapeLike, assertSiteExists } from '../domain/users.js';
import { guidOrUnset, maxLength, requireString, textChanges, uniquely } from '../domain/validate.js';
import { ADMIN_GROUP } from '../auth/roles.js';
import { BY_NAME, BY_USERID, listPage, queryFieldMap, type ListArgs } from './lists.js';
import { ALL, editable } from './rows.js';
import { loadUser, userFields } from './user.js';
import { loadSite } from './site.js';

type Input = Record<string, unknown>;

export const groupFields = (ctx: AppContext, info: GraphQLResolveInfo) => queryFieldMap(ctx, info, 'Group', Group);

export function loadGroup(ctx: AppContext, id: string): Promise<Group> {
  return ctx.loaders.group.load(id.toLowerCase()).then((group) => {
    if (!group) throw notFound(`Group '${id}' was not found.`);
    return group;
  });
}

async function assertNameFree(ctx: AppContext, name: string, exceptId?: string) {
  const taken = await ctx.em().findOne(Group, { name: { $ilike: escapeLike(name) } }, { fields: ['id'] });
  if (taken && taken.id !== exceptId) throw conflict(`A group named '${name}' already exists.`);
}

async function createGroup(ctx: AppContext, input: Input, siteId: string | undefined) {
  await ctx.requireAdmin();
  const name = maxLength(requireString(input, 'name').trim(), 256, 'name');
  const description = maxLength(requireString(input, 'description'), 4000, 'description');
  if (siteId) await assertSiteExists(ctx.em(), siteId);
  await assertNameFree(ctx, name);
  const group = ctx.em().create(Group, { id: newId(), tenantId: ctx.tenantId, siteId: siteId ?? null, name, description });
  await uniquely(`A group named '${name}'`, () => ctx.em().flush());
  return group;
}

/** Legacy clients change the name and the description in separate calls: both are optional. */
/** Admin rights come from the Administrators group: it may not be renamed, deleted or emptied. */
const isAdminGroup = (g: Group) => g.name.toLowerCase() === ADMIN_GROUP.toLowerCase();

async function assertNotLastAdmin(ctx: AppContext, group: Group, leaving: number) {
  if (!isAdminGroup(group)) return;
  const members = await ctx.em().count(GroupMember, { groupId: group.id });
  if (members - leaving < 1) throw conflict(`The ${ADMIN_GROUP} group must keep at least one member.`);
}

async function updateGroup(ctx: AppContext, group: Group, input: Input) {
  const change = textChanges(input, { name: 256, description: 4000 });
  if (change.name !== undefined && isAdminGroup(group) && change.name.toLowerCase() !== group.name.toLowerCase()) {
    throw conflict(`The ${ADMIN_GROUP} group cannot be renamed: it grants the administrator role.`);
  }
  if (change.name !== undefined) await assertNameFree(ctx, change.name, group.id);
  Object.assign(group, change);
  await uniquely(`A group named '${group.name}'`, () => ctx.em().flush());
  return group;
}

async function addMembers(ctx: AppContext, groupId: string, userIds: string[]) {
  await ctx.requireAdmin();
  const group = await loadGroup(ctx, groupId);
  const users = await ctx.loaders.user.loadMany(userIds);
  const missing = userIds.filter((_, i) => !users[i] || users[i] instanceof Error);
  if (missing.length) throw notFound(`User ${missing.map((m) => `'${m}'`).join(', ')} was not found.`);
  await ctx.em().getConnection().execute(
    `insert into group_member (group_id, user_id, tenant_id)
       select ?, u, ? from unnest(array[?]::uuid[]) as u on conflict do nothing`,
    [group.id, ctx.tenantId, userIds],
  );
  return userIds.map((id) => ({ dataType: 'NotifyUser', id }));
}

/** `id`, or `userIds` as a comma-separated string or an array. */
function memberIds(input: Input): string[] {
  const raw = input.userIds ?? input.id;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : raw == null ? [] : [raw];
  const ids = list.map((s) => (typeof s === 'string' ? s.trim() : s)).filter((s) => s !== '');
  if (ids.length === 0) throw badRequest("The mandatory field 'id' (or 'userIds') is missing.");
  const bad = ids.find((id) => !isGuid(id));
  if (bad !== undefined) throw badRequest(`User ids must be GUIDs; '${String(bad).slice(0, 64)}' is not one.`);
  return [...new Set(ids.map((i) => (i as string).toLowerCase()))];
}

export const groupResolvers = {
  Group: {
    siteId: (g: Group) => g.siteId ?? ZERO_GUID,
    site: (g: Group, _: unknown, ctx: AppContext) => (g.siteId ? ctx.loaders.site.load(g.siteId) : null),
    users: (g: Group, _: unknown, ctx: AppContext) => ctx.loaders.usersByGroup.load(g.id),
  },
  Query: {
    groups: (_: unknown, args: ListArgs, ctx: AppContext, info: GraphQLResolveInfo) =>
      listPage(ctx, Group, groupFields(ctx, info), args, ALL, BY_NAME),
    group: (_: unknown, { id }: { id: string }, ctx: AppContext) => loadGroup(ctx, id),
    groupUsers: async (_: unknown, { groupId, ...args }: ListArgs & { groupId: string }, ctx: AppContext, info: GraphQLResolveInfo) => {
      const group = await loadGroup(ctx, groupId);
      const members = { sql: 't.id in (select m.user_id from group_member m where m.tenant_id = t.tenant_id and m.group_id = ?)', params: [group.id] };
      return listPage(ctx, User, userFields(ctx, info), args, members, BY_USERID);
    },
    groupUser: async (_: unknown, { groupId, userId }: { groupId: string; userId: string }, ctx: AppContext) => {
      const group = await loadGroup(ctx, groupId);
      const user = await loadUser(ctx, userId);
      const member = await ctx.em().count(GroupMember, { groupId: group.id, userId: user.id });
      if (!member) throw notFound(`User '${userId}' is not a member of group '${group.name}'.`);
      return user;
    },
  },
  Mutation: {
    createGroup: (_: unknown, { input }: { input: Input }, ctx: AppContext) =>
      createGroup(ctx, input, guidOrUnset(input.siteId, 'siteId')),
    createSiteGroup: async (_: unknown, { siteId, input }: { siteId: string; input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      // The site is in the path: an unknown one is a 404, not a bad body value.
      await loadSite(ctx, siteId);
      return createGroup(ctx, input, siteId.toLowerCase());
    },
    updateGroup: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      return updateGroup(ctx, await editable(ctx, Group, id, 'Group'), input);
    },
    updateSiteGroup: async (_: unknown, a: { siteId: string; groupId: string; input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const group = await editable(ctx, Group, a.groupId, 'Group');
      if (group.siteId !== a.siteId.toLowerCase()) throw notFound(`Group '${a.groupId}' was not found in site '${a.siteId}'.`);
      return updateGroup(ctx, group, a.input);
    },
    deleteGroup: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const group = await editable(ctx, Group, id, 'Group');
      if (isAdminGroup(group)) throw conflict(`The ${ADMIN_GROUP} group cannot be deleted: it grants the administrator role.`);
      await ctx.em().nativeDelete(GroupMember, { groupId: group.id });
      await ctx.em().remove(group).flush();
      return true;
    },
    putGroupUser: (_: unknown, { groupId, userId }: { groupId: string; userId: string }, ctx: AppContext) =>
      addMembers(ctx, groupId, [userId.toLowerCase()]),
    addGroupUsers: (_: unknown, { groupId, input }: { groupId: string; input: Input }, ctx: AppContext) =>
      addMembers(ctx, groupId, memberIds(input)),
    removeGroupUser: async (_: unknown, { groupId, userId }: { groupId: string; userId: string }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const group = await loadGroup(ctx, groupId);
      await assertNotLastAdmin(ctx, group, 1);
      const removed = await ctx.em().nativeDelete(GroupMember, { groupId: group.id, userId: userId.toLowerCase() });
      if (!removed) throw notFound(`User '${userId}' is not a member of group '${group.name}'.`);
      return true;
    },
    removeGroupUserByName: async (_: unknown, a: { groupId: string; userName: string }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const group = await loadGroup(ctx, a.groupId);
      const user = await ctx.em().findOne(User, { userId: { $ilike: escapeLike(a.userName) } }, { fields: ['id'] });
      if (user) await assertNotLastAdmin(ctx, group, 1);
      const removed = user ? await ctx.em().nativeDelete(GroupMember, { groupId: group.id, userId: user.id }) : 0;
      if (!removed) throw notFound(`User '${a.userName}' is not a member of group '${group.name}'.`);
      return true;
    },
  },
};
