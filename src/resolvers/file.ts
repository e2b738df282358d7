/** File uploads and downloads (src/domain/files.ts). Who may call each: schema/file.graphql. */
import type { AppContext } from '../context.js';
import { fileById, fileByQuery, uploadFile } from '../domain/files.js';
import { reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

export const resolvers = {
  Query: {
    file: (_: unknown, { id }: { id: string }, ctx: AppContext) => fileById(ctx, id),
    fileByQuery: (_: unknown, { q }: { q: string }, ctx: AppContext) => fileByQuery(ctx, q),
  },
  Mutation: {
    uploadFile: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AppContext) => reread(ctx, resource('Document'), await uploadFile(ctx, input)),
  },
};
