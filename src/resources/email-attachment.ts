import { column, defineResource } from '../read/define.js';
import { sql } from '../sql.js';

/** A file sent with an e-mail message; its href downloads its bytes (`emailAttachmentFile`). */
export default defineResource({
  dataType: 'EmailAttachment',
  typeName: 'EmailAttachment',
  table: 'email_attachment',
  href: '~/emails/{messageId}/attachments/{id}',
  idField: 'id',
  label: 'E-mail attachment',
  fields: {
    id: column('id', 'guid'),
    messageId: column('message_id', 'guid'),
    fileName: column('file_name', 'string'),
    contentType: column('content_type', 'string'),
    size: column('size', 'integer'),
    position: column('position', 'integer'),
  },
  order: 't.message_id, t.position',
  relations: {
    email: { kind: 'one', target: 'Email', key: 'messageId' },
  },
  access: {
    see: (caller) => sql`exists (select 1 from email_message m where m.tenant_id = t.tenant_id and m.id = t.message_id and m.created_by_id = ${caller})`,
    change: 'admin',
  },
});
