/** Folder reads by path, the top level, and the writes (src/domain/folders.ts). Who may call each: schema/folder.graphql. */
import type { AppContext } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { copyFolder, moveFolder } from '../domain/folder-moves.js';
import { createFolder, createFolderPath, deleteFolder, folderAt, joinPath, pathSegments, updateFolder, type FolderRow } from '../domain/folders.js';
import type { ListArgs } from '../read/paging.js';
import { listPage, loadRow, matchingQ, reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { sql } from '../sql.js';

type Input = Record<string, unknown>;

const FOLDER = resource('Folder');

/** The top folders' condition (test/db/list-orders.test.ts EXPLAINs it). */
export const TOP_FOLDERS = sql`t.parent_id is null`;


export const resolvers = {
  Query: {
    folderByPath: async (_: unknown, a: { folderPath: string; q?: string | null }, ctx: AppContext) => {
      const segments = pathSegments(a.folderPath);
      if (segments.length === 0) throw badRequest("'/' names the library, not a folder: GET folders?folderPath=/ lists its top-level folders (GraphQL: topFolders).", { field: 'folderPath' });
      const folder = await folderAt(ctx, joinPath(segments));
      if (!folder) throw notFound(`No folder has the path '${joinPath(segments)}'.`);
      return matchingQ(ctx, FOLDER, folder, a.q, a.folderPath);
    },
    topFolders: (_: unknown, args: ListArgs, ctx: AppContext) => listPage(ctx, FOLDER, args, [TOP_FOLDERS]),
  },
  Mutation: {
    createFolder: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => {
      const path = input.folderPath as string | null | undefined;
      const folder = path ? await createFolderPath(ctx, path, input) : await createFolder(ctx, undefined, input);
      return reread(ctx, FOLDER, folder.id);
    },
    createChildFolder: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      const parent = (await loadRow(ctx, FOLDER, id)) as FolderRow;
      return reread(ctx, FOLDER, (await createFolder(ctx, parent, input)).id);
    },
    updateFolder: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      await updateFolder(ctx, id, input);
      return reread(ctx, FOLDER, id.toLowerCase());
    },
    moveFolder: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => reread(ctx, FOLDER, await moveFolder(ctx, input)),
    copyFolder: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => reread(ctx, FOLDER, await copyFolder(ctx, input)),
    deleteFolder: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      await deleteFolder(ctx, id);
      return true;
    },
  },
};
