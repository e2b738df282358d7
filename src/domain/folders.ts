/**
 * Folder rules (docs/decisions.md, "Folders"): names and paths, creating a folder or a whole
 * path, renaming a folder with its subtree. Paths are unique per tenant without regard to case
 * (the database's unique index decides races), so creating a path that two requests create at
 * once ends with one folder for each segment.
 */
import type { AppContext } from '../context.js';
import { copyRows, deleteRows, insertRows, updateRows } from '../db/tenant-writes.js';
import { namingTaken } from '../db/constraint-errors.js';
import { badRequest, conflict, notFound, requireAgreement } from '../errors.js';
import { newId } from '../ids.js';
import { resource } from '../read/registry.js';
import { run, selectRows } from '../read/rows.js';
import { raw, sql } from '../sql.js';
import { sendAlerts } from './alert-mail.js';
import { DELETED } from './documents.js';
import { CONTROL, maxLength, nameKey, optionalString } from './validate.js';
import { subtreeOf } from '../resources/folder.js';

type Input = Record<string, unknown>;
export type FolderRow = Record<string, unknown> & { id: string; folderPath: string; topLevelFolderId: string };

const FOLDER = resource('Folder');
export const LIMITS = { name: 256, path: 4000, description: 4000, depth: 64 } as const;

/** Characters as PostgreSQL counts them (code points; JavaScript's `length` counts UTF-16 units). */
const chars = (s: string) => [...s].length;
/** A path's levels: its `/`s (names have none). */
const levelsOf = (path: string) => path.split('/').length - 1;

/**
 * A folder name, found or made: trimmed, not empty, no `/` (it separates a path's segments).
 * `inPath`: a segment of the path `label` names, which a refusal then names as one of its folders.
 */
function segmentName(raw: string, label: string, inPath = false): string {
  const name = raw.trim();
  const field = { field: label };
  if (name === '') throw badRequest(`The field '${label}' must not be blank.`, field);
  if (name.includes('/')) throw badRequest(`A folder name may not contain '/' (it separates the segments of a folder path): '${name.slice(0, 64)}'.`, field);
  // Clients that tidy paths read them as the folder itself and its parent.
  if (name === '.' || name === '..') throw badRequest(`A folder may not be named '${name}': in a path it means the folder itself or its parent.`, field);
  if (chars(name) > LIMITS.name) {
    throw badRequest(inPath ? `A folder name in '${label}' is longer than ${LIMITS.name} characters: '${[...name].slice(0, 64).join('')}...'.` : `The field '${label}' is longer than ${LIMITS.name} characters.`, field);
  }
  return name;
}

/**
 * A folder name a request brings new (a create, a rename): also without control characters
 * (CONTROL, as oneLine refuses in every other name). A rename passes the name it replaces as
 * `stored`: one resent unchanged is kept, as oneLine keeps other names.
 */
export function checkName(raw: string, label = 'name', stored?: unknown): string {
  const name = segmentName(raw, label);
  if (name !== stored && CONTROL.test(name)) throw controlCharacters(name, label);
  return name;
}

/** The refusal of a new folder name holding a control character; `field` unset where the name is a path's segment. */
const controlCharacters = (name: string, field?: string) => badRequest(`A folder name may not contain control characters: '${name.slice(0, 64)}'.`, { field });

/**
 * A path's folder names, from `/A/B`, `A/B/` or `/A//B`; `/` alone has none. Control characters
 * are not refused here but where a folder is made (ensureChild) or renamed: folders named with DEL
 * or a C1 control before those were refused are still found, moved and created under by path.
 */
export function pathSegments(raw: string, label = 'folderPath'): string[] {
  if (chars(raw) > LIMITS.path) throw badRequest(`The field '${label}' is longer than ${LIMITS.path} characters.`, { field: label });
  const parts = raw.split('/').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length > LIMITS.depth) throw badRequest(`A folder path may have at most ${LIMITS.depth} levels.`, { field: label });
  return parts.map((p) => segmentName(p, label, true));
}

