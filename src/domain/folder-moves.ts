/**
 * Moving and copying a folder with everything under it (docs/decisions.md, "Folders"). The
 * clients name the folder by `sourceFolderId` or `sourceFolderPath` and the destination folder,
 * which it goes into, by `targetFolderId` or `targetFolderPath` (made with its missing
 * ancestors; `/` is the top level).
 */
import type { AppContext } from '../context.js';
import { copyRows, insertRows, mapped, updateRows } from '../db/tenant-writes.js';
import { namingTaken } from '../db/constraint-errors.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { guidOrUnset, newId } from '../ids.js';
import { resource } from '../read/registry.js';
import { countRows, listedOf, run, selectRows } from '../read/rows.js';
import { raw, sql } from '../sql.js';
import { copyDocuments } from './documents.js';
import { checkSubtreeAt, ensurePath, folderAt, inTreeTurn, joinPath, lockAncestors, lockTree, pathSegments, rewriteSubtree, TOP_FIRST, type FolderRow } from './folders.js';
import { subtreeOf } from '../resources/folder.js';
import { optionalString } from './validate.js';

type Input = Record<string, unknown>;
type Row = Record<string, unknown>;

/** The most folders and documents one copy makes. */
export const MAX_COPY = 10_000;

/** The folder `sourceFolderId` or `sourceFolderPath` names, as read before any lock, or a 404 (before anything is made). */
async function sourceAsRead(ctx: AppContext, input: Input): Promise<FolderRow> {
  const id = guidOrUnset(input.sourceFolderId, 'sourceFolderId');
  const path = optionalString(input, 'sourceFolderPath');
  if (id) {
    const [found] = await selectRows<FolderRow>(ctx.reader, resource('Folder'), { where: [sql`t.id = ${id.toLowerCase()}`] });
    if (!found) throw notFound(`Folder '${id}' was not found.`, { field: 'sourceFolderId' });
    if (path?.trim() && joinPath(pathSegments(path, 'sourceFolderPath')).toLowerCase() !== found.folderPath.toLowerCase()) throw twoFolders('source', id, path);
    return found;
  }
  if (!path?.trim()) throw badRequest("Name the folder with 'sourceFolderId' or 'sourceFolderPath'.");
  const segments = pathSegments(path, 'sourceFolderPath');
  // '/' is the library, which no move or copy takes: as GET folders?folderPath=/ is no folder.
  if (segments.length === 0) throw badRequest("The field 'sourceFolderPath' must name a folder, such as /Top/Child: '/' is the library itself, which cannot be moved or copied.", { field: 'sourceFolderPath' });
  const found = await folderAt(ctx, joinPath(segments));
  if (!found) throw notFound(`No folder has the path '${path.trim()}'.`, { field: 'sourceFolderPath' });
  return found;
}

/** Both keys of one folder sent, naming two: the path was dropped without a word, and the folder went where the id said. */
const twoFolders = (side: 'source' | 'target', id: string, path: string) =>
  badRequest(`'${side}FolderId' ('${id}') and '${side}FolderPath' ('${path.trim().slice(0, 256)}') name different folders: send one of them, or both naming the same folder.`, { field: `${side}FolderPath` });

/** The input's key that named the destination: a refusal of where the folder lands names it. */
type TargetKey = 'targetFolderId' | 'targetFolderPath';

/** The id of the destination folder (made with its missing ancestors when named by path; undefined for the top level), and the key that named it. */
async function destination(ctx: AppContext, input: Input): Promise<{ to: string | undefined; field: TargetKey }> {
  const id = guidOrUnset(input.targetFolderId, 'targetFolderId');
  const path = optionalString(input, 'targetFolderPath');
  if (id) {
    if (path?.trim() && (await folderAt(ctx, joinPath(pathSegments(path, 'targetFolderPath'))))?.id !== id.toLowerCase()) throw twoFolders('target', id, path);
    return { to: id.toLowerCase(), field: 'targetFolderId' };
  }
  if (path === undefined || path.trim() === '') throw badRequest("Name the destination with 'targetFolderId' or 'targetFolderPath' ('/' for the top level).");
  return { to: (await ensurePath(ctx, pathSegments(path, 'targetFolderPath'), 'targetFolderPath'))?.id, field: 'targetFolderPath' };
}

