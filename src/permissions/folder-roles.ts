/**
 * What folder security roles allow (docs/decisions.md, "Folder security"): 1 Owner, 2 Editor,
 * 3 Publisher, 4 Viewer; a lower number allows more. Administrators may do everything; anyone
 * else needs a role on the folder at least as strong as the action asks, directly or through a
 * group. A folder the caller cannot see answers 404, as on reads.
 */
import type { AppContext } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { isGuid } from '../ids.js';
import { resource } from '../read/registry.js';
import { run, selectRows } from '../read/rows.js';
import { namedBy } from '../resources/document-revision.js';
import { ROLE_NAMES, ROLES } from '../resources/folder-member.js';
import { isMember, subtreeOf } from '../resources/folder.js';
import { sql } from '../sql.js';


/** The caller's strongest role on the folder (undefined: none), one statement. */
async function roleOn(ctx: AppContext, folderId: string): Promise<number | undefined> {
  const [row] = await run<{ role: number | null }>(
    ctx.reader,
    sql`select min(fm.role) as role from folder_member fm where fm.tenant_id = ${ctx.tenantId} and fm.folder_id = ${folderId} and ${isMember(ctx.caller.userId, ctx.tenantId)}`,
  );
  return row?.role ?? undefined;
}

/**
 * Throws unless the caller is an administrator or holds at least role `needed` on folder `folderId`.
 * `field`: the body's key that sent `folderId`, which its 404 names (AppError).
 */
export async function assertFolderRole(ctx: AppContext, folderId: unknown, needed: number, what: string, field?: string): Promise<void> {
  if (await ctx.isAdmin()) return;
  const refusal = forbidden(`${what} needs the ${ROLE_NAMES[needed]} role on the folder${needed > 1 ? ' (or a stronger one)' : ''}, or a tenant administrator.`);
  if (!isGuid(folderId)) throw refusal;
  const id = folderId.toLowerCase();
  if ((await selectRows(ctx.reader, resource('Folder'), { where: [sql`t.id = ${id}`] })).length === 0) throw notFound(`Folder '${folderId}' was not found.`, { field });
  const role = await roleOn(ctx, id);
  if (role === undefined || role > needed) throw refusal;
}

/**
 * Throws a 403 unless the caller is an administrator or an Owner of every folder under `folderId`
 * as well: deleting a folder, or cascading a change of its members, reaches each of them, those
 * the caller cannot see included. One statement; the folder itself was checked before.
 */
export async function assertOwnsSubfolders(ctx: AppContext, folderId: string, what: string): Promise<void> {
  if (await ctx.isAdmin()) return;
  const [folder] = await selectRows<{ id: string; folderPath: string; topLevelFolderId: string }>(ctx.reader, resource('Folder'), { where: [sql`t.id = ${folderId.toLowerCase()}`] });
  if (!folder) throw notFound(`Folder '${folderId}' was not found.`);
  const [row] = await run<{ n: string }>(
    ctx.reader,
    sql`select count(*) as n from folder f where f.tenant_id = ${ctx.tenantId} and f.id <> ${folder.id} and ${subtreeOf(folder, 'f')}
      and not exists (select 1 from folder_member fm where fm.tenant_id = f.tenant_id and fm.folder_id = f.id and fm.role = ${ROLES.owner} and ${isMember(ctx.caller.userId, ctx.tenantId)})`,
  );
  const n = Number(row.n);
  if (n > 0) throw forbidden(`${what} reaches every folder under this one, and you are not an Owner of ${n} of them: that needs the Owner role on each, or a tenant administrator.`);
}

/** The folder a document id (its own, or a revision's) is in; undefined when the caller cannot see it. */
export async function folderOfDocument(ctx: AppContext, documentId: unknown): Promise<string | undefined> {
  if (!isGuid(documentId)) return undefined;
  const key = documentId.toLowerCase();
  const [doc] = await selectRows<{ folderId: string }>(ctx.reader, resource('Document'), { where: [namedBy(ctx.reader, key)] });
  return doc?.folderId;
}