export const joinPath = (segments: readonly string[]) => `/${segments.join('/')}`;

/** The most levels and characters a folder at a place reaches, and which folder has them. */
interface Reach {
  levels: number;
  length: number;
  deepest: string;
  longest: string;
}

/** A 400 naming the folder that would pass the limit on levels or on characters. */
function checkPlace(r: Reach): void {
  if (r.levels > LIMITS.depth) throw badRequest(`A folder path may have at most ${LIMITS.depth} levels: the folder ${r.deepest} would have ${r.levels}.`);
  if (r.length > LIMITS.path) throw badRequest(`The folder path would be longer than ${LIMITS.path} characters: that of the folder ${r.longest} would have ${r.length}.`);
}

const label = (name: string, id?: string) => `'${[...name].slice(0, 64).join('')}'${id ? ` (${id})` : ''}`;

/**
 * A 400 unless every folder of `folder`'s subtree fits the limits with `folder` at `path`: one
 * statement finds the deepest and the longest. Run under the locks on `folder` and its subtree
 * (`holdSubtree`), which a folder made, moved or copied anywhere below it waits for (each locks the
 * ancestors of where it lands), as does a rename or move inside the subtree.
 */
export async function checkSubtreeAt(ctx: AppContext, folder: FolderRow, path: string): Promise<void> {
  const [far] = await run<{ deepId: string; deepName: string; levels: number; longId: string; longName: string; length: number }>(
    ctx.reader,
    sql`with s as (
          select t.id, t.name, char_length(t.path) - char_length(replace(t.path, '/', '')) as levels, char_length(t.path) as length
            from folder t where t.tenant_id = ${ctx.tenantId} and ${subtreeOf(folder)})
        select d.id as "deepId", d.name as "deepName", d.levels, l.id as "longId", l.name as "longName", l.length
          from (select * from s order by levels desc limit 1) d cross join (select * from s order by length desc limit 1) l`,
  );
  checkPlace({
    levels: far.levels - levelsOf(folder.folderPath) + levelsOf(path),
    length: far.length - chars(folder.folderPath) + chars(path),
    deepest: label(far.deepName, far.deepId),
    longest: label(far.longName, far.longId),
  });
}

/** The folder at `path` (any case), or undefined. */
export async function folderAt(ctx: AppContext, path: string): Promise<FolderRow | undefined> {
  // The md5 probes folder_path_uq (a btree cannot hold a whole long path); the paths themselves decide.
  const [row] = await selectRows<FolderRow>(ctx.reader, FOLDER, { where: [sql`md5(name_key(t.path)) = md5(name_key(${path}::text)) and name_key(t.path) = name_key(${path}::text)`] });
  return row;
}

interface NewFolder {
  name: string;
  description: string;
  allowRevisions: boolean;
}

/** A folder found or made, and which. */
interface Made {
  folder: FolderRow;
  created: boolean;
}

/**
 * The folder `name` under `parent` (undefined: at the top level), made unless it exists:
 * `created` says which. An INSERT that skips a path already taken, so a concurrent create of
 * the same path waits for the other and then finds its folder. `field`: the input's key that
 * carried the name (`name`, or the path it is a segment of), which a path taken names.
 */
