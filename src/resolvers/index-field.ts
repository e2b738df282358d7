/** Index field writes and a folder's field by its two ids (src/domain/index-fields.ts). Who may call each: schema/index-field.graphql. */
import type { AppContext } from '../context.js';
import {
  createIndexField,
  deleteIndexField,
  folderIndexField,
  moveIndexFieldAfter,
  relateToFolder,
  removeFromFolder,
  updateFolderIndexField,
  updateIndexField,
} from '../domain/index-fields.js';
import { notFound } from '../errors.js';
import { loadRow, reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';

type Input = Record<string, unknown>;
type InFolder = { folderId: string; id: string };

const DEFINITION = resource('IndexFieldDefinition');

/** The folder's field, or a 404 that says whether the folder or the field is missing. */
async function inFolder(ctx: AppContext, { folderId, id }: InFolder) {
  const row = await folderIndexField(ctx, folderId, id);
  if (row) return row;
  await loadRow(ctx, resource('Folder'), folderId);
  throw notFound(`Index field '${id}' is not in folder '${folderId}'.`);
}

export const resolvers = {
  Query: {
    folderIndexField: (_: unknown, a: InFolder, ctx: AppContext) => inFolder(ctx, a),
  },
  Mutation: {
    createIndexField: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => reread(ctx, DEFINITION, await createIndexField(ctx, input)),
    updateIndexField: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      await updateIndexField(ctx, id, input);
      return reread(ctx, DEFINITION, id.toLowerCase());
    },
    deleteIndexField: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      await deleteIndexField(ctx, id);
      return true;
    },
    moveIndexFieldAfter: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => reread(ctx, DEFINITION, await moveIndexFieldAfter(ctx, input)),
    relateIndexFieldToFolder: async (_: unknown, { id, folderId }: InFolder, ctx: AppContext) => {
      await relateToFolder(ctx, id, folderId);
      return inFolder(ctx, { folderId, id });
    },
    updateFolderIndexField: async (_: unknown, { folderId, id, input }: InFolder & { input: Input }, ctx: AppContext) => {
      await updateFolderIndexField(ctx, folderId, id, input);
      return inFolder(ctx, { folderId, id });
    },
    removeFolderIndexField: async (_: unknown, a: InFolder, ctx: AppContext) => {
      await removeFromFolder(ctx, a.folderId, a.id);
      return true;
    },
  },
};
