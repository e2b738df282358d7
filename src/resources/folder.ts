import { ZERO_GUID } from '../ids.js';
import { column, defineResource } from '../read/define.js';

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
    allowRevisions: column('allow_revisions', 'boolean'),
  },
  // Paths are unique per tenant without case: the unique index gives this order (a tree, depth first).
  order: 'lower(t.path)',
  relations: {
    parent: { kind: 'one', target: 'Folder', key: 'parentFolderId' },
    folders: { kind: 'many', target: 'Folder', column: 'parent_id' },
    indexFields: { kind: 'many', target: 'FolderIndexField', column: 'folder_id' },
  },
  queries: {
    folder: { op: 'get' },
    childFolders: { op: 'list', parent: { resource: 'Folder', arg: 'id', field: 'parentFolderId' } },
  },
  access: { see: 'tenant', change: 'admin' },
});
