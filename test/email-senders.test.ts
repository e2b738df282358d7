/**
 * Two e-mail senders on one database, as two server processes run them, and a slow mail server
 * (docs/decisions.md, "E-mail"): a send that outlasts its lease keeps its message from the other
 * sender, which sends the rest of the queue meanwhile, and every message reaches the server once.
 * Each sender has its own connections to the database and to the mail server. The database is
 * this file's own: every batch claims every tenant's messages, and no other file's may be among them.
 */
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
