/** Site writes (reads come from src/resources/site.ts). Who may call each: schema/site.graphql. */
import type { AppContext } from '../context.js';
import { Group } from '../entities/group.js';
import { Site } from '../entities/site.js';
import { User } from '../entities/user.js';
import { conflict } from '../errors.js';
import { newId, requireGuid } from '../ids.js';
import { editable } from '../domain/editable.js';
import { assertSiteExists } from '../domain/users.js';
import { maxLength, optionalString, requireName, requireText, textChanges } from '../domain/validate.js';
import { reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

type Input = Record<string, unknown>;

function siteType(input: Input): string | undefined {
  const t = optionalString(input, 'siteType') ?? optionalString(input, 'type');
  return t === undefined || t.trim() === '' ? undefined : maxLength(t.trim(), 64, 'siteType');
}

export const resolvers = {
  Mutation: {
    createSite: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => {
      const name = requireName(input, 256);
      const description = maxLength(requireText(input, 'description'), 4000, 'description');
      const type = siteType(input);
      const site = ctx.em().create(Site, {
        id: newId(),
        name,
        description,
        ...(type ? { siteType: type } : {}),
      });
      await ctx.em().flush();
      return reread(ctx, resource('Site'), site.id);
    },
    updateSite: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      const site = await editable(ctx, Site, id, 'Site');
      // `type` is the .NET client's spelling of siteType.
      const change = textChanges({ ...input, siteType: input.siteType ?? input.type }, { name: 256, description: 4000, siteType: 64 }, site);
      if (change.siteType !== undefined && change.siteType.trim() === '') delete change.siteType;
      Object.assign(site, change);
      await ctx.em().flush();
      return reread(ctx, resource('Site'), site.id);
    },
    deleteSite: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      // Locked: of two deletes at once, the second finds it gone (404).
      const site = await editable(ctx, Site, id, 'Site', true);
      if ((await ctx.em().count(User, { siteId: site.id })) > 0) {
        throw conflict(`Site '${site.name}' still has users: move them to another site first.`);
      }
      // Its groups lose their site through the foreign key (`on delete set null (site_id)`).
      await ctx.em().remove(site).flush();
      return true;
    },
    changeUserSite: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => {
      const user = await editable(ctx, User, requireGuid(input.userId, 'userId'), 'User', false, 'userId');
      const siteId = requireGuid(input.newSiteId, 'newSiteId');
      await assertSiteExists(ctx.em(), ctx.tenantId, siteId, 'newSiteId');
      user.siteId = siteId;
      await ctx.em().flush();
      return reread(ctx, resource('User'), user.id);
    },
    changeGroupSite: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => {
      const group = await editable(ctx, Group, requireGuid(input.groupId, 'groupId'), 'Group', false, 'groupId');
      const siteId = requireGuid(input.newSiteId, 'newSiteId');
      await assertSiteExists(ctx.em(), ctx.tenantId, siteId, 'newSiteId');
      group.siteId = siteId;
      await ctx.em().flush();
      return reread(ctx, resource('Group'), group.id);
    },
  },
};
