/** Persisted data: the list (with `scope`), create, update and delete, and the pre-population read. Who may call each: schema/persisted-data.graphql. */
import type { AppContext } from '../context.js';
import { PersistedData } from '../entities/persisted-data.js';
import { notFound } from '../errors.js';
import { createPersistedData, updatePersistedData } from '../domain/persisted-data.js';
import { prefilledFields } from '../domain/prefill.js';
import type { ListArgs } from '../read/paging.js';
import { listPage, reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { sql, type Sql } from '../sql.js';

type Input = Record<string, unknown>;

const DEF = resource('PersistedData');

/** The list's condition for a `scope` (test/db/list-orders.test.ts EXPLAINs it). */
export const inScope = (scope: number | null | undefined): Sql[] => (scope == null ? [] : [sql`t.scope = ${scope}`]);

export const resolvers = {
  Query: {
    persistedDataList: (_: unknown, args: ListArgs & { scope?: number | null }, ctx: AppContext) =>
      listPage(ctx, DEF, args, inScope(args.scope)),
    newForm: (_: unknown, a: { id: string; persistedDataId?: string | null }, ctx: AppContext) => prefilledFields(ctx, a.id, a.persistedDataId),
  },
  Mutation: {
    createPersistedData: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => {
      const row = createPersistedData(ctx, input);
      await ctx.em().flush();
      return reread(ctx, DEF, row.id);
    },
    // The policy has checked the caller may change it.
    updatePersistedData: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      await updatePersistedData(ctx, id, input);
      await ctx.em().flush();
      return reread(ctx, DEF, id);
    },
    // The policy has checked the caller may delete it; a delete that finds nothing lost a race.
    deletePersistedData: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      const deleted = await ctx.em().nativeDelete(PersistedData, { id: id.toLowerCase() });
      if (deleted === 0) throw notFound(`Persisted data '${id}' was not found.`);
      return { success: true };
    },
  },
};
