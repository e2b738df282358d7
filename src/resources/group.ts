import { ZERO_GUID } from '../ids.js';
import { column, defineResource, type ParentScope } from '../read/define.js';
import { MEMBERSHIP } from './user.js';

const IN_SITE: ParentScope = { resource: 'Site', arg: 'siteId', field: 'siteId' };

export default defineResource({
  dataType: 'Group',
  typeName: 'Group',
  table: 'user_group',
  href: '~/groups/{id}',
  idField: 'id',
  label: 'Group',
  fields: {
    id: column('id', 'guid'),
    name: column('name', 'string'),
    description: column('description', 'string'),
    /** A group without a site reads (and filters) as the all-zero GUID. */
    siteId: column('site_id', 'guid', { nullAs: ZERO_GUID }),
  },
  // Group names are unique per tenant, case-insensitively: the unique index gives this order.
  order: 'name_key(t.name)',
  relations: {
    site: { kind: 'one', target: 'Site', key: 'siteId' },
    users: { kind: 'through', target: 'User', link: MEMBERSHIP },
  },
  queries: {
    groups: { op: 'list' },
    group: { op: 'get' },
    siteGroups: { op: 'list', parent: IN_SITE },
    siteGroup: { op: 'get', arg: 'groupId', parent: IN_SITE },
    userGroups: { op: 'list', parent: { resource: 'User', arg: 'userId', link: { ...MEMBERSHIP, from: 'user_id', to: 'group_id' } } },
  },
  access: { see: 'tenant', change: 'admin' },
});
