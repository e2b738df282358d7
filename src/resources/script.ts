import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, computed, defineResource } from '../read/define.js';
import { sql } from '../sql.js';

/**
 * A script (dataType Script): what the outside process runs when `POST scripts` names it. Only
 * administrators read scripts (a source may hold credentials); anyone in the tenant runs one.
 */
export default defineResource({
  dataType: 'Script',
  typeName: 'Script',
  table: 'script',
  href: '~/scripts/{id}',
  idField: 'id',
  label: 'Script',
  fields: {
    id: column('id', 'guid'),
    name: column('name', 'string'),
    description: column('description', 'string'),
    source: column('source', 'string', { expandOnly: true }),
    sourceLength: computed('char_length(t.source)', 'integer'),
    ...auditFields(),
  },
  joins: AUDIT_JOINS,
  // Names are unique per tenant, case-insensitively: the unique index gives this order (an id after it made PostgreSQL sort).
  order: 'lower(t.name)',
  relations: { ...AUDIT_RELATIONS },
  queries: { scripts: { op: 'list' }, script: { op: 'get' } },
  // No row rule admits an ordinary user; administrators pass every rule.
  access: { see: () => sql`false`, change: 'admin' },
});