const intoItself = (folder: FolderRow, dest: FolderRow) => conflict(`The folder '${folder.folderPath}' cannot go into itself or a folder under it ('${dest.folderPath}').`);
const taken = (path: string, field: TargetKey) => conflict(`The folder '${path}' already exists.`, { field });

/** The write that gives the folder its new path, losing it to a create since `landing` checked it: the index's 409, naming the target's key. */
const takenMeanwhile = (field: TargetKey) => namingTaken('folder_path_uq', field);

/**
 * The source folder and the destination (undefined: the top level), locked and read afresh.
 * First the destination's ancestors, for share and top first, as a child's create holds them: a
 * rename or move of any of them waits for this change or this change for it, and a rename's
 * rewrite takes in what this brings below it (before, a rename racing a move into its subtree left
 * the moved folders under its old path). Then the source, its subtree and the destination in one
 * statement, top first as a rename, move or delete locks its subtree. Run in the tenant's turn
 * at reshaping (lockTree, inTreeTurn), so crossing changes (X into Y while Y goes into X) cannot
 * deadlock, and the source's path read first cannot change meanwhile. A move into the source's
 * own subtree is refused before the update lock: its source is one of the ancestors held for
 * share, and locking it again could deadlock with a create there.
 */
async function sourceAndDestination(ctx: AppContext, input: Input): Promise<{ folder: FolderRow; dest: FolderRow | undefined; field: TargetKey }> {
  const source = await sourceAsRead(ctx, input);
  const { to, field } = await destination(ctx, input);
  const ids = [...new Set(to ? [source.id, to] : [source.id])];
  const read = async () => {
    const rows = await selectRows<FolderRow>(ctx.reader, resource('Folder'), { where: [sql`t.id = any(${ids}::uuid[])`] });
    const byId = new Map(rows.map((r) => [r.id, r]));
    const folder = byId.get(source.id);
    if (!folder) throw notFound(`Folder '${source.id}' was not found.`);
    if (to && !byId.has(to)) throw notFound(`Folder '${to}' was not found.`, { field: 'targetFolderId' });
    return { folder, dest: to ? byId.get(to) : undefined, field };
  };
  if (to && (await lockAncestors(ctx, to)).includes(source.id)) {
    const { folder, dest } = await read();
    throw intoItself(folder, dest!);
  }
  await run(
    ctx.reader,
    sql`select t.id from folder t where t.tenant_id = ${ctx.tenantId} and (t.id = any(${ids}::uuid[]) or ${subtreeOf(source)}) order by ${raw(TOP_FIRST)} for no key update of t`,
  );
  return read();
}

/** Where `folder` lands in `dest`: its new path, refused when that is inside itself, too deep or long for its subtree, or taken. */
async function landing(ctx: AppContext, folder: FolderRow, dest: FolderRow | undefined, field: TargetKey): Promise<string> {
  const path = `${dest?.folderPath ?? ''}/${folder.name as string}`;
  const from = folder.folderPath.toLowerCase();
  if (dest && (dest.folderPath.toLowerCase() === from || dest.folderPath.toLowerCase().startsWith(`${from}/`))) throw intoItself(folder, dest);
  await checkSubtreeAt(ctx, folder, path);
  const holder = await folderAt(ctx, path);
  if (holder && holder.id !== folder.id) throw taken(path, field);
  return path;
}

