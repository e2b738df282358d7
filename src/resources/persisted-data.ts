import { AUDIT_RELATIONS, column, defineResource } from '../read/define.js';
import { sql } from '../sql.js';

/**
 * A persisted data dictionary. Scope 0 is its creator's own, 1 the whole tenant's; an
 * administrator sees and deletes every one. An expired row is gone for every read at once
 * (`live`) and deleted by the purge (src/purge.ts). Default fields: all but the dictionary
 * itself (`persistedData`), which `fields=` or `expand=data` asks for.
 */
export default defineResource({
  dataType: 'PersistedData',
  typeName: 'PersistedData',
  table: 'persisted_data',
  href: '~/persisteddata/{id}',
  idField: 'id',
  label: 'Persisted data',
  fields: {
    id: column('id', 'guid'),
    name: column('name', 'string'),
    scope: column('scope', 'integer'),
    persistedData: column('data', 'string', { expandOnly: true }),
    // UTF-16 code units, as the clients count; kept at create (docs/decisions.md, "Persisted data").
    dataLength: column('data_length', 'integer'),
    dataMimeType: column('data_mime_type', 'string'),
    expirationDateUtc: column('expires_at', 'datetime'),
    linkedObjectId: column('linked_object_id', 'string'),
    linkedObjectType: column('linked_object_type', 'integer'),
    createByUsId: column('created_by_id', 'guid'),
    modifiedByUsId: column('modified_by_id', 'guid'),
    createDateUtc: column('created_at', 'datetime'),
    modifiedDateUtc: column('modified_at', 'datetime'),
  },
  // Ids are time-ordered (UUID v7): the primary key gives creation order.
  order: 't.id',
  relations: {
    createByUser: { ...AUDIT_RELATIONS.createByUser, key: 'createByUsId' },
    modifyByUser: { ...AUDIT_RELATIONS.modifyByUser, key: 'modifiedByUsId' },
  },
  queries: { persistedData: { op: 'get' } },
  live: 't.expires_at is null or t.expires_at > now()',
  access: {
    see: (caller) => sql`(t.scope = 1 or t.created_by_id = ${caller})`,
    change: (caller) => sql`t.created_by_id = ${caller}`,
  },
});
