import { ZERO_GUID } from '../ids.js';
import { AUDIT_RELATIONS, column, computed, defineResource } from '../read/define.js';
import { sql } from '../sql.js';

/**
 * An outgoing e-mail message in the queue. The spec's one route, `POST emails`, answers
 * `{success}`; `GET emails` and `GET emails/{id}` (its href) read them. Its sender sees it, an
 * administrator every one. `status` 0 queued, 1 sent, 2 failed (src/entities/email.ts); `body`
 * only when asked for.
 */
export default defineResource({
  dataType: 'Email',
  typeName: 'Email',
  table: 'email_message',
  href: '~/emails/{id}',
  idField: 'id',
  label: 'E-mail',
  fields: {
    id: column('id', 'guid'),
    recipients: column('recipients', 'string'),
    ccRecipients: column('cc_recipients', 'string'),
    bccRecipients: column('bcc_recipients', 'string'),
    subject: column('subject', 'string'),
    body: column('body', 'string', { expandOnly: true }),
    status: column('status', 'integer'),
    attempts: column('attempts', 'integer'),
    nextAttemptDate: column('next_attempt_at', 'datetime'),
    lastError: column('last_error', 'string'),
    sentDate: column('sent_at', 'datetime'),
    attachmentCount: computed('(select count(*) from email_attachment a where a.tenant_id = t.tenant_id and a.message_id = t.id)', 'integer'),
    createDate: column('created_at', 'datetime'),
    createById: column('created_by_id', 'guid', { nullAs: ZERO_GUID }),
  },
  // Ids are time-ordered (UUID v7): the primary key gives the order they were queued in.
  order: 't.id',
  relations: {
    attachments: { kind: 'many', target: 'EmailAttachment', column: 'message_id' },
    createByUser: AUDIT_RELATIONS.createByUser,
  },
  queries: { emails: { op: 'list' }, email: { op: 'get' } },
  access: { see: (caller) => sql`t.created_by_id = ${caller}`, change: 'admin' },
});
