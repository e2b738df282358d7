/** Zip files of documents (src/domain/document-zips.ts). Who may call each: schema/document-zip.graphql. */
import type { AppContext } from '../context.js';
import { createDocumentZip } from '../domain/document-zips.js';
import { conflict } from '../errors.js';
import { reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

export const resolvers = {
  Query: {
    readyDocumentZipFile: async (_: unknown, { downloadKey }: { downloadKey: string }, ctx: AppContext) => {
      const zip = await reread(ctx, resource('DocumentZip'), downloadKey);
      if (zip.status === 'Pending') throw conflict('The zip is still being built: ask documents/GetDocumentZipFileStatus until its status is Ready.');
      if (zip.status === 'Failed') throw conflict('The zip could not be built (a file could not be read): ask for a new one.');
      return zip;
    },
  },
  Mutation: {
    createDocumentZipFile: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AppContext) =>
      reread(ctx, resource('DocumentZip'), await createDocumentZip(ctx, input)),
  },
};
