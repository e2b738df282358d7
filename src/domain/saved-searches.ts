/**
 * Saved searches (docs/decisions.md, "Saved searches"): a user's named `q` over documents, within
 * a folder and those under it or over every folder, private or shared with the database. The
 * `q` is checked against the fields of documents when it is saved, and applied with the folder's
 * subtree, the reader's row rules and the caller's own `q` when the search runs.
 */
import type { AppContext } from '../context.js';
import { SavedSearch } from '../entities/saved-search.js';
import { badRequest, notFound } from '../errors.js';
import { guidOrUnset, newId, ZERO_GUID } from '../ids.js';
import { compileQText } from '../query/compile.js';
import { queryFieldMap } from '../read/fields.js';
import { heldRow, loadRow } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { raw, sql, type Sql } from '../sql.js';
import { editable } from './editable.js';
import { folderAt, joinPath, pathSegments, type FolderRow } from './folders.js';
import { subtreeOf } from '../resources/folder.js';
import { maxLength, nameText, optionalString, requireName, uniquely } from './validate.js';

type Input = Record<string, unknown>;

const LIMITS = { name: 256, description: 4000, q: 4000 } as const;

/** The query as sent, checked against the fields of documents (a 400 that says what is wrong). */
function documentQuery(raw: string): string {
  const q = maxLength(raw.trim(), LIMITS.q, 'q');
  compileQText(q || undefined, queryFieldMap(resource('Document')));
  return q;
}

/**
 * The folder `folderId` or `folderPath` names (one the caller can see), null for every folder
 * (the all-zero GUID, an empty path or `/`), undefined when neither is sent.
 */
async function scopeOf(ctx: AppContext, input: Input): Promise<string | null | undefined> {
  const path = optionalString(input, 'folderPath');
  const sentId = input.folderId !== undefined && input.folderId !== null;
  if (sentId && path !== undefined) throw badRequest("Send 'folderId' or 'folderPath', not both.");
  if (path !== undefined) {
    // Read as the folder routes read a path: `A/B`, `/A/B/` and `/A//B` alike; `/` names no folder.
    const segments = pathSegments(path);
    if (segments.length === 0) return null;
    const folder = await folderAt(ctx, joinPath(segments));
    // Held against its delete, as by id: one committed meanwhile is this 404, not the foreign key's.
    const held = folder && (await selectRows<FolderRow>(ctx.reader, resource('Folder'), { where: [sql`t.id = ${folder.id}`], lock: 'keyShare' })).length;
    if (!held) throw notFound(`Folder '${joinPath(segments).slice(0, 256)}' was not found.`, { field: 'folderPath' });
    return folder.id;
  }
  if (!sentId) return undefined;
  const id = input.folderId === ZERO_GUID ? undefined : guidOrUnset(input.folderId, 'folderId');
  return id ? ((await heldRow(ctx, resource('Folder'), id, 'folderId')).id as string) : null;
}

function sharedOf(input: Input): boolean | undefined {
  const v = input.shared;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw badRequest("The field 'shared' must be true or false.", { field: 'shared' });
  return v;
}

/** A new saved search of the caller's; returns its id. Two of one name at once: one is made, the other gets a 409. */
export async function createSavedSearch(ctx: AppContext, input: Input): Promise<string> {
  const name = requireName(input, LIMITS.name);
  const by = ctx.caller.userId;
  const search = ctx.em().create(SavedSearch, {
    id: newId(),
    ownerId: by,
    name,
    description: maxLength(optionalString(input, 'description') ?? '', LIMITS.description, 'description'),
    q: documentQuery(optionalString(input, 'q') ?? ''),
    folderId: (await scopeOf(ctx, input)) ?? null,
    shared: sharedOf(input) ?? false,
    createdById: by,
    modifiedById: by,
  } as SavedSearch);
  await uniquely(`A saved search of yours named '${name}'`, () => ctx.em().flush());
  return search.id;
}

/** Locked for the change: of two deletes at once, the second finds it gone (404). */
const savedSearchById = (ctx: AppContext, id: string): Promise<SavedSearch> => editable(ctx, SavedSearch, id, 'Saved search', true);

/** Changes what is sent (who may: the schema's savedSearchOwnerOrAdmin). */
export async function updateSavedSearch(ctx: AppContext, id: string, input: Input): Promise<void> {
  const search = await savedSearchById(ctx, id);
  const name = optionalString(input, 'name');
  const description = optionalString(input, 'description');
  const q = optionalString(input, 'q');
  const scope = await scopeOf(ctx, input);
  const shared = sharedOf(input);
  if ([name, description, q, scope, shared].every((v) => v === undefined)) {
    throw badRequest('Send at least one of: name, description, q, folderId (or folderPath), shared.');
  }
  if (name !== undefined) search.name = nameText(name, LIMITS.name, 'name', search.name);
  if (description !== undefined) search.description = maxLength(description, LIMITS.description, 'description');
  if (q !== undefined) search.q = documentQuery(q);
  if (scope !== undefined) search.folderId = scope;
  if (shared !== undefined) search.shared = shared;
  search.modifiedById = ctx.caller.userId;
  await uniquely(`A saved search of its owner's named '${search.name}'`, () => ctx.em().flush());
}

export async function deleteSavedSearch(ctx: AppContext, id: string): Promise<void> {
  ctx.em().remove(await savedSearchById(ctx, id));
  await ctx.em().flush();
}

/** A saved search the caller may see, with the documents' conditions it stands for: its `q` and its folder's subtree. */
export async function savedSearchConditions(ctx: AppContext, id: string): Promise<{ search: Record<string, unknown>; where: Sql[] }> {
  const search = await loadRow(ctx, resource('SavedSearch'), id);
  const where: Sql[] = [];
  const q = compileQText((search.q as string) || undefined, queryFieldMap(resource('Document')));
  if (q) where.push(q);
  if (search.folderId !== ZERO_GUID) {
    const [folder] = await selectRows<FolderRow>(ctx.reader, resource('Folder'), { where: [sql`t.id = ${search.folderId}`] });
    // A shared search's folder the caller cannot see holds nothing for them.
    where.push(folder ? sql`exists (select 1 from folder sf where sf.tenant_id = t.tenant_id and sf.id = t.folder_id and ${subtreeOf(folder, 'sf')})` : raw('false'));
  }
  return { search, where };
}
