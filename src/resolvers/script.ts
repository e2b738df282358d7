/** Scripts: managing them and running one on the outside process (src/domain/scripts.ts). Who may call each: schema/script.graphql. */
import type { AppContext } from '../context.js';
import { createScript, deleteScript, runScript, updateScript, type RunArgs } from '../domain/scripts.js';
import { reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

type Input = Record<string, unknown>;

const SCRIPT = resource('Script');

export const resolvers = {
  Mutation: {
    createScript: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => reread(ctx, SCRIPT, await createScript(ctx, input)),
    updateScript: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      await updateScript(ctx, id, input);
      return reread(ctx, SCRIPT, id.toLowerCase());
    },
    deleteScript: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      await deleteScript(ctx, id);
      return { success: true };
    },
    runScript: (_: unknown, args: RunArgs, ctx: AppContext) => runScript(ctx, args),
  },
};