async function ensureChild(ctx: AppContext, parentAsRead: FolderRow | undefined, f: NewFolder, field: string): Promise<Made | undefined> {
  // The parent's ancestors locked in share mode, top-down, then the parent's row locked and read
  // again, all to the end of the mutation: a rename or move of any of them (which locks the folder
  // it changes, then rewrites its subtree's paths) waits for this create or this create for it, and
  // the new path is made from the current one. Creates beside each other do not wait for each other.
  if (parentAsRead) await lockAncestors(ctx, parentAsRead.id);
  const parent = parentAsRead && (await lockedIfThere(ctx, parentAsRead.id));
  // Deleted since it was read: the caller says what that means.
  if (parentAsRead && !parent) return undefined;
  const id = newId();
  const path = parent ? `${parent.folderPath}/${f.name}` : `/${f.name}`;
  // Only a folder made here is refused a control character; an existing one is found.
  if (CONTROL.test(f.name) && !(await folderAt(ctx, path))) throw controlCharacters(f.name);
  checkPlace({ levels: levelsOf(path), length: chars(path), deepest: label(f.name), longest: label(f.name) });
  const by = ctx.caller.userId;
  await insertRows(
    ctx.reader,
    'folder',
    [{ id, parent_id: parent?.id ?? null, top_id: parent?.topLevelFolderId ?? id, name: f.name, description: f.description, path, allow_revisions: f.allowRevisions, created_by_id: by, modified_by_id: by }],
    true,
  );
  const folder = await folderAt(ctx, path);
  // The path is taken, by a folder the caller may not see (the parent is locked, so it is still
  // there; at the top level the other folder may also have gone this instant): a name to change.
  if (!folder) throw conflict(`A folder named '${f.name}' already exists in '${parent?.folderPath ?? '/'}' (one you may not see): choose another name.`, { field });
  const created = folder.id === id;
  // A new folder starts with the security members of the folder it is made in.
  if (created && parent) {
    await copyRows(ctx.reader, 'folder_member', ['user_id', 'group_id', 'role'], { folder_id: id, created_by_id: by, modified_by_id: by }, sql`t.folder_id = ${parent.id}`);
  }
  return { folder, created };
}

/**
 * The folder at the path of `segments`, made with every missing folder on the way; undefined for
 * none (the library's top). `field`: the input's key that sent the path.
 */
export async function ensurePath(ctx: AppContext, segments: readonly string[], field: string): Promise<FolderRow | undefined> {
  return segments.length === 0 ? undefined : (await madePath(ctx, segments, field)).folder;
}

/** Walks a path can take before it is a 409: each walk again follows a delete of a folder on it. */
const PATH_WALKS = 3;

/**
 * The folder at the path of `segments` (at least one), made with every missing folder on the way,
 * the last one as `last` says. A folder read on the way that is deleted before its child is made
 * (a delete of it or of an ancestor commits meanwhile) starts the walk again from the top, which
 * makes the path anew, as a create after the delete would: it was a 404 naming a folder the
 * client never sent.
 */
async function madePath(ctx: AppContext, segments: readonly string[], field: string, last?: NewFolder): Promise<Made> {
  for (let walk = 1; ; walk++) {
    let made: Made | undefined;
    for (const [i, name] of segments.entries()) {
      const f = i === segments.length - 1 && last ? last : { name, description: '', allowRevisions: true };
      made = await ensureChild(ctx, made?.folder, f, field);
      if (!made) break;
    }
    if (made) return made;
    if (walk === PATH_WALKS) throw conflict(`Folders on the path '${joinPath(segments)}' were deleted while it was being made, ${PATH_WALKS} times: try again.`, { field });
  }
}

/**
 * Every folder above `id`, locked for share to the end of the mutation, the top one first (one
 * order for all: no deadlock among them); returns their ids. A rename or move of any of them
 * (`holdSubtree`) waits for the change below, or the change for it.
 */
export async function lockAncestors(ctx: AppContext, id: string): Promise<string[]> {
  const rows = await run<{ id: string }>(
    ctx.reader,
    sql`select f.id from folder f
         where f.tenant_id = ${ctx.tenantId} and f.id in (
           with recursive up(id, parent_id) as (
             select p.id, p.parent_id from folder p where p.tenant_id = ${ctx.tenantId} and p.id = (select c.parent_id from folder c where c.tenant_id = ${ctx.tenantId} and c.id = ${id})
             union all
             select p.id, p.parent_id from folder p join up on p.tenant_id = ${ctx.tenantId} and p.id = up.parent_id)
           select up.id from up)
         order by char_length(f.path) for share of f`,
  );
  return rows.map((r) => r.id);
}

