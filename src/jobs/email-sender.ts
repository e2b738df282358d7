/**
 * Sends queued e-mail in batches (docs/decisions.md, "E-mail"). A batch claims due messages of
 * every tenant one at a time, each with `FOR UPDATE SKIP LOCKED` and a lease (EMAIL_LEASE_SECONDS)
 * renewed while it is sent, and writes the outcome only while it still holds the message, so
 * processes on one database never take the same message at once, however slow the mail server;
 * one that dies mid-send leaves its lease to run out and the message is tried again (sent at least
 * once). A message the mail server refuses for good (a 5xx to it) fails at once; other errors are tried
 * again later, up to EMAIL_MAX_ATTEMPTS tries. The queue's rows are its log: status, tries, last
 * error and the server's answer stay with each message.
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

type SenderServices = Pick<Services, 'orm' | 'log'> & { config: Pick<Config, 'smtpUrl' | 'emailFrom' | 'emailBatchSeconds' | 'emailBatchSize' | 'emailMaxAttempts' | 'emailLeaseSeconds' | 'emailSendTimeoutSeconds'> };

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

/**
 * Whether the mail server refused the message for good (a 5xx reply to its sender, recipients or
 * content), so trying again is useless. A 5xx to the login (EAUTH) or as its greeting (CONN) is
 * about the server's set-up, not the message: tried again, as a 4xx is (a wrong or rotated
 * password failed every queued message at once).
 */
const refusedForGood = (err: unknown) => {
  const e = err as { responseCode?: number; code?: string; command?: string };
  if (e.code === 'EAUTH' || e.command === 'CONN') return false;
  return typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
};

/** What nodemailer answers for a message the server took. */
interface Taken {
  response?: string;
  rejected?: string[];
  rejectedErrors?: { recipient?: string; response?: string }[];
}

/** The recipients the server refused while it took the message for the others, with its replies ('' when none). */
function refusedRecipients(info: Taken): string {
  const errors = info.rejectedErrors ?? (info.rejected ?? []).map((recipient) => ({ recipient, response: undefined }));
  if (errors.length === 0) return '';
  return `Refused by the server: ${errors.map((e) => (e.response ? `${e.recipient} (${e.response})` : e.recipient)).join(', ')}`;
}

type Connection = ReturnType<SenderServices['orm']['em']['getConnection']>;
type Log = SenderServices['log'];

/**
 * A claimed message is still this sender's while its status and attempts are as claimed: every
 * claim counts one more attempt, so another process's claim changes them.
 */
const HELD = `tenant_id = ? and id = ? and status = ${EMAIL_STATUS.queued} and attempts = ?`;
const held = (m: Claimed) => [m.tenant_id, m.id, m.attempts];

/**
 * Renews the lease on a claimed message every third of its length until `end()`, so a send that
 * outlasts the lease (a slow mail server) keeps its message from other processes. A process that
 * dies renews nothing, and its message goes to another once the lease has run out.
 */
function keepLease(c: Connection, m: Claimed, seconds: number, log: Log): { end(): Promise<void> } {
  let renewing = Promise.resolve();
  const renew = async () => {
    try {
      const rows = await c.execute(`update email_message set lease_until = now() + make_interval(secs => ?) where ${HELD} returning id`, [seconds, ...held(m)]);
      if (rows.length === 0) log.error('e-mail taken by another process while it was being sent: it may be sent twice');
    } catch (err) {
      log.warn({ err }, 'could not renew the lease of the e-mail being sent');
    }
  };
  const timer = setInterval(() => (renewing = renewing.then(renew)), (seconds * 1000) / 3).unref();
  return {
    async end() {
      clearInterval(timer);
      await renewing;
    },
  };
}

/** Writes a claimed message's outcome (`set`) and ends its lease, if the message is still this sender's. */
async function settle(c: Connection, m: Claimed, set: string, values: unknown[], log: Log): Promise<void> {
  const rows = await c.execute(`update email_message set ${set}, lease_until = null where ${HELD} returning id`, [...values, ...held(m)]);
  if (rows.length === 0) log.error('e-mail outcome not written: another process took the message while it was being sent');
}

/**
 * One batch: up to EMAIL_BATCH_SIZE due messages, each claimed only when the one before it is done,
 * so a slow mail server holds up no message but the one being sent: other processes send the rest.
 */
