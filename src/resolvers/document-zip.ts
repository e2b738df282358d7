/** Zip files of documents (src/domain/document-zips.ts). Who may call each: schema/document-zip.graphql. */
import type { AppContext } from '../context.js';
import { createDocumentZip } from '../domain/document-zips.js';
import { reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

export const resolvers = {
  Mutation: {
    createDocumentZipFile: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AppContext) =>
      reread(ctx, resource('DocumentZip'), await createDocumentZip(ctx, input)),
  },
};
