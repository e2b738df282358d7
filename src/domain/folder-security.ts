/**
 * Folder security members (docs/decisions.md, "Folder security"): a user or a group with a role
 * on a folder, on that folder alone or, with `cascadeSecurityChanges`, on every folder under it
 * too. The folder's row is locked first, so changes of one folder's members run one after the
 * other.
 */
import type { AppContext } from '../context.js';
import { deleteRows, upsertEach } from '../db/tenant-writes.js';
import { badRequest, notFound } from '../errors.js';
import { isGuid, requireGuid } from '../ids.js';
import { resource } from '../read/registry.js';
import { run, selectRows } from '../read/rows.js';
import { raw, sql } from '../sql.js';
import { ROLES } from '../resources/folder-member.js';
import { lockedFolder, TOP_FIRST, type FolderRow } from './folders.js';
import { subtreeOf } from '../resources/folder.js';

type Input = Record<string, unknown>;

/** `securityRole` (or `role`) as a code 1-4 or a name. */
export function roleOf(v: unknown, label = 'securityRole'): number {
  const s = String(v ?? '').trim();
  if (s === '') throw badRequest(`The field '${label}' is missing: send 1 (Owner), 2 (Editor), 3 (Publisher) or 4 (Viewer).`, { field: label });
  const name = s.toLowerCase();
  // Own keys only: `constructor` is no role, though every object answers to it.
  const code = /^\d$/.test(s) ? Number(s) : Object.hasOwn(ROLES, name) ? ROLES[name as keyof typeof ROLES] : undefined;
  if (!code || code < 1 || code > 4) throw badRequest(`The field '${label}' must be 1 (Owner), 2 (Editor), 3 (Publisher) or 4 (Viewer), got '${s.slice(0, 32)}'.`, { field: label });
  return code;
}

/** `memberType` as sent: 0 (or `user`) a user, 1 (or `group`) a group, undefined when left out. */
function memberTypeOf(v: unknown, label = 'memberType'): 'user' | 'group' | undefined {
  const type = v === undefined || v === null || v === '' ? undefined : String(v).trim().toLowerCase();
  if (type === undefined) return undefined;
  if (type === '0' || type === 'user') return 'user';
  if (type === '1' || type === 'group') return 'group';
  throw badRequest(`The field '${label}' must be 0 (user) or 1 (group), got '${type.slice(0, 32)}'.`, { field: label });
}

/**
 * Which column names the member: a user's id or a group's, as `type` says or, left out, as the id
 * turns out. The member's row is held against its delete (RowQuery.lock 'keyShare'): one
 * committed meanwhile is the 404 of an unknown id, not the foreign key's.
 */
async function memberColumn(ctx: AppContext, memberId: string, type: 'user' | 'group' | undefined, field: string): Promise<'user_id' | 'group_id'> {
  if (!isGuid(memberId)) throw badRequest(`The member id must be a GUID, got '${String(memberId).slice(0, 64)}'.`, { field });
  const id = memberId.toLowerCase();
  const exists = async (typeName: string) => (await selectRows(ctx.reader, resource(typeName), { where: [sql`t.id = ${id}`], lock: 'keyShare' })).length > 0;
  if (type !== 'group' && (await exists('User'))) return 'user_id';
  if (type !== 'user' && (await exists('Group'))) return 'group_id';
  throw notFound(type === undefined ? `No user or group has the id '${memberId}'.` : `${type === 'user' ? 'User' : 'Group'} '${memberId}' was not found.`, { field });
}

/**
 * The locked folder, or it and every folder under it, held against their delete: a subfolder
 * deleted meanwhile is left out (its delete waited for, or one begun later waits for this change
 * and takes the members along), never a foreign key's 404. For key share, as the inserts'
 * foreign keys would hold them, and in deleteFolder's order (TOP_FIRST): a move or rename above,
 * which updates these rows after this change's folder, does not wait for it, so cannot deadlock.
 */
async function foldersOf(ctx: AppContext, folder: FolderRow, cascade: boolean): Promise<string[]> {
  if (!cascade) return [folder.id];
  // Ids only: whole records of a subtree of 300,000 folders held about 1 GB.
  const rows = await run<{ id: string }>(ctx.reader, sql`select t.id from folder t where t.tenant_id = ${ctx.tenantId} and ${subtreeOf(folder)} order by ${raw(TOP_FIRST)} for key share of t`);
  return rows.map((f) => f.id);
}

/** Gives the member `role` on `folders` (the locked folder first); returns how many folders that is. `field` names the member id sent. */
async function giveRole(ctx: AppContext, folders: string[], memberId: string, type: 'user' | 'group' | undefined, role: number, field: string): Promise<number> {
  const column = await memberColumn(ctx, memberId, type, field);
  const by = ctx.caller.userId;
  await upsertEach(
    ctx.reader,
    'folder_member',
    'folder_id',
    folders,
    { [column]: memberId.toLowerCase(), role, created_by_id: by, modified_at: sql`now()`, modified_by_id: by },
    ['folder_id', 'member_id'],
    ['role', 'modified_at', 'modified_by_id'],
  );
  return folders.length;
}