/** The tenant's turn at reshaping its tree (`lockTree`, `inTreeTurn`): one advisory lock key. */
const treeKey = (ctx: AppContext) => sql`hashtext(${`quire:folder-tree:${ctx.tenantId}`})`;

/**
 * Changes that reshape the tree (a move, copy, rename or delete) take turns within a tenant, taken
 * before they read or lock any folder: a move holds its destination's ancestors and then its
 * source's subtree, orders no one ordering of rows serves, so two crossing moves could deadlock
 * (a 409 "try again"). Creates and member cascades hold folders for share only, and do not wait.
 * The turn is held to the end of the mutation.
 */
export async function lockTree(ctx: AppContext): Promise<void> {
  await run(ctx.reader, sql`select pg_advisory_xact_lock(${treeKey(ctx)})`);
}

/**
 * Runs `lock`, which reads and locks folders, in the tenant's turn (as `lockTree`), and gives the
 * turn back when it returns: the rows it locked stay held to the end of the mutation, and keep
 * every change that reaches them waiting, but changes elsewhere in the tenant no longer wait for
 * the rest of it (a copy's thousands of rows and files). A session's advisory lock, since a
 * transaction's cannot be given back early; it outlives a rollback, so it is given back on every
 * path, after a failed statement too (rolled back to the savepoint first: an aborted transaction
 * runs nothing else). Runs on the mutation's one connection (`inTransaction`).
 */
export async function inTreeTurn<T>(ctx: AppContext, lock: () => Promise<T>): Promise<T> {
  await run(ctx.reader, sql`savepoint folder_tree_turn`);
  try {
    // Inside the try: a lock granted as its statement failed (cancelled, timed out) is still given back; giving back one not held is a no-op.
    await run(ctx.reader, sql`select pg_advisory_lock(${treeKey(ctx)})`);
    const locked = await lock();
    await run(ctx.reader, sql`release savepoint folder_tree_turn`);
    return locked;
  } catch (err) {
    await run(ctx.reader, sql`rollback to savepoint folder_tree_turn`);
    throw err;
  } finally {
    await run(ctx.reader, sql`select pg_advisory_unlock(${treeKey(ctx)})`);
  }
}

/**
 * Folders top first: by path length, then id, so that two changes locking overlapping sets (a
 * rename's or move's subtree, a delete's, a move's source and target) take them in one order
 * and wait for each other rather than deadlock.
 */
export const TOP_FIRST = 'char_length(t.path), t.id';

/**
 * Locks `folder`'s whole subtree, top first, to the end of the mutation, before its paths are
 * checked and rewritten. A move or copy into the subtree holds its target (and a create its
 * parent) until it commits, so this waits for it; the statements after it see the folders it
 * brought, which an UPDATE begun before that commit would miss (they stayed under the old path).
 * For no key update, as the rewrite's UPDATE takes them: a cascade of security members, which
 * holds them for key share, does not wait for it.
 */
export async function holdSubtree(ctx: AppContext, folder: FolderRow): Promise<void> {
  await run(ctx.reader, sql`select t.id from folder t where t.tenant_id = ${ctx.tenantId} and ${subtreeOf(folder)} order by ${raw(TOP_FIRST)} for no key update of t`);
}

/** Folder `id`'s row, locked to the end of the mutation and read afresh (changes to one folder run one after another). */
export async function lockedFolder(ctx: AppContext, id: string): Promise<FolderRow> {
  const folder = await lockedIfThere(ctx, id);
  if (!folder) throw folderNotFound(id);
  return folder;
}

/** `lockedFolder`, or undefined when the folder is not there (deleted since it was read). */
async function lockedIfThere(ctx: AppContext, id: string): Promise<FolderRow | undefined> {
  const [folder] = await selectRows<FolderRow>(ctx.reader, FOLDER, { where: [sql`t.id = ${id.toLowerCase()}`], lock: true });
  return folder;
}

