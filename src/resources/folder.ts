import { ZERO_GUID } from '../ids.js';
import { AUDIT_RELATIONS, column, defineResource, type RowRule } from '../read/define.js';
import { raw, sql, type Sql } from '../sql.js';

/**
 * Who sees what a folder holds (docs/decisions.md, "Folder security"): `folder` is SQL on the
 * row alias `t` naming the folder. A folder without security members is open to everyone in the
 * database; one with members to its members, users directly or through a group.
 * (Administrators pass every row rule: src/read/row-access.ts.)
 * Each `exists` names the outer row only in its equalities on tenant and folder, so PostgreSQL
 * may read the caller's folders once into a hash (a hashed SubPlan) instead of probing per row:
 * the caller's groups were found in the outer row's tenant, and 500,000 documents in a secured
 * folder took 2 s.
 */
export function folderSeenBy(folder: string): RowRule {
  const f = raw(folder);
  return (caller, tenant) => sql`(not exists (select 1 from folder_member fm where fm.tenant_id = t.tenant_id and fm.folder_id = ${f})
    or exists (select 1 from folder_member fm where fm.tenant_id = t.tenant_id and fm.folder_id = ${f} and ${isMember(caller, tenant)}))`;
}

/** A `folder_member` row (alias `fm`) names the caller, directly or through one of their groups. */
export const isMember = (caller: Sql | string, tenant: Sql | string): Sql =>
  sql`(fm.user_id = ${caller} or fm.group_id in (select gm.group_id from group_member gm where gm.tenant_id = ${tenant} and gm.user_id = ${caller}))`;

/** `folder` and every folder under it, as rows of alias `a`: a child's path is made from its parent's exactly, so theirs begin with its path and a '/'. */
export const subtreeOf = (folder: { id: string; folderPath: string; topLevelFolderId: string }, a = 't'): Sql =>
  sql`${raw(a)}.top_id = ${folder.topLevelFolderId} and (${raw(a)}.id = ${folder.id} or left(${raw(a)}.path, char_length(${folder.folderPath}::text) + 1) = ${`${folder.folderPath}/`}::text)`;

/** The folder of a row that names its document in `document_id`. */
export const FOLDER_OF_DOCUMENT = '(select dd.folder_id from document dd where dd.tenant_id = t.tenant_id and dd.id = t.document_id)';

/** The folder of a row that names a document revision in `revision_id`. */
export const FOLDER_OF_REVISION =
  '(select dd.folder_id from document_revision rr join document dd on dd.tenant_id = rr.tenant_id and dd.id = rr.document_id where rr.tenant_id = t.tenant_id and rr.id = t.revision_id)';

/**
 * A folder of the document library, in a tree per tenant. `folderPath` is its whole path
 * (`/Top/Child`); a top-level folder's `parentFolderId` is the all-zero GUID and its
 * `topLevelFolderId` its own id (docs/decisions.md, "Folders").
 */
export default defineResource({
  dataType: 'Folder',
  typeName: 'Folder',
  table: 'folder',
  href: '~/folders/{id}',
  idField: 'id',
  label: 'Folder',
  fields: {
    id: column('id', 'guid'),
    name: column('name', 'string'),
    description: column('description', 'string'),
    modifyDate: column('modified_at', 'datetime'),
    createDate: column('created_at', 'datetime'),
    modifyById: column('modified_by_id', 'guid', { nullAs: ZERO_GUID }),
    createById: column('created_by_id', 'guid', { nullAs: ZERO_GUID }),
    topLevelFolderId: column('top_id', 'guid'),
    folderType: column('folder_type', 'integer'),
    status: column('status', 'integer'),
    folderPath: column('path', 'string'),
    parentFolderId: column('parent_id', 'guid', { nullAs: ZERO_GUID }),
    // Spelled as the .NET client's Folder reads it; the request key is `allowRevisions` (or this) (docs/decisions.md, "Folders").
    allowRevision: column('allow_revisions', 'boolean'),
  },
  // Every list of folders is of one parent's (top-level or children), whose names are unique
  // without case (so the order is total): by name is their path's order, served by
  // folder_parent_ix (parent_id leads, or PostgreSQL sorts a `parent_id is null` list). The path
  // itself can be indexed only by its md5 (folder_path_uq), so ordering by it sorted every list.
  order: 't.parent_id, lower(t.name)',
  relations: {
    parent: { kind: 'one', target: 'Folder', key: 'parentFolderId' },
    folders: { kind: 'many', target: 'Folder', column: 'parent_id' },
    indexFields: { kind: 'many', target: 'FolderIndexField', column: 'folder_id' },
    documents: { kind: 'many', target: 'Document', column: 'folder_id' },
    securityMembers: { kind: 'many', target: 'SecurityMember', column: 'folder_id', graphqlOnly: true },
    alerts: { kind: 'many', target: 'AlertSubscription', column: 'folder_id', graphqlOnly: true },
    topLevelFolder: { kind: 'one', target: 'Folder', key: 'topLevelFolderId', graphqlOnly: true },
    ...AUDIT_RELATIONS,
  },
  queries: {
    folder: { op: 'get' },
    childFolders: { op: 'list', parent: { resource: 'Folder', arg: 'id', field: 'parentFolderId' } },
  },
  access: { see: folderSeenBy('t.id'), change: 'admin' },
});
