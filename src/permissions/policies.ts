/** Named access policies for root fields (`@allow(to: POLICY, policy: "...")`), each a 403 when refused. */
import type { AppContext } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { requireGuid, ZERO_GUID } from '../ids.js';
import { resource } from '../read/registry.js';
import { ROLES } from '../resources/folder-member.js';
import { assertFolderRole, assertOwnsSubfolders, folderOfDocument } from './folder-roles.js';
import { assertMayChange } from './row-checks.js';

/** Whether a user id argument names the caller (the all-zero GUID does). */
export const isCaller = (ctx: AppContext, id: unknown): boolean =>
  typeof id === 'string' && (id === ZERO_GUID || id.toLowerCase() === ctx.caller.userId);

/**
 * What an ordinary user may send when changing their own account (`PUT users/{id}`, `PUT
 * sites/{siteId}/users/{userId}`): the profile and the password change the Node client documents
 * for one's own account (putUsersEndpoint). Everything else (enabled, siteId, userid ...) is an
 * administrator's.
 */
const SELF_EDITABLE = new Set(['firstName', 'middleInitial', 'lastName', 'emailaddress', 'newPassword', 'oldPassword']);

type Args = Record<string, unknown>;

/** An argument by its path (`input.folderId`). */
const argAt = (args: Args, path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Args)[k] : undefined), args);

/** The body's key an argument path names (`folderId` of `input.folderId`), which a 404 of its id names; none for a path's id. */
const bodyKey = (path: string): string | undefined => (path.includes('.') ? path.split('.').pop() : undefined);

/**
 * The id an argument names. A path argument is a GUID (its type says so); a body key the write
 * requires is checked as the write checks it, so one not sent, or no GUID, is the same 400 for
 * everyone: a refusal would send an ordinary user to seek a role where the fault is their body.
 */
const idAt = (args: Args, path: string): string => {
  const key = bodyKey(path);
  return key ? requireGuid(argAt(args, path), key) : (args[path] as string);
};

/** A role on the folder the argument `arg` names. */
const onFolder = (needed: number, what: string) => (ctx: AppContext, args: Args, arg: string) => assertFolderRole(ctx, idAt(args, arg), needed, what, bodyKey(arg));

/** A role on the folder of the document (or revision: `named`) the argument `arg` names (404 when the caller cannot see it). */
const onDocumentFolder = (needed: number, what: string, named = 'Document') => async (ctx: AppContext, args: Args, arg: string) => {
  const id = idAt(args, arg);
  if (await ctx.isAdmin()) return;
  const folder = await folderOfDocument(ctx, id);
  if (!folder) throw notFound(`${named} '${id}' was not found.`, { field: bodyKey(arg) });
  return assertFolderRole(ctx, folder, needed, what);
};

export const policies: Record<string, (ctx: AppContext, args: Args, arg: string) => Promise<void>> = {
  /** Subfolders, renames and a folder's documents' changes: Editors. */
  folderEditor: onFolder(ROLES.editor, 'This change of a folder'),
  /** A folder's index fields: Owners. */
  folderOwner: onFolder(ROLES.owner, "Changing a folder's index fields"),
  /** Deleting a folder, which deletes every folder under it: an Owner of each. */
  async folderDelete(ctx, args, arg) {
    await onFolder(ROLES.owner, 'Deleting a folder')(ctx, args, arg);
    await assertOwnsSubfolders(ctx, argAt(args, arg) as string, 'Deleting a folder');
  },
  /** A folder's security members: Owners; a change that cascades, an Owner of every folder under it too. */
  async folderMembers(ctx, args, arg) {
    await onFolder(ROLES.owner, "Changing a folder's members")(ctx, args, arg);
    if (argAt(args, 'input.cascadeSecurityChanges') === true || args.cascadeSecurityChanges === true) {
      await assertOwnsSubfolders(ctx, argAt(args, arg) as string, 'A cascading change of members');
    }
  },
  /** Adding a document to a folder: Publishers. */
  folderPublisher: onFolder(ROLES.publisher, 'Adding a document to a folder'),
  /** Changing or deleting a document, its expiration or index field values: Editors of its folder. */
  documentEditor: onDocumentFolder(ROLES.editor, 'Changing a document'),
  /** Deleting a revision, named by its id: Editors of its document's folder. */
  revisionEditor: onDocumentFolder(ROLES.editor, 'Changing a document', 'Document revision'),
  /** A new revision (a file upload): Publishers of the document's folder. */
  documentPublisher: onDocumentFolder(ROLES.publisher, 'Adding a revision to a document'),
  /** Checking a document out or in: Publishers of its folder, as for an upload. */
  documentCheckOut: onDocumentFolder(ROLES.publisher, 'Checking a document out or in'),
  /** Moving a document: an Editor of its folder who is a Publisher of the folder it goes to. */
  async documentMove(ctx, args, arg) {
    await onDocumentFolder(ROLES.editor, 'Moving a document out of its folder')(ctx, args, arg);
    await onFolder(ROLES.publisher, 'Moving a document into a folder')(ctx, args, 'input.folderId');
  },
  /** Administrators change any user (the argument `arg` names it); users change their own profile and password only. */
  async ownProfileOrAdmin(ctx, args, arg) {
    if (await ctx.isAdmin()) return;
    if (!isCaller(ctx, args[arg])) throw forbidden('You may act only on your own account; this needs a tenant administrator.');
    const denied = Object.keys((args.input as object | undefined) ?? {}).filter((k) => !SELF_EDITABLE.has(k));
    if (denied.length) throw forbidden(`Only an administrator may change ${denied.join(', ')}.`);
  },
  /** A persisted data dictionary: its creator or an administrator (404 when the caller cannot see it). */
  persistedDataOwnerOrAdmin: (ctx, args) => assertMayChange(ctx, resource('PersistedData'), args.id as string),
  /** Changing or deleting a saved search: its owner, or an administrator. */
  savedSearchOwnerOrAdmin: (ctx, args) => assertMayChange(ctx, resource('SavedSearch'), args.asid as string),
};
