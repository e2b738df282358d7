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
    // In UTF-16 code units, as PersistedData's dataLength and the clients' `.length` count: a
    // character past U+FFFF is two (docs/decisions.md, "Scripts"). Sources are small: counted per read.
    sourceLength: computed(`2 * char_length(t.source) - char_length(regexp_replace(t.source, '[\\U00010000-\\U0010FFFF]', '', 'g'))`, 'integer'),
    ...auditFields(),
  },
  joins: AUDIT_JOINS,
  // Names are unique per tenant, case-insensitively: the unique index gives this order (an id after it made PostgreSQL sort).
  order: 'name_key(t.name)',
  relations: { ...AUDIT_RELATIONS },
  queries: { scripts: { op: 'list' }, script: { op: 'get' } },
  // No row rule admits an ordinary user; administrators pass every rule.
  access: { see: () => sql`false`, change: 'admin' },
});
