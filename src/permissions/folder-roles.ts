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
import { namedBy } from '../resources/document.js';
import { ROLE_NAMES } from '../resources/folder-member.js';
import { sql } from '../sql.js';


/** The caller's strongest role on the folder (undefined: none), one statement. */
async function roleOn(ctx: AppContext, folderId: string): Promise<number | undefined> {
  const [row] = await run<{ role: number | null }>(
    ctx.reader,
    sql`select min(fm.role) as role from folder_member fm where fm.tenant_id = ${ctx.tenantId} and fm.folder_id = ${folderId}
      and (fm.user_id = ${ctx.caller.userId} or fm.group_id in (select gm.group_id from group_member gm where gm.tenant_id = ${ctx.tenantId} and gm.user_id = ${ctx.caller.userId}))`,
  );
  return row?.role ?? undefined;
}

/** Throws unless the caller is an administrator or holds at least role `needed` on folder `folderId`. */
export async function assertFolderRole(ctx: AppContext, folderId: unknown, needed: number, what: string): Promise<void> {
  if (await ctx.isAdmin()) return;
  const refusal = forbidden(`${what} needs the ${ROLE_NAMES[needed]} role on the folder${needed > 1 ? ' (or a stronger one)' : ''}, or a tenant administrator.`);
  if (!isGuid(folderId)) throw refusal;
  const id = folderId.toLowerCase();
  if ((await selectRows(ctx.reader, resource('Folder'), { where: [sql`t.id = ${id}`] })).length === 0) throw notFound(`Folder '${folderId}' was not found.`);
  const role = await roleOn(ctx, id);
  if (role === undefined || role > needed) throw refusal;
}

/** The folder a document id (its own, or a revision's) is in; undefined when the caller cannot see it. */
export async function folderOfDocument(ctx: AppContext, documentId: unknown): Promise<string | undefined> {
  if (!isGuid(documentId)) return undefined;
  const key = documentId.toLowerCase();
  const [doc] = await selectRows<{ folderId: string }>(ctx.reader, resource('Document'), { where: [namedBy(key)] });
  return doc?.folderId;
}
