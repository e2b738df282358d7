/** File uploads and downloads (src/domain/files.ts). Who may call each: schema/file.graphql. */
import type { AppContext } from '../context.js';
import { recordAccess } from '../domain/document-access.js';
import { fileById, fileByQuery, fileContent, uploadFile, type FoundFile } from '../domain/files.js';
import { reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

/** A file read counts as opening its document (src/domain/document-access.ts). */
async function opened(ctx: AppContext, found: Promise<FoundFile>): Promise<FoundFile> {
  const f = await found;
  await recordAccess(ctx, f.documentId as string);
  return f;
}

export const resolvers = {
  Query: {
    file: async (_: unknown, { id }: { id: string }, ctx: AppContext) => fileContent(ctx, await opened(ctx, fileById(ctx, id))),
    fileByQuery: async (_: unknown, { q }: { q: string }, ctx: AppContext) => fileContent(ctx, await opened(ctx, fileByQuery(ctx, q))),
    documentFile: (_: unknown, { id }: { id: string }, ctx: AppContext) => opened(ctx, fileById(ctx, id)),
    documentFileByQuery: (_: unknown, { q }: { q: string }, ctx: AppContext) => opened(ctx, fileByQuery(ctx, q)),
  },
  Mutation: {
    uploadFile: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AppContext) => reread(ctx, resource('Document'), await uploadFile(ctx, input)),
  },
};