/** Moves the folder (and its subtree) into the destination; returns its id. */
export async function moveFolder(ctx: AppContext, input: Input): Promise<string> {
  await lockTree(ctx);
  const { folder, dest, field } = await sourceAndDestination(ctx, input);
  const path = await landing(ctx, folder, dest, field);
  if (path === folder.folderPath) return folder.id;
  await rewriteSubtree(ctx, folder, path, dest?.topLevelFolderId ?? folder.id).catch(takenMeanwhile(field));
  await updateRows(ctx.reader, 'folder', { parent_id: dest?.id ?? null, modified_at: sql`now()`, modified_by_id: ctx.caller.userId }, sql`t.id = ${folder.id}`);
  return folder.id;
}

/** Copies the folder, its subtree and their documents (every revision) into the destination; returns the copy's id. */
export async function copyFolder(ctx: AppContext, input: Input): Promise<string> {
  // The turn only while the folders are locked: what the copy reads and writes after it lies under
  // folders no reshaping change can lock until the copy ends (the source's subtree, the destination
  // and its ancestors), and it locks no folder again (a delete reaches the source's documents only
  // after their folders), so changes elsewhere in the tenant need not wait for it.
  const { folder, dest, field } = await inTreeTurn(ctx, () => sourceAndDestination(ctx, input));
  const path = await landing(ctx, folder, dest, field);
  if (path.toLowerCase() === folder.folderPath.toLowerCase()) throw taken(path, field);
  // Counted before anything is read: a copy too large is refused without loading it.
  const folderCount = await countRows(ctx.reader, resource('Folder'), { where: [subtreeOf(folder)] });
  const documentCount = await countRows(ctx.reader, resource('Document'), { where: [subtreeOf(folder, 'f'), ...listedOf(resource('Document'))] });
  if (folderCount + documentCount > MAX_COPY) {
    throw badRequest(`The folder holds ${folderCount} folders and ${documentCount} documents; one copy makes at most ${MAX_COPY}.`);
  }
  // Parents before children: a path sorts after its parent's.
  const folders = await selectRows<FolderRow & { parentFolderId: string }>(ctx.reader, resource('Folder'), { where: [subtreeOf(folder)], order: 'lower(t.path)' });
  const ids = new Map(folders.map((f) => [f.id, newId()]));
  // Deleted documents stay behind. Locked, as a document copy locks its one: each is copied in one state.
  const documents = await selectRows<Row>(ctx.reader, resource('Document'), { where: [sql`t.folder_id = any(${[...ids.keys()]}::uuid[])`, ...listedOf(resource('Document'))], lock: true });
  const root = ids.get(folder.id)!;
  const top = dest?.topLevelFolderId ?? root;
  const by = ctx.caller.userId;
  await insertRows(ctx.reader, 'folder', folders.map((f) => ({
    id: ids.get(f.id), parent_id: f.id === folder.id ? dest?.id ?? null : ids.get(f.parentFolderId), top_id: top, name: f.name,
    description: f.description, path: `${path}${f.folderPath.slice(folder.folderPath.length)}`, allow_revisions: f.allowRevision,
    folder_type: f.folderType, status: f.status, created_by_id: by, modified_by_id: by,
  }))).catch(takenMeanwhile(field));
  // Each copy takes its folder's index fields (overrides and order) and security members with it.
  const [from, to] = [[...ids.keys()], [...ids.values()]];
  await copyRows(ctx.reader, 'folder_member', ['user_id', 'group_id', 'role'], { folder_id: mapped('folder_id', from, to), created_by_id: by, modified_by_id: by }, sql`t.folder_id = any(${from}::uuid[])`);
  await copyRows(
    ctx.reader,
    'folder_index_field',
    ['field_id', 'position', 'required', 'connection_id', 'query_id', 'drop_down_list_id', 'query_display_field', 'query_value_field', 'default_value'],
    { folder_id: mapped('folder_id', from, to), created_by_id: by, modified_by_id: by },
    sql`t.folder_id = any(${from}::uuid[])`,
  );
  await copyDocuments(ctx, documents, (d) => ({ folderId: ids.get(d.folderId as string)!, name: d.name as string }));
  return root;
}
