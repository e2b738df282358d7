/**
 * Two e-mail senders on one database, as two server processes run them, and a slow mail server
 * (docs/decisions.md, "E-mail"): a send that outlasts its lease keeps its message from the other
 * sender, which sends the rest of the queue meanwhile, and every message reaches the server once.
 * Each sender has its own connections to the database and to the mail server. The database is
 * this file's own: every batch claims every tenant's messages, and no other file's may be among them.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm } from '../src/db/orm.js';
import { sendDueEmails, smtpTransport, type BatchResult } from '../src/jobs/email-sender.js';
import { Harness } from './harness.js';
import { ownDatabase, type OwnDatabase } from './own-database.js';
import { startSmtp, type TestSmtp } from './smtp-server.js';
import { adminApi, type Api, uniq } from './rest/support.js';

let db: OwnDatabase;
let smtp: TestSmtp;
let h: Harness;
let otherOrm: MikroORM;
let A: Api;

beforeAll(async () => {
  db = await ownDatabase('email_senders');
  smtp = await startSmtp();
  h = await Harness.start({ databaseUrl: db.url, smtpUrl: smtp.url });
  otherOrm = await initOrm(db.url, 2);
  A = await adminApi(h);
}, 60_000);
afterAll(async () => {
  await otherOrm.close(true);
  await h.stop();
  await smtp.close();
  await db.drop();
});

/** One batch of the first sender (`h`'s database connections) or the other, under a lease of `leaseSeconds`. */
async function batch(sender: 'first' | 'other', leaseSeconds: number): Promise<BatchResult> {
  const services = { ...h.services, orm: sender === 'first' ? h.orm : otherOrm, config: { ...h.services.config, emailLeaseSeconds: leaseSeconds } };
  const transport = smtpTransport(services.config);
  try {
    return await sendDueEmails(services, transport);
  } finally {
    transport.close();
  }
}

/** Queues one message to each of `n` recipients, one after the other: the batches take them in that order. */
async function queue(subject: string, n: number): Promise<string[]> {
  const to = Array.from({ length: n }, (_, i) => `r${i}@example.com`);
  for (const recipients of to) expect((await A.post('/emails', { recipients, subject, body: 'x' })).status).toBe(201);
  return to;
}

async function expectEachSentOnce(subject: string, to: string[]) {
  const got = smtp.received.filter((r) => r.mail.subject === subject).map((r) => r.to.join());
  expect(got.sort()).toEqual([...to].sort());
  const rows = await h.orm.em.fork().getConnection().execute('select status, attempts from email_message where subject = ?', [subject]);
  expect(rows).toEqual(to.map(() => ({ status: 1, attempts: 1 })));
}

test('a send that outlasts its lease keeps its message: the other sender does not take it, and every message reaches the server once', async () => {
  const subject = uniq('Slow');
  const to = await queue(subject, 3);
  smtp.slow.add(to[0]);
  // 4 s, renewed every third of it: short renewals late by a second on a loaded machine would lose it.
  const first = batch('first', 4);
  await smtp.waitForCount(subject, to[0], 1);
  // The server holds the first message until the lease it was claimed with is over by the
  // database's clock: the lease's end as it stands now, or later if it was renewed.
  await h.orm.em.fork().getConnection().execute(
    'select pg_sleep(greatest(0, extract(epoch from lease_until - clock_timestamp()))) from email_message where subject = ? and recipients = ?',
    [subject, to[0]],
  );
  const other = batch('other', 1);
  // The other sender ends its batch, or takes the held message and sends it a second time.
  await Promise.race([other, smtp.waitForCount(subject, to[0], 2)]);
  smtp.release();
  const results = await Promise.all([first, other]);
  await expectEachSentOnce(subject, to);
  expect(results).toMatchObject([
    { claimed: 1, sent: 1 },
    { claimed: 2, sent: 2 },
  ]);
});

test('a slow mail server holds up only the message being sent: the other sender sends the rest meanwhile', async () => {
  const subject = uniq('Rest');
  const to = await queue(subject, 3);
  smtp.slow.add(to[0]);
  const first = batch('first', 300);
  await smtp.waitForCount(subject, to[0], 1);
  // Well inside the first sender's lease: the messages it is not sending are the other's to send.
  const other = await batch('other', 300);
  smtp.release();
  expect([await first, other]).toMatchObject([
    { claimed: 1, sent: 1 },
    { claimed: 2, sent: 2 },
  ]);
  await expectEachSentOnce(subject, to);
});

/**
 * A mail server that takes every message but keeps one recipient's from ever ending: after its
 * data it sends a `250-` continuation line every half second and never the last line, so the
 * connection is never silent long enough for a socket timeout.
 */
async function tricklingSmtp(stalled: string): Promise<{ url: string; taken: string[]; close(): Promise<void> }> {
  const taken: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined).on('close', () => sockets.delete(s));
    s.write('220 trickle ESMTP\r\n');
    let buffered = '';
    let inData = false;
    let rcpt: string[] = [];
    s.on('data', (d: Buffer) => {
      buffered += d.toString('latin1');
      for (let i = buffered.indexOf('\r\n'); i >= 0; i = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 2);
        if (inData) {
          if (line !== '.') continue;
          inData = false;
          if (rcpt.includes(stalled)) {
            const timer = setInterval(() => s.write('250-still working\r\n'), 500);
            s.on('close', () => clearInterval(timer));
          } else {
            taken.push(...rcpt);
            s.write('250 taken\r\n');
          }
          rcpt = [];
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') s.write('250-trickle\r\n250 8BITMIME\r\n');
        else if (verb === 'RCPT') {
          rcpt.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          s.write('250 ok\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          s.write('354 go on\r\n');
        } else if (verb === 'QUIT') s.end('221 bye\r\n');
        else s.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    taken,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('a mail server that trickles its reply forever gets EMAIL_SEND_TIMEOUT_SECONDS: that message is tried again later with the reason, the next one is sent', async () => {
  const subject = uniq('Trickle');
  const to = await queue(subject, 2);
  const peer = await tricklingSmtp(to[0]);
  const services = { ...h.services, config: { ...h.services.config, smtpUrl: peer.url, emailSendTimeoutSeconds: 2 } };
  const transport = smtpTransport(services.config);
  try {
    // Before, the batch never ended (the socket timeout, 60 s, counts only silence), and this test ran out of time.
    expect(await sendDueEmails(services, transport)).toEqual({ claimed: 2, sent: 1, retried: 1, failed: 0 });
  } finally {
    transport.close();
    await peer.close();
  }
  expect(peer.taken).toEqual([to[1]]);
  const rows = await h.orm.em.fork().getConnection().execute('select recipients, status, attempts, last_error, lease_until from email_message where subject = ? order by recipients', [subject]);
  expect(rows).toEqual([
    { recipients: to[0], status: 0, attempts: 1, last_error: 'The mail server had not taken the message after EMAIL_SEND_TIMEOUT_SECONDS (2 s): the connection was closed (ETIMEDOUT).', lease_until: null },
    { recipients: to[1], status: 1, attempts: 1, last_error: '', lease_until: null },
  ]);
}, 60_000);
