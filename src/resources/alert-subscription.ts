import { alertEvents } from '../alert-events.js';
import { AUDIT_JOINS, AUDIT_RELATIONS, column, computed, defineResource, joined } from '../read/define.js';
import { ZERO_GUID } from '../ids.js';
import { sql } from '../sql.js';

const eventName = `case t.event_id ${alertEvents.map((e) => `when '${e.id}' then '${e.name}'`).join(' ')} else '' end`;

/**
 * A user's alert subscription (dataType AlertSubscription): an event (src/alert-events.ts) on a
 * folder's documents (`folderId`) or on one document (`documentId`), the other the all-zero GUID
 * (docs/decisions.md, "Alerts"). A user sees their own; administrators see every one.
 */
export default defineResource({
  dataType: 'AlertSubscription',
  typeName: 'AlertSubscription',
  table: 'alert_subscription',
  href: '~/alerts/{id}',
  idField: 'id',
  label: 'Alert subscription',
  fields: {
    id: column('id', 'guid'),
    eventId: column('event_id', 'guid'),
    eventName: computed(eventName, 'string'),
    folderId: column('folder_id', 'guid', { nullAs: ZERO_GUID }),
    documentId: column('document_id', 'guid', { nullAs: ZERO_GUID }),
    userId: column('user_id', 'guid'),
    userName: joined('su_', 'name', 'string'),
    createDate: column('created_at', 'datetime'),
    createById: column('created_by_id', 'guid', { nullAs: ZERO_GUID }),
    createBy: joined('cu', 'name', 'string', { nullAs: '' }),
  },
  joins: { su_: { table: 'app_user', on: 'su_.id = t.user_id' }, cu: AUDIT_JOINS.cu },
  order: 't.object_id, t.event_id, t.user_id',
  relations: {
    user: { kind: 'one', target: 'User', key: 'userId' },
    folder: { kind: 'one', target: 'Folder', key: 'folderId' },
    document: { kind: 'one', target: 'Document', key: 'documentId', targetKey: 'documentId', graphqlOnly: true },
    createByUser: AUDIT_RELATIONS.createByUser,
  },
  queries: {
    alertSubscriptions: { op: 'list' },
    alertSubscription: { op: 'get' },
    folderAlerts: { op: 'list', parent: { resource: 'Folder', arg: 'id', field: 'folderId' } },
  },
  access: { see: (caller) => sql`t.user_id = ${caller}`, change: (caller) => sql`t.user_id = ${caller}` },
});
