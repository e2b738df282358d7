/** Group and membership writes (reads come from src/resources/group.ts). Who may call each: schema/group.graphql. */
import type { AppContext } from '../context.js';
import { Group, GroupMember } from '../entities/group.js';
import { User } from '../entities/user.js';
import { badRequest, conflict, namedList, notFound, shownValue } from '../errors.js';
import { guidOrUnset, isGuid, newId } from '../ids.js';
import { ADMIN_GROUP } from '../roles.js';
import { accessibleIds } from '../permissions/row-checks.js';
import { assertAdminsRemain, LAST_ADMIN } from '../domain/admins.js';
import { editable } from '../domain/editable.js';
import { nameEquals } from '../db/lookup.js';
import { assertOneSite, assertSiteExists, pathSite } from '../domain/users.js';
import { maxLength, nameKey, requireName, requireText, textChanges, uniquely } from '../domain/validate.js';
import { insertRows } from '../db/tenant-writes.js';
import { heldRow, idKey, reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

type Input = Record<string, unknown>;

const GROUP = resource('Group');
const USER = resource('User');

async function assertNameFree(ctx: AppContext, name: string, exceptId?: string) {
  const taken = await ctx.em().findOne(Group, nameEquals('name', name), { fields: ['id'] });
  if (taken && taken.id !== exceptId) throw conflict(`A group named '${name}' already exists.`, { field: 'name' });
}

async function createGroup(ctx: AppContext, input: Input, siteId: string | undefined) {
  const name = requireName(input, 256);
  const description = maxLength(requireText(input, 'description'), 4000, 'description');
  if (siteId) await assertSiteExists(ctx.em(), ctx.tenantId, siteId);
  await assertNameFree(ctx, name);
  const group = ctx.em().create(Group, { id: newId(), siteId: siteId ?? null, name, description });
  await uniquely(`A group named '${name}'`, () => ctx.em().flush());
  return reread(ctx, GROUP, group.id);
}

/** Admin rights come from the Administrators group: it may not be renamed, deleted or emptied. */
const isAdminGroup = (g: { name?: unknown }) => nameKey(String(g.name)) === nameKey(ADMIN_GROUP);

/** Legacy clients change the name and the description in separate calls: both are optional. */
async function updateGroup(ctx: AppContext, group: Group, input: Input) {
  const change = textChanges(input, { name: 256, description: 4000 }, group, ['siteId']);
  if (change.name !== undefined && isAdminGroup(group) && nameKey(change.name) !== nameKey(group.name)) {
    throw conflict(`The ${ADMIN_GROUP} group cannot be renamed: it grants the administrator role.`, { field: 'name' });
  }
  if (change.name !== undefined) await assertNameFree(ctx, change.name, group.id);
  // A siteId moves the group, as changegroupsite does and as a user's moves the user; the all-zero GUID or none leaves it.
  const siteId = guidOrUnset(input.siteId, 'siteId');
  if (siteId && siteId !== group.siteId) {
    await assertSiteExists(ctx.em(), ctx.tenantId, siteId);
    group.siteId = siteId;
  }
  Object.assign(group, change);
  await uniquely(`A group named '${group.name}'`, () => ctx.em().flush());
  return reread(ctx, GROUP, group.id);
}

/** `field`: the body's key that sent `userIds` (`memberKey`), named by the 404 of an unknown one. */
async function addMembers(ctx: AppContext, groupId: string, userIds: string[], field?: string) {
  const group = await heldRow(ctx, GROUP, groupId);
  // Held against their delete, as the group is: a user deleted meanwhile is the 404 of an unknown one.
  const found = await accessibleIds(ctx, resource('User'), userIds, 'change', ctx.caller.userId, true);
  const missing = userIds.filter((id) => !found.has(id));
  if (missing.length) throw notFound(missing.length === 1 ? `User '${missing[0]}' was not found.` : `Users ${namedList(missing)} were not found.`, { field });
  await insertRows(ctx.reader, 'group_member', userIds.map((userId) => ({ group_id: group.id, user_id: userId })), true);
  return userIds.map((id) => ({ dataType: 'NotifyUser', id }));
}

/** The key that holds the members' ids: `userIds`, else `id`. */
const memberKey = (input: Input): string => (input.userIds == null ? 'id' : 'userIds');

/** `id`, or `userIds` as a comma-separated string or an array. */
function memberIds(input: Input): string[] {
  // Both sent: one of them would be dropped without a word.
  if (input.id != null && input.userIds != null) throw badRequest("Send the user to add as 'id', or the users as 'userIds', not both.", { field: 'userIds' });
  const key = memberKey(input);
  const raw = input[key];
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : raw == null ? [] : [raw];
  const ids = list.map((s) => (typeof s === 'string' ? s.trim() : s)).filter((s) => s !== '');
  if (ids.length === 0) throw badRequest(raw == null ? "The mandatory field 'id' (or 'userIds') is missing." : `The field '${key}' names no user.`, { field: key });
  const bad = ids.find((id) => !isGuid(id));
  if (bad !== undefined) throw badRequest(`User ids must be GUIDs; ${shownValue(bad)} is not one.`, { field: key });
  return [...new Set(ids.map((i) => (i as string).toLowerCase()))];
}

async function removeMember(ctx: AppContext, group: Record<string, unknown>, userId: string | undefined, asked: string) {
  if (userId && isAdminGroup(group)) await assertAdminsRemain(ctx, [userId], `${LAST_ADMIN}: add another administrator first.`);
  const removed = userId ? await ctx.em().nativeDelete(GroupMember, { groupId: group.id as string, userId }) : 0;
  if (!removed) throw notFound(`User '${asked}' is not a member of group '${group.name}'.`);
  return true;
}

export const resolvers = {
  Mutation: {
    createGroup: (_: unknown, { input }: { input: Input }, ctx: AppContext) =>
      createGroup(ctx, input, guidOrUnset(input.siteId, 'siteId')),
    createSiteGroup: async (_: unknown, { siteId, input }: { siteId: string; input: Input }, ctx: AppContext) => {
      assertOneSite(siteId, 'path', input);
      // The site is in the path: an unknown one, or one deleted meanwhile, is a 404, not a bad body value.
      return createGroup(ctx, input, await pathSite(ctx.em(), siteId));
    },
    updateGroup: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) =>
      updateGroup(ctx, await editable(ctx, Group, id, 'Group'), input),
    updateSiteGroup: async (_: unknown, a: { siteId: string; groupId: string; input: Input }, ctx: AppContext) => {
      const group = await editable(ctx, Group, a.groupId, 'Group');
      if (group.siteId !== a.siteId.toLowerCase()) throw notFound(`Group '${a.groupId}' was not found in site '${a.siteId}'.`);
      return updateGroup(ctx, group, a.input);
    },
    deleteGroup: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      // Locked: of two deletes at once, the second finds it gone (404).
      const group = await editable(ctx, Group, id, 'Group', true);
      if (isAdminGroup(group)) throw conflict(`The ${ADMIN_GROUP} group cannot be deleted: it grants the administrator role.`);
      // Its memberships go with it (the foreign key cascades), in the same statement.
      await ctx.em().remove(group).flush();
      return true;
    },
    putGroupUser: (_: unknown, { groupId, userId }: { groupId: string; userId: string }, ctx: AppContext) =>
      addMembers(ctx, groupId, [idKey(ctx, USER, userId)]),
    addGroupUsers: (_: unknown, { groupId, input }: { groupId: string; input: Input }, ctx: AppContext) =>
      addMembers(ctx, groupId, memberIds(input), memberKey(input)),
    removeGroupUser: async (_: unknown, { groupId, userId }: { groupId: string; userId: string }, ctx: AppContext) =>
      removeMember(ctx, await heldRow(ctx, GROUP, groupId), idKey(ctx, USER, userId), userId),
    removeGroupUserByName: async (_: unknown, a: { groupId: string; userName: string }, ctx: AppContext) => {
      const group = await heldRow(ctx, GROUP, a.groupId);
      const user = await ctx.em().findOne(User, nameEquals('user_id', a.userName), { fields: ['id'] });
      return removeMember(ctx, group, user?.id, a.userName);
    },
  },
};
