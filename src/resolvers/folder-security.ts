/** Folder security members, by folder and through the generic `securitymembers` routes (src/domain/folder-security.ts). Who may call each: schema/folder-security.graphql. */
import type { AppContext } from '../context.js';
import { applyActions, removeMember, setMember } from '../domain/folder-security.js';
import { notFound } from '../errors.js';
import { requireGuid } from '../ids.js';
import type { ListArgs } from '../read/paging.js';
import { underRelation } from '../read/parent-keys.js';
import { listPage, loadRow } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql } from '../sql.js';

type Input = Record<string, unknown>;

const MEMBER = resource('SecurityMember');

/** The member's row on the folder, as read back after a change. */
async function memberOf(ctx: AppContext, folderId: string, memberId: string) {
  const [row] = await selectRows(ctx.reader, MEMBER, { where: [sql`t.folder_id = ${folderId}`, sql`t.member_id = ${memberId.toLowerCase()}`] });
  if (!row) throw notFound(`'${memberId}' is not a security member of folder '${folderId}'.`);
  return row;
}

export const resolvers = {
  Query: {
    folderSecurityMember: async (_: unknown, a: { folderId: string; memberId: string }, ctx: AppContext) => {
      const folder = await loadRow(ctx, resource('Folder'), a.folderId);
      return memberOf(ctx, folder.id as string, a.memberId);
    },
    securityMembers: async (_: unknown, a: ListArgs & { parentId: string }, ctx: AppContext) => {
      const folder = await loadRow(ctx, resource('Folder'), a.parentId);
      return listPage(ctx, MEMBER, a, [underRelation(resource('Folder'), 'securityMembers', folder.id as string)]);
    },
  },
  Mutation: {
    setFolderSecurityMember: async (_: unknown, a: { folderId: string; memberId: string; input: Input }, ctx: AppContext) => {
      const { folderId, successCount } = await setMember(ctx, a.folderId, a.memberId, a.input);
      return { successCount, member: await memberOf(ctx, folderId, a.memberId) };
    },
    removeFolderSecurityMember: async (_: unknown, a: { folderId: string; memberId: string; cascadeSecurityChanges?: boolean | null }, ctx: AppContext) => ({
      successCount: await removeMember(ctx, a.folderId, a.memberId, a.cascadeSecurityChanges),
    }),
    updateFolderSecurityMembers: async (_: unknown, a: { folderId: string; input: Input }, ctx: AppContext) => ({
      successCount: await applyActions(ctx, a.folderId, a.input),
    }),
    addSecurityMember: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => {
      const [parentId, memberId] = [requireGuid(input.parentId, 'parentId'), requireGuid(input.memberId, 'memberId')];
      return memberOf(ctx, (await setMember(ctx, parentId, memberId, input)).folderId, memberId);
    },
    removeSecurityMember: async (_: unknown, a: { parentId: string; memberId: string }, ctx: AppContext) => {
      await removeMember(ctx, a.parentId, a.memberId, false);
      return true;
    },
  },
};
