/** Saved searches: keeping them and running them (src/domain/saved-searches.ts). Who may call each: schema/saved-search.graphql. */
import type { AppContext } from '../context.js';
import { createSavedSearch, deleteSavedSearch, savedSearchConditions, updateSavedSearch } from '../domain/saved-searches.js';
import type { ListArgs } from '../read/paging.js';
import { listPage, reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { sql } from '../sql.js';
import { ZERO_GUID } from '../ids.js';

type Input = Record<string, unknown>;
type Row = Record<string, unknown>;
type RunArgs = ListArgs & { savedSearchId: string };

const SAVED_SEARCH = resource('SavedSearch');

/** Whether the reader may see the search's folder (none: yes); a hidden one reads as no folder (decisions.md, "Folder security"). */
async function folderSeen(ctx: AppContext, search: Row): Promise<boolean> {
  return search.folderId === ZERO_GUID || (await ctx.loaders.byId(resource('Folder')).load(search.folderId as string)) !== undefined;
}

export const resolvers = {
  Query: {
    savedSearchDocuments: async (_: unknown, args: RunArgs, ctx: AppContext) => {
      const { where } = await savedSearchConditions(ctx, args.savedSearchId);
      return listPage(ctx, resource('Document'), args, where);
    },
    savedSearchIndexFields: async (_: unknown, args: RunArgs, ctx: AppContext) => {
      const { search } = await savedSearchConditions(ctx, args.savedSearchId);
      const folder = search.folderId as string;
      // A hidden folder's fields are not shown: an empty list.
      const where = !(await folderSeen(ctx, search))
        ? [sql`false`]
        : folder === ZERO_GUID
          ? []
          : [sql`exists (select 1 from folder_index_field l where l.tenant_id = t.tenant_id and l.folder_id = ${folder} and l.field_id = t.id)`];
      return listPage(ctx, resource('IndexFieldDefinition'), args, where);
    },
  },
  SavedSearch: {
    folderId: async (s: Row, _: unknown, ctx: AppContext) => ((await folderSeen(ctx, s)) ? s.folderId : ZERO_GUID),
    folderPath: async (s: Row, _: unknown, ctx: AppContext) => ((await folderSeen(ctx, s)) ? s.folderPath : ''),
  },
  Mutation: {
    createSavedSearch: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => reread(ctx, SAVED_SEARCH, await createSavedSearch(ctx, input)),
    updateSavedSearch: async (_: unknown, { asid, input }: { asid: string; input: Input }, ctx: AppContext) => {
      await updateSavedSearch(ctx, asid, input);
      return reread(ctx, SAVED_SEARCH, asid.toLowerCase());
    },
    deleteSavedSearch: async (_: unknown, { asid }: { asid: string }, ctx: AppContext) => {
      await deleteSavedSearch(ctx, asid);
      return { success: true };
    },
  },
};
