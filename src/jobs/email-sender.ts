/**
 * Sends queued e-mail in batches (docs/decisions.md, "E-mail"). A batch claims due messages of
 * every tenant with `FOR UPDATE SKIP LOCKED` and a lease, so processes on one database never take
 * the same message at once; one that dies mid-send leaves its lease to run out and the message is
 * tried again (sent at least once). A message the mail server refuses for good (5xx) fails at
 * once; other errors are tried again later, up to EMAIL_MAX_ATTEMPTS tries. The queue's rows are
 * its log: status, tries, last error and the server's answer stay with each message.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.js';
import type { Services } from '../context.js';
import { EMAIL_STATUS } from '../entities/email.js';
import { repeat, type Repeating } from './repeat.js';

/** The wait before the second try; each further try waits twice as long, at most an hour. */
const FIRST_RETRY_SECONDS = 30;
const MAX_RETRY_SECONDS = 3600;
const MAX_TEXT = 1000;

type SenderServices = Pick<Services, 'orm' | 'log'> & { config: Pick<Config, 'smtpUrl' | 'emailFrom' | 'emailBatchSeconds' | 'emailBatchSize' | 'emailMaxAttempts' | 'emailLeaseSeconds'> };

interface Claimed {
  tenant_id: string;
  id: string;
  recipients: string;
  cc_recipients: string;
  bcc_recipients: string;
  subject: string;
  body: string;
  attempts: number;
}

export interface BatchResult {
  claimed: number;
  sent: number;
  retried: number;
  failed: number;
}

/** The mail server of SMTP_URL, one pooled connection reused across a batch. */
export function smtpTransport(config: Pick<Config, 'smtpUrl' | 'emailFrom'>): Transporter {
  return nodemailer.createTransport(
    { url: config.smtpUrl, pool: true, maxConnections: 1, connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 },
    { from: config.emailFrom },
  );
}

/**
 * A body with markup (a `<` and a letter, later a `>`) goes as HTML, any other as plain text.
 * The first `<letter` decides: a `>` after any later one is after it too. One pass: the regex
 * /<[a-z][^>]*>/ went over the rest of the body from every `<` (minutes for a megabyte of `<a`).
 */
export function isHtml(body: string): boolean {
  const tag = body.search(/<[a-z]/i);
  return tag >= 0 && body.indexOf('>', tag + 2) >= 0;
}

/** Whether the mail server refused the message for good (a 5xx reply), so trying again is useless. */
const refusedForGood = (err: unknown) => {
  const code = (err as { responseCode?: number }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
};

/** The recipients the server refused while it took the message for the others, with its replies ('' when none). */
function refusedRecipients(info: { rejected?: string[]; rejectedErrors?: { recipient?: string; response?: string }[] }): string {
  const errors = info.rejectedErrors ?? (info.rejected ?? []).map((recipient) => ({ recipient, response: undefined }));
  if (errors.length === 0) return '';
  return `Refused by the server: ${errors.map((e) => (e.response ? `${e.recipient} (${e.response})` : e.recipient)).join(', ')}`;
}

/** One batch: claims up to EMAIL_BATCH_SIZE due messages and sends each. */
export async function sendDueEmails(services: SenderServices, transport: Transporter): Promise<BatchResult> {
  const c = services.orm.em.fork().getConnection();
  const claimed = await c.execute<Claimed[]>(
    `update email_message m
        set lease_until = now() + make_interval(secs => ?), attempts = m.attempts + 1
       from (select tenant_id, id from email_message
              where status = ${EMAIL_STATUS.queued} and next_attempt_at <= now() and (lease_until is null or lease_until < now())
              order by next_attempt_at, id limit ? for update skip locked) due
      where m.tenant_id = due.tenant_id and m.id = due.id
      returning m.tenant_id, m.id, m.recipients, m.cc_recipients, m.bcc_recipients, m.subject, m.body, m.attempts`,
    [services.config.emailLeaseSeconds, services.config.emailBatchSize],
  );
  const result: BatchResult = { claimed: claimed.length, sent: 0, retried: 0, failed: 0 };
  for (const m of claimed) {
    const key = [m.tenant_id, m.id];
    const log = services.log.child({ emailId: m.id, tenantId: m.tenant_id, attempt: m.attempts });
    try {
      const files = await c.execute<{ file_name: string; content_type: string; content: Buffer }[]>(
        'select file_name, content_type, content from email_attachment where tenant_id = ? and message_id = ? order by position',
        key,
      );
      const info = await transport.sendMail({
        to: m.recipients,
        cc: m.cc_recipients || undefined,
        bcc: m.bcc_recipients || undefined,
        subject: m.subject,
        ...(isHtml(m.body) ? { html: m.body } : { text: m.body }),
        attachments: files.map((f) => ({ filename: f.file_name, contentType: f.content_type, content: f.content })),
      });
      // Sent to those the server took; those it refused are named in the message's last error.
      const refused = refusedRecipients(info);
      await c.execute(
        `update email_message set status = ${EMAIL_STATUS.sent}, sent_at = now(), finished_at = now(), lease_until = null, last_error = ?, smtp_response = ? where tenant_id = ? and id = ?`,
        [refused.slice(0, MAX_TEXT), String(info.response ?? '').slice(0, MAX_TEXT), ...key],
      );
      result.sent++;
      if (refused) log.warn({ refusedCount: (info.rejected ?? []).length }, 'e-mail sent, some recipients refused');
      else log.info('e-mail sent');
    } catch (err) {
      const error = (err instanceof Error ? err.message : String(err)).slice(0, MAX_TEXT);
      if (refusedForGood(err) || m.attempts >= services.config.emailMaxAttempts) {
        await c.execute(`update email_message set status = ${EMAIL_STATUS.failed}, finished_at = now(), lease_until = null, last_error = ? where tenant_id = ? and id = ?`, [error, ...key]);
        result.failed++;
        log.warn({ error }, 'e-mail failed: not trying again');
      } else {
        const wait = Math.min(FIRST_RETRY_SECONDS * 2 ** (m.attempts - 1), MAX_RETRY_SECONDS);
        await c.execute('update email_message set lease_until = null, next_attempt_at = now() + make_interval(secs => ?), last_error = ? where tenant_id = ? and id = ?', [
          wait,
          error,
          ...key,
        ]);
        result.retried++;
        log.warn({ error, retryInSeconds: wait }, 'e-mail not sent: trying again later');
      }
    }
  }
  return result;
}

/** Stopping waits for the batch in flight, then closes the connection to the mail server. */
export type EmailSender = Repeating;

/**
 * The server's batches: every EMAIL_BATCH_SECONDS, as many batches as there are due messages.
 * Without SMTP_URL nothing is sent and messages wait in the queue. Its timer never keeps the process alive.
 */
export function startEmailSender(services: SenderServices, transport: Transporter | undefined = services.config.smtpUrl ? smtpTransport(services.config) : undefined): EmailSender {
  if (!transport) {
    services.log.warn('SMTP_URL is not set: e-mail is queued and not sent');
    return { stop: async () => {} };
  }
  const loop = repeat(
    services.config.emailBatchSeconds * 1000,
    async (signal) => {
      let batch: BatchResult;
      do batch = await sendDueEmails(services, transport);
      while (!signal.aborted && batch.claimed === services.config.emailBatchSize);
    },
    (err) => services.log.warn({ err }, 'e-mail batch failed; trying again at the next interval'),
  );
  return {
    async stop() {
      await loop.stop();
      transport.close();
    },
  };
}
