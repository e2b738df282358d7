import type { GraphQLResolveInfo } from 'graphql';
import type { AppContext } from '../context.js';
import { Group, Site, User } from '../entities/index.js';
import { conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { maxLength, optionalString, requireGuid, requireString, textChanges } from '../domain/validate.js';
import { BY_NAME, BY_USERID, listPage, queryFieldMap, type ListArgs } from './lists.js';
import { ALL, editable } from './rows.js';
import { groupFields, loadGroup } from './group.js';
import { loadUser, userFields } from './user.js';
import { assertSiteExists } from '../domain/users.js';

type Input = Record<string, unknown>;

export const siteFields = (ctx: AppContext, info: GraphQLResolveInfo) => queryFieldMap(ctx, info, 'Site', Site);

export function loadSite(ctx: AppContext, id: string): Promise<Site> {
  return ctx.loaders.site.load(id.toLowerCase()).then((site) => {
    if (!site) throw notFound(`Site '${id}' was not found.`);
    return site;
  });
}

function siteType(input: Input): string | undefined {
  const t = optionalString(input, 'siteType') ?? optionalString(input, 'type');
  return t === undefined || t.trim() === '' ? undefined : maxLength(t.trim(), 64, 'siteType');
}

export const siteResolvers = {
  Site: {
    groups: (s: Site, _: unknown, ctx: AppContext) => ctx.loaders.groupsBySite.load(s.id),
    users: (s: Site, _: unknown, ctx: AppContext) => ctx.loaders.usersBySite.load(s.id),
  },
  Query: {
    sites: (_: unknown, args: ListArgs, ctx: AppContext, info: GraphQLResolveInfo) =>
      listPage(ctx, Site, siteFields(ctx, info), args, ALL, BY_NAME),
    site: (_: unknown, { id }: { id: string }, ctx: AppContext) => loadSite(ctx, id),
    siteGroups: async (_: unknown, { siteId, ...args }: ListArgs & { siteId: string }, ctx: AppContext, info: GraphQLResolveInfo) => {
      await loadSite(ctx, siteId);
      return listPage(ctx, Group, groupFields(ctx, info), args, { sql: 't.site_id = ?', params: [siteId.toLowerCase()] }, BY_NAME);
    },
    siteGroup: async (_: unknown, { siteId, groupId }: { siteId: string; groupId: string }, ctx: AppContext) => {
      await loadSite(ctx, siteId);
      const group = await loadGroup(ctx, groupId);
      if (group.siteId !== siteId.toLowerCase()) throw notFound(`Group '${groupId}' was not found in site '${siteId}'.`);
      return group;
    },
    siteUsers: async (_: unknown, { siteId, ...args }: ListArgs & { siteId: string }, ctx: AppContext, info: GraphQLResolveInfo) => {
      await loadSite(ctx, siteId);
      return listPage(ctx, User, userFields(ctx, info), args, { sql: 't.site_id = ?', params: [siteId.toLowerCase()] }, BY_USERID);
    },
    siteUser: async (_: unknown, { siteId, userId }: { siteId: string; userId: string }, ctx: AppContext) => {
      await loadSite(ctx, siteId);
      const user = await loadUser(ctx, userId);
      if (user.siteId !== siteId.toLowerCase()) throw notFound(`User '${userId}' was not found in site '${siteId}'.`);
      return user;
    },
  },
  Mutation: {
    createSite: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const name = maxLength(requireString(input, 'name').trim(), 256, 'name');
      const description = maxLength(requireString(input, 'description'), 4000, 'description');
      const type = siteType(input);
      const site = ctx.em().create(Site, {
        id: newId(),
        tenantId: ctx.tenantId,
        name,
        description,
        ...(type ? { siteType: type } : {}),
      });
      await ctx.em().flush();
      return site;
    },
    updateSite: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const site = await editable(ctx, Site, id, 'Site');
      // `type` is the .NET client's spelling of siteType.
      const change = textChanges({ ...input, siteType: input.siteType ?? input.type }, { name: 256, description: 4000, siteType: 64 });
      if (change.siteType !== undefined && change.siteType.trim() === '') delete change.siteType;
      Object.assign(site, change);
      await ctx.em().flush();
      return site;
    },
    deleteSite: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const site = await editable(ctx, Site, id, 'Site');
      if ((await ctx.em().count(User, { siteId: site.id })) > 0) {
        throw conflict(`Site '${site.name}' still has users: move them to another site first.`);
      }
      await ctx.em().nativeUpdate(Group, { siteId: site.id }, { siteId: null });
      await ctx.em().remove(site).flush();
      return true;
    },
    changeUserSite: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const user = await editable(ctx, User, requireGuid(input.userId, 'userId'), 'User');
      const siteId = requireGuid(input.newSiteId, 'newSiteId');
      await assertSiteExists(ctx.em(), siteId);
      user.siteId = siteId;
      await ctx.em().flush();
      return user;
    },
    changeGroupSite: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => {
      await ctx.requireAdmin();
      const group = await editable(ctx, Group, requireGuid(input.groupId, 'groupId'), 'Group');
      const siteId = requireGuid(input.newSiteId, 'newSiteId');
      await assertSiteExists(ctx.em(), siteId);
      group.siteId = siteId;
      await ctx.em().flush();
      return group;
    },
  },
};