export async function sendDueEmails(services: SenderServices, transport: Transporter): Promise<BatchResult> {
  const c = services.orm.em.fork().getConnection();
  const result: BatchResult = { claimed: 0, sent: 0, retried: 0, failed: 0 };
  while (result.claimed < services.config.emailBatchSize) {
    const [m] = await c.execute<Claimed[]>(
      `update email_message m
          set lease_until = now() + make_interval(secs => ?), attempts = m.attempts + 1
         from (select tenant_id, id from email_message
                where status = ${EMAIL_STATUS.queued} and next_attempt_at <= now() and (lease_until is null or lease_until < now())
                order by next_attempt_at, id limit 1 for update skip locked) due
        where m.tenant_id = due.tenant_id and m.id = due.id
        returning m.tenant_id, m.id, m.recipients, m.cc_recipients, m.bcc_recipients, m.subject, m.body, m.attempts`,
      [services.config.emailLeaseSeconds],
    );
    if (!m) break;
    result.claimed++;
    result[await sendClaimed(services, transport, c, m)]++;
  }
  return result;
}

/**
 * What the sender reads of a failure (`lastError`): the mail server's own reply when it gave one,
 * else the kind of failure. A connection error's text names the mail server's address, which is
 * the operator's; the log keeps it.
 */
function lastErrorOf(err: unknown, timeoutSeconds: number): string {
  const e = err as { response?: unknown; code?: unknown; message?: unknown };
  if (e?.code === 'EABORT') return `The mail server had not taken the message after EMAIL_SEND_TIMEOUT_SECONDS (${timeoutSeconds} s): the connection was closed (ETIMEDOUT).`;
  if (typeof e?.response === 'string' && e.response !== '') return (typeof e.message === 'string' ? e.message : e.response).slice(0, MAX_TEXT);
  return `The mail server could not be reached or did not take the message (${typeof e?.code === 'string' ? e.code : 'error'}).`;
}

/** Sends one claimed message under its renewed lease, then writes how it went. */
async function sendClaimed(services: SenderServices, transport: Transporter, c: Connection, m: Claimed): Promise<'sent' | 'retried' | 'failed'> {
  const log = services.log.child({ emailId: m.id, tenantId: m.tenant_id, attempt: m.attempts });
  const lease = keepLease(c, m, services.config.emailLeaseSeconds, log);
  let info: Taken;
  try {
    const files = await c.execute<{ file_name: string; content_type: string; content: Buffer }[]>(
      'select file_name, content_type, content from email_attachment where tenant_id = ? and message_id = ? order by position',
      [m.tenant_id, m.id],
    );
    info = await transport.sendMail({
      to: m.recipients,
      cc: m.cc_recipients || undefined,
      bcc: m.bcc_recipients || undefined,
      subject: m.subject,
      ...(isHtml(m.body) ? { html: m.body } : { text: m.body }),
      attachments: files.map((f) => ({ filename: f.file_name, contentType: f.content_type, content: f.content })),
      // One deadline for the whole send: the socket timeout counts only silence, so a server that
      // trickles its replies (a `250-` line every few seconds) held the message, and every one
      // queued after it, for as long as it liked. Aborting closes the connection that delivers it.
      signal: AbortSignal.timeout(services.config.emailSendTimeoutSeconds * 1000),
    });
  } catch (err) {
    await lease.end();
    const error = lastErrorOf(err, services.config.emailSendTimeoutSeconds);
    if (refusedForGood(err) || m.attempts >= services.config.emailMaxAttempts) {
      await settle(c, m, `status = ${EMAIL_STATUS.failed}, finished_at = now(), last_error = ?`, [error], log);
      log.warn({ error, cause: (err as Error)?.message }, 'e-mail failed: not trying again');
      return 'failed';
    }
    const wait = Math.min(FIRST_RETRY_SECONDS * 2 ** (m.attempts - 1), MAX_RETRY_SECONDS);
    await settle(c, m, 'next_attempt_at = now() + make_interval(secs => ?), last_error = ?', [wait, error], log);
    log.warn({ error, cause: (err as Error)?.message, retryInSeconds: wait }, 'e-mail not sent: trying again later');
    return 'retried';
  }
  await lease.end();
  // Sent to those the server took; those it refused are named in the message's last error.
  const refused = refusedRecipients(info);
  await settle(
    c,
    m,
    `status = ${EMAIL_STATUS.sent}, sent_at = now(), finished_at = now(), last_error = ?, smtp_response = ?`,
    [refused.slice(0, MAX_TEXT), String(info.response ?? '').slice(0, MAX_TEXT)],
    log,
  );
  if (refused) log.warn({ refusedCount: (info.rejected ?? []).length }, 'e-mail sent, some recipients refused');
  else log.info('e-mail sent');
  return 'sent';
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