const folderNotFound = (id: string) => notFound(`Folder '${id}' was not found.`);

/**
 * Gives `folder` and every folder under it the path `path` in its place (and `top`, when it
 * moves under another top-level folder), FOLDERS_A_TURN folders a statement, run after
 * `holdSubtree` (in one statement, a subtree of 300,000 folders took 23 s, past the timeout, and a
 * move of it could never pass). Lengths in characters, as PostgreSQL counts them (not JavaScript's
 * UTF-16 units).
 */
export async function rewriteSubtree(ctx: AppContext, folder: FolderRow, path: string, top?: string): Promise<void> {
  const old = folder.folderPath;
  const set = { path: sql`${path}::text || substr(path, char_length(${old}::text) + 1)`, ...(top ? { top_id: top } : {}) };
  const ids = (await run<{ id: string }>(ctx.reader, sql`select t.id from folder t where t.tenant_id = ${ctx.tenantId} and ${subtreeOf(folder)}`)).map((f) => f.id);
  for (let i = 0; i < ids.length; i += FOLDERS_A_TURN) await updateRows(ctx.reader, 'folder', set, sql`t.id = any(${ids.slice(i, i + FOLDERS_A_TURN)}::uuid[])`);
}

/**
 * `allowRevisions` as sent, or `allowRevision` as the .NET client's CreateChildFolder spells it
 * (it was dropped without a word: a folder asked to keep one revision took many); both sent must agree.
 */
function allowRevisionsOf(input: Input): boolean | undefined {
  const sent = (['allowRevisions', 'allowRevision'] as const).flatMap((key) => {
    const v = input[key];
    if (v === undefined || v === null) return [];
    if (typeof v !== 'boolean') throw badRequest(`The field '${key}' must be true or false.`, { field: key });
    return [{ sent: v, as: key, kept: v }];
  });
  if (sent.length > 1) requireAgreement("revisions setting ('allowRevisions', 'allowRevision')", sent);
  return sent[0]?.kept;
}

function newFolderOf(input: Input, name: string): NewFolder {
  const description = maxLength(optionalString(input, 'description') ?? '', LIMITS.description, 'description');
  return { name, description, allowRevisions: allowRevisionsOf(input) ?? true };
}

/**
 * A `folderPath` sent where the folder's place is already named (`POST folders/{id}`'s parent and
 * name, `PUT folders/{id}`'s folder) must name it too, in any case and Unicode normal form: it was dropped without a word.
 * `parent`: the path the folder is in ('' at the top level); `names`: the names it may have.
 */
function checkSentPath(input: Input, parent: string, names: readonly string[], what: string): void {
  const sent = optionalString(input, 'folderPath');
  if (sent === undefined || sent.trim() === '') return;
  const path = nameKey(joinPath(pathSegments(sent)));
  if (names.some((name) => nameKey(`${parent}/${name}`) === path)) return;
  throw badRequest(`The field 'folderPath' ('${sent.slice(0, 64)}') must be ${what} ('${parent}/${names[names.length - 1]}'), or be left out: PUT folders/move moves a folder.`, { field: 'folderPath' });
}

/** A new folder `input.name` under `parent` (undefined: top level); a 409 when the name is taken there. */
export async function createFolder(ctx: AppContext, parent: FolderRow | undefined, input: Input): Promise<FolderRow> {
  let raw = optionalString(input, 'name');
  if (parent) {
    // Inside a folder, a path alone names the new folder by its last segment.
    const sent = optionalString(input, 'folderPath');
    raw ??= sent === undefined ? undefined : pathSegments(sent).at(-1);
    if (raw !== undefined) checkSentPath(input, parent.folderPath, [raw.trim()], "the new folder's path");
  }
  if (raw === undefined) throw badRequest("The mandatory field 'name' is missing (or send 'folderPath' to create a whole path).", { field: 'name' });
  const made = await ensureChild(ctx, parent, newFolderOf(input, checkName(raw)), 'name');
  // The parent the client named, deleted since it was read: what its unknown id answers.
  if (!made) throw folderNotFound(parent!.id);
  const { folder, created } = made;
  if (!created) throw conflict(`A folder named '${folder.name as string}' already exists in '${parent?.folderPath ?? '/'}'.`, { field: 'name' });
  return folder;
}

