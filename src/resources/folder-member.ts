import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, computed, defineResource } from '../read/define.js';
import { folderSeenBy } from './folder.js';

/** The folder roles by code and by name, as the clients' RoleType has them; a lower code allows more. */
export const ROLES = { owner: 1, editor: 2, publisher: 3, viewer: 4 } as const;
export const ROLE_NAMES = ['', 'Owner', 'Editor', 'Publisher', 'Viewer'] as const;

/**
 * A user or a group with a role on a folder (dataType SecurityMember), shaped as the public .NET
 * client's SecurityMember: `parentId` is the folder, `memberType` 0 a user and 1 a group,
 * `memberRole` 1 Owner, 2 Editor, 3 Publisher, 4 Viewer (docs/decisions.md, "Folder security").
 */
export default defineResource({
  dataType: 'SecurityMember',
  typeName: 'SecurityMember',
  table: 'folder_member',
  href: '~/folders/{parentId}/securitymembers/{memberId}',
  idField: 'memberId',
  label: 'Security member',
  fields: {
    parentId: column('folder_id', 'guid'),
    memberId: column('member_id', 'guid'),
    memberName: computed("coalesce(mu_.name, mg_.name, '')", 'string'),
    memberType: computed('case when t.user_id is null then 1 else 0 end', 'integer'),
    memberRole: column('role', 'integer'),
    memberRoleValue: computed(`(array[${ROLE_NAMES.slice(1).map((n) => `'${n}'`).join(', ')}])[t.role]`, 'string'),
    ...auditFields({ expandOnly: true }),
  },
  joins: {
    mu_: { table: 'app_user', on: 'mu_.id = t.user_id' },
    mg_: { table: 'user_group', on: 'mg_.id = t.group_id' },
    ...AUDIT_JOINS,
  },
  order: 't.role, t.member_id',
  relations: {
    folder: { kind: 'one', target: 'Folder', key: 'parentId', graphqlOnly: true },
    // memberId names a user or a group: the other reads null.
    user: { kind: 'one', target: 'User', key: 'memberId', graphqlOnly: true },
    group: { kind: 'one', target: 'Group', key: 'memberId', graphqlOnly: true },
    ...AUDIT_RELATIONS,
  },
  queries: {
    folderSecurityMembers: { op: 'list', parent: { resource: 'Folder', arg: 'folderId', field: 'parentId' } },
  },
  access: { see: folderSeenBy('t.folder_id'), change: 'admin' },
});
