/** Document types (src/domain/document-types.ts). Who may call each: schema/document-type.graphql. */
import type { AppContext } from '../context.js';
import { createDocumentType, deleteDocumentType, updateDocumentType } from '../domain/document-types.js';
import { reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

type Input = Record<string, unknown>;

const DOCUMENT_TYPE = resource('DocumentType');

export const resolvers = {
  Mutation: {
    createDocumentType: async (_: unknown, { input }: { input: Input }, ctx: AppContext) =>
      reread(ctx, DOCUMENT_TYPE, await createDocumentType(ctx, input)),
    updateDocumentType: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      await updateDocumentType(ctx, id, input);
      return reread(ctx, DOCUMENT_TYPE, id.toLowerCase());
    },
    deleteDocumentType: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      await deleteDocumentType(ctx, id);
      return { success: true };
    },
  },
};