/** Takes the member off `folders` (the locked `folder` first): a 404 when it is not a member of `folder` itself; returns how many folders it left. */
async function takeOff(ctx: AppContext, folder: FolderRow, folders: string[], memberId: string): Promise<number> {
  const id = memberId.toLowerCase();
  const [own] = await selectRows(ctx.reader, resource('SecurityMember'), { where: [sql`t.folder_id = ${folder.id}`, sql`t.member_id = ${id}`] });
  const notMember = () => notFound(`'${memberId}' is not a security member of folder '${folder.folderPath}'.`);
  if (!own) throw notMember();
  // A delete of the user or group takes its memberships without the folder's lock: committed
  // meanwhile, this finds none left, as a removal sent after it would.
  const removed = await deleteRows(ctx.reader, 'folder_member', sql`t.member_id = ${id} and t.folder_id = any(${folders}::uuid[])`);
  if (!removed) throw notMember();
  return removed;
}

/**
 * Gives the member its role on the folder (and, cascading, every folder under it); returns the
 * folder's id and the number of folders (the .NET client's `successCount`).
 */
export async function setMember(ctx: AppContext, folderId: string, memberId: string, input: Input): Promise<{ folderId: string; successCount: number }> {
  const role = roleOf(input.securityRole ?? input.role, input.securityRole === undefined && input.role !== undefined ? 'role' : 'securityRole');
  const type = memberTypeOf(input.memberType ?? (typeof input.isGroup === 'boolean' ? Number(input.isGroup) : undefined));
  const folder = await lockedFolder(ctx, folderId);
  const successCount = await giveRole(ctx, await foldersOf(ctx, folder, input.cascadeSecurityChanges === true), memberId, type, role, 'memberId');
  return { folderId: folder.id, successCount };
}

/**
 * Takes the member off the folder (and, cascading, every folder under it that has it); a 404 when
 * it is not a member of the folder itself. Returns the number of folders it left.
 */
export async function removeMember(ctx: AppContext, folderId: string, memberId: string, cascade: boolean | null | undefined): Promise<number> {
  const folder = await lockedFolder(ctx, folderId);
  return takeOff(ctx, folder, await foldersOf(ctx, folder, cascade === true), memberId);
}

/** At most this many actions in one `PUT folders/{id}/securitymembers`: all run under the folder's lock. */
const MAX_ACTIONS = 1000;

/**
 * Most folder memberships one batch of actions changes (actions times folders): each statement
 * stays short, but 1,000 actions cascading over 100,000 folders would hold the folders locked for
 * hours (10 actions over 100,000 took 65 s).
 */
export const MAX_CHANGES = 1_000_000;

/** One action of that PUT (the .NET client's SecurityMemberApplyAction): a role to give, or none to take the member off. */
interface Action {
  memberId: string;
  type: 'user' | 'group' | undefined;
  role: number | undefined;
}

/**
 * An action as sent, checked before anything changes; its refusals name its index and key. The
 * .NET client's serializer leaves out a property at its enum's default (DefaultValueHandling.Ignore),
 * so `action` left out is 0, Add, and `memberType` left out is a User (found from the id here, as on
 * the single-member route). A Remove reads no role (the client's is None, so left out).
 */
function actionOf(a: Input, i: number): Action {
  const key = `securityActions[${i}]`;
  const kind = String(a.action ?? '').trim().toLowerCase();
  if (!['', '0', 'add', '1', 'remove'].includes(kind)) throw badRequest(`The field '${key}.action' must be 0 (Add) or 1 (Remove), got '${kind.slice(0, 32)}'.`, { field: `${key}.action` });
  const remove = kind === '1' || kind === 'remove';
  return {
    memberId: requireGuid(a.memberId, `${key}.memberId`),
    type: memberTypeOf(a.memberType, `${key}.memberType`),
    role: remove ? undefined : roleOf(a.roleType, `${key}.roleType`),
  };
}

/**
 * Applies `securityActions` in order on the folder (and, cascading, every folder under it), all or
 * none: the first refusal undoes the transaction. Each is checked as the single-member routes
 * check theirs. Returns the number of actions, the .NET client's `successCount` (its tests expect
 * 2 for two actions with `cascadeSecurityChanges`).
 */
export async function applyActions(ctx: AppContext, folderId: string, input: Input): Promise<number> {
  const sent = input.securityActions as Input[] | null | undefined;
  if (!sent) throw badRequest("The mandatory field 'securityActions' is missing.", { field: 'securityActions' });
  if (sent.length > MAX_ACTIONS) throw badRequest(`The field 'securityActions' may hold at most ${MAX_ACTIONS} actions, got ${sent.length}.`, { field: 'securityActions' });
  const actions = sent.map(actionOf);
  const folder = await lockedFolder(ctx, folderId);
  const folders = await foldersOf(ctx, folder, input.cascadeSecurityChanges === true);
  if (actions.length * folders.length > MAX_CHANGES) {
    throw badRequest(
      `The ${actions.length} actions over ${folders.length} folders would make ${actions.length * folders.length} changes; one request makes at most ${MAX_CHANGES}: send fewer actions at a time.`,
      { field: 'securityActions' },
    );
  }
  for (const [i, a] of actions.entries()) {
    if (a.role === undefined) await takeOff(ctx, folder, folders, a.memberId);
    else await giveRole(ctx, folders, a.memberId, a.type, a.role, `securityActions[${i}].memberId`);
  }
  return actions.length;
}
