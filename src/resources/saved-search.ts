import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, defineResource, joined } from '../read/define.js';
import { ZERO_GUID } from '../ids.js';
import { sql } from '../sql.js';

/**
 * A saved document search (dataType SavedSearch), identified by `asid` as the Node client reads
 * it (and by `id`, the same value, which its tests read): a `q` over documents, within the folder `folderId` and those under it (the all-zero GUID:
 * every folder). Its owner sees it, and everyone in the database when it is `shared`
 * (docs/decisions.md, "Saved searches").
 */
export default defineResource({
  dataType: 'SavedSearch',
  typeName: 'SavedSearch',
  table: 'saved_search',
  href: '~/savedsearches/{asid}',
  idField: 'asid',
  label: 'Saved search',
  fields: {
    asid: column('id', 'guid'),
    id: column('id', 'guid'),
    name: column('name', 'string'),
    description: column('description', 'string'),
    q: column('q', 'string'),
    folderId: column('folder_id', 'guid', { nullAs: ZERO_GUID }),
    folderPath: joined('sf_', 'path', 'string', { nullAs: '' }),
    shared: column('shared', 'boolean'),
    ownerId: column('owner_id', 'guid'),
    ownerName: joined('so_', 'name', 'string', { nullAs: '' }),
    ...auditFields(),
  },
  joins: { sf_: { table: 'folder', on: 'sf_.id = t.folder_id' }, so_: { table: 'app_user', on: 'so_.id = t.owner_id' }, ...AUDIT_JOINS },
  order: 'lower(t.name), t.id',
  relations: {
    owner: { kind: 'one', target: 'User', key: 'ownerId' },
    folder: { kind: 'one', target: 'Folder', key: 'folderId' },
    ...AUDIT_RELATIONS,
  },
  queries: { savedSearches: { op: 'list' }, savedSearch: { op: 'get', arg: 'asid' } },
  access: { see: (caller) => sql`(t.owner_id = ${caller} or t.shared)`, change: (caller) => sql`t.owner_id = ${caller}` },
});
