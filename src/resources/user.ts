import { column, defineResource, type Link, type ParentScope } from '../read/define.js';

/** Group membership, from the group's side. */
export const MEMBERSHIP: Link = { table: 'group_member', from: 'group_id', to: 'user_id' };
const SUPERVISORS: Link = { table: 'user_supervisor', from: 'user_id', to: 'supervisor_id' };
const SUPERVISEES: Link = { table: 'user_supervisor', from: 'supervisor_id', to: 'user_id' };

const IN_SITE: ParentScope = { resource: 'Site', arg: 'siteId', field: 'siteId' };
const IN_GROUP: ParentScope = { resource: 'Group', arg: 'groupId', link: MEMBERSHIP, notInParent: 'is not a member of group' };

export default defineResource({
  dataType: 'User',
  typeName: 'User',
  table: 'app_user',
  href: '~/users/{id}',
  idField: 'id',
  label: 'User',
  fields: {
    id: column('id', 'guid'),
    name: column('name', 'string'),
    userid: column('user_id', 'string'),
    firstName: column('first_name', 'string'),
    middleInitial: column('middle_initial', 'string'),
    lastName: column('last_name', 'string'),
    passwordExpires: column('password_expires', 'datetime'),
    userIdExpires: column('user_id_expires', 'datetime'),
    emailAddress: column('email_address', 'string'),
    siteId: column('site_id', 'guid'),
    userIdNeverExpires: column('user_id_never_expires', 'boolean'),
    passwordNeverExpires: column('password_never_expires', 'boolean'),
    enabled: column('enabled', 'boolean'),
    lastIpAddress: column('last_ip_address', 'string'),
    // Beyond the spec's User fields, so not a default one: `fields=` or `expand=data` show it.
    isVaultAccess: column('is_vault_access', 'boolean', { expandOnly: true }),
  },
  // User ids are unique per tenant, case-insensitively: the unique index gives this order.
  order: 'name_key(t.user_id)',
  relations: {
    site: { kind: 'one', target: 'Site', key: 'siteId' },
    groups: { kind: 'through', target: 'Group', link: { ...MEMBERSHIP, from: 'user_id', to: 'group_id' } },
    supervisors: { kind: 'through', target: 'User', link: SUPERVISORS },
    supervisees: { kind: 'through', target: 'User', link: SUPERVISEES },
  },
  queries: {
    user: { op: 'get' },
    siteUsers: { op: 'list', parent: IN_SITE },
    siteUser: { op: 'get', arg: 'userId', parent: IN_SITE },
    groupUsers: { op: 'list', parent: IN_GROUP },
    groupUser: { op: 'get', arg: 'userId', parent: IN_GROUP },
    userSupervisors: { op: 'list', parent: { resource: 'User', arg: 'userId', link: SUPERVISORS } },
    userSupervisees: { op: 'list', parent: { resource: 'User', arg: 'userId', link: SUPERVISEES } },
  },
  access: { see: 'tenant', change: 'admin' },
  zeroIdIsCaller: true,
});