/**
 * The folder at `folderPath`, made with every missing ancestor (the clients' "post folder by
 * path"); `name`, when sent, must be the path's last segment. A 409 when the folder exists.
 */
export async function createFolderPath(ctx: AppContext, folderPath: string, input: Input): Promise<FolderRow> {
  const segments = pathSegments(folderPath);
  if (segments.length === 0) throw badRequest("The field 'folderPath' must name a folder, such as /Top/Child ('/' is the library itself).", { field: 'folderPath' });
  const name = optionalString(input, 'name');
  const last = segments[segments.length - 1];
  if (name !== undefined && name.trim() !== '' && name.trim().toLowerCase() !== last.toLowerCase()) {
    throw badRequest(`The field 'name' ('${name.trim().slice(0, 64)}') must be the last segment of 'folderPath' ('${last}'), or be left out.`, { field: 'name' });
  }
  const { folder, created } = await madePath(ctx, segments, 'folderPath', newFolderOf(input, last));
  if (!created) throw conflict(`The folder '${folder.folderPath}' already exists.`, { field: 'folderPath' });
  return folder;
}

/**
 * A folder's description, revisions setting and name; a new name moves its whole subtree's
 * paths in the same statement (a 409 when the name is taken beside it).
 */
export async function updateFolder(ctx: AppContext, id: string, input: Input): Promise<void> {
  if (optionalString(input, 'name') !== undefined) await lockTree(ctx);
  const folder = await lockedFolder(ctx, id);
  const set: Record<string, unknown> = { modified_at: sql`now()`, modified_by_id: ctx.caller.userId };
  const description = optionalString(input, 'description');
  if (description !== undefined) set.description = maxLength(description, LIMITS.description, 'description');
  const allowRevisions = allowRevisionsOf(input);
  if (allowRevisions !== undefined) set.allow_revisions = allowRevisions;
  const rawName = optionalString(input, 'name');
  const name = rawName === undefined ? undefined : checkName(rawName, 'name', folder.name);
  // The path it has, as a record read back and resent holds it, or the one the new name gives it.
  checkSentPath(input, (folder.folderPath as string).slice(0, -(folder.name as string).length - 1), [folder.name as string, ...(name === undefined ? [] : [name])], "the folder's path");
  if (Object.keys(set).length === 2 && name === undefined) throw badRequest('Send at least one of: name, description, allowRevisions.');
  if (name !== undefined && name !== folder.name) {
    await holdSubtree(ctx, folder);
    const old = folder.folderPath;
    const renamed = `${old.slice(0, old.length - (folder.name as string).length)}${name}`;
    if (renamed.toLowerCase() !== old.toLowerCase() && (await folderAt(ctx, renamed))) throw conflict(`A folder named '${name}' already exists beside '${old}'.`, { field: 'name' });
    await checkSubtreeAt(ctx, folder, renamed);
    // A create of the new path that the check did not see (not committed yet): the index's 409, naming `name`, as a move's names its target.
    await rewriteSubtree(ctx, folder, renamed).catch(namingTaken('folder_path_uq', 'name'));
    set.name = name;
  }
  await updateRows(ctx.reader, 'folder', set, sql`t.id = ${folder.id}`);
}

/**
 * Documents a folder delete takes at a time: each turn's statements stay far inside
 * DB_STATEMENT_TIMEOUT_MS (the database's cascade costs about 50 µs a document) and its rows in
 * memory few, whatever the subtree holds. In one statement, 500,000 documents stopped at the
 * default 15 s, and every row came into memory at once.
 */
export const DOCUMENTS_A_TURN = 10_000;

