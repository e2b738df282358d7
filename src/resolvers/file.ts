/** File uploads and downloads (src/domain/files.ts). Who may call each: schema/file.graphql. */
import type { AppContext } from '../context.js';
import { fileById, fileByQuery, fileContent, uploadFile } from '../domain/files.js';
import { reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

export const resolvers = {
  Query: {
    file: async (_: unknown, { id }: { id: string }, ctx: AppContext) => fileContent(ctx, await fileById(ctx, id)),
    fileByQuery: async (_: unknown, { q }: { q: string }, ctx: AppContext) => fileContent(ctx, await fileByQuery(ctx, q)),
    documentFile: (_: unknown, { id }: { id: string }, ctx: AppContext) => fileById(ctx, id),
    documentFileByQuery: (_: unknown, { q }: { q: string }, ctx: AppContext) => fileByQuery(ctx, q),
  },
  Mutation: {
    uploadFile: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AppContext) => reread(ctx, resource('Document'), await uploadFile(ctx, input)),
  },
};
