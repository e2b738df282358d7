/** Outgoing e-mail: queueing a message (src/domain/emails.ts), and an attachment's bytes; the records come from src/resources/email.ts. Who may call each: schema/email.graphql. */
import type { AppContext } from '../context.js';
import { queueEmail } from '../domain/emails.js';
import { servedType } from '../domain/files.js';
import { notFound } from '../errors.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { raw, sql } from '../sql.js';

const ATTACHMENT = resource('EmailAttachment');

export const resolvers = {
  Query: {
    // The bytes with the record, under the attachment's own access rule (its message's sender, or an administrator).
    emailAttachmentFile: async (_: unknown, a: { messageId: string; id: string }, ctx: AppContext) => {
      const [row] = await selectRows<{ fileName: string; contentType: string; content: Buffer }>(ctx.reader, ATTACHMENT, {
        extra: raw(', t.content as "content"'),
        where: [sql`t.message_id = ${a.messageId}`, sql`t.id = ${a.id}`],
      });
      if (!row) throw notFound(`E-mail attachment '${a.id}' was not found in message '${a.messageId}'.`);
      return { fileName: row.fileName, contentType: servedType(ctx, row.contentType, a.id), content: row.content.toString('base64') };
    },
  },
  Mutation: {
    sendEmail: async (_: unknown, { input }: { input: Record<string, unknown> }, ctx: AppContext) => {
      await queueEmail(ctx, input);
      return { success: true };
    },
  },
};