/**
 * Folders a delete, a rename or a move takes a statement, for the same reason: about 50 µs a
 * folder, so a tree of 300,000 in one statement would reach the timeout.
 */
export const FOLDERS_A_TURN = 10_000;

interface HeldDocument {
  id: string;
  name: string;
  archive: number;
  holder: string | null;
}

/**
 * Deletes folder `id` with its subtree and every document in them, queuing the "Document deleted"
 * alerts of those not deleted yet; in one transaction, so all of it or nothing. Their documents
 * are locked first, as a check-out locks a document: while someone other than the caller has one
 * (not deleted) checked out, a 409 naming it and its holder, and nothing is deleted
 * (docs/decisions.md, "Check-out"); a check-out that commits meanwhile is waited for and seen.
 * The documents go DOCUMENTS_A_TURN at a time, each turn locked, checked, told and deleted; then
 * the folders, FOLDERS_A_TURN at a time.
 */
export async function deleteFolder(ctx: AppContext, id: string): Promise<void> {
  await lockTree(ctx);
  const folder = await lockedFolder(ctx, id);
  // Every folder under it, held against new rows (a document's insert holds its folder for key
  // share), top first as lockAncestors and holdSubtree go: the documents read next are all that will go.
  const tree = await run<{ id: string }>(ctx.reader, sql`select t.id from folder t where t.tenant_id = ${ctx.tenantId} and ${subtreeOf(folder)} order by ${raw(TOP_FIRST)} for update of t`);
  const inSubtree = sql`from document d join folder t on t.tenant_id = d.tenant_id and t.id = d.folder_id where d.tenant_id = ${ctx.tenantId} and ${subtreeOf(folder)}`;
  // A document checked out now: refused before any turn (each turn checks its own again, locked).
  await refuseHeld(ctx, folder, await run<HeldDocument>(
    ctx.reader,
    sql`select d.id, d.name, d.archive, d.checked_out_by_id as holder ${inSubtree}
       and d.checked_out_by_id is not null and d.checked_out_by_id <> ${ctx.caller.userId} and d.archive <> ${DELETED} limit 1`,
  ));
  for (;;) {
    // A locked row reads as it is now, when its lock waited for another transaction; the joins of the statement would not.
    const docs = await run<HeldDocument>(ctx.reader, sql`select d.id, d.name, d.archive, d.checked_out_by_id as holder ${inSubtree} limit ${DOCUMENTS_A_TURN} for no key update of d`);
    if (docs.length === 0) break;
    await refuseHeld(ctx, folder, docs);
    // Told before the rows go, and their subscriptions with them.
    await sendAlerts(ctx, 'documentDeleted', docs.filter((d) => d.archive !== DELETED).map((d) => d.id));
    await deleteRows(ctx.reader, 'document', sql`t.id = any(${docs.map((d) => d.id)}::uuid[])`);
  }
  // Deepest first (a subfolder's path is longer than its parent's): each turn's folders have no
  // subfolders left outside it, so its cascade goes no further.
  const deepestFirst = tree.map((f) => f.id).reverse();
  for (let i = 0; i < deepestFirst.length; i += FOLDERS_A_TURN) {
    await deleteRows(ctx.reader, 'folder', sql`t.id = any(${deepestFirst.slice(i, i + FOLDERS_A_TURN)}::uuid[])`);
  }
}

/** The 409 of a document among `docs` (not deleted) checked out by someone other than the caller. */
async function refuseHeld(ctx: AppContext, folder: FolderRow, docs: HeldDocument[]): Promise<void> {
  const held = docs.find((d) => d.archive !== DELETED && d.holder && d.holder !== ctx.caller.userId);
  if (!held) return;
  const [user] = await run<{ name: string }>(ctx.reader, sql`select name from app_user where tenant_id = ${ctx.tenantId} and id = ${held.holder}`);
  throw conflict(`Folder '${folder.folderPath}' cannot be deleted: document '${held.name}' in it is checked out by ${user?.name || 'another user'}; it can go once it is checked in.`);
}
