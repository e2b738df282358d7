import { column, defineResource } from '../read/define.js';

export default defineResource({
  dataType: 'Site',
  typeName: 'Site',
  table: 'site',
  href: '~/sites/{id}',
  idField: 'id',
  label: 'Site',
  fields: {
    id: column('id', 'guid'),
    name: column('name', 'string'),
    description: column('description', 'string'),
    siteType: column('site_type', 'string'),
    status: column('status', 'string'),
  },
  order: 'lower(t.name), t.id',
  relations: {
    groups: { kind: 'many', target: 'Group', column: 'site_id' },
    users: { kind: 'many', target: 'User', column: 'site_id' },
  },
  queries: {
    sites: { op: 'list' },
    site: { op: 'get' },
  },
  access: { see: 'tenant', change: 'admin' },
});
