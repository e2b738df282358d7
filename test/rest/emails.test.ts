/**
 * Outgoing e-mail (rest-api-v1.md "Emails", client-compatibility.md: `POST emails` JSON or
 * multipart with `fileUpload` parts; refusals answer HTTP 2xx with `meta.status` 400): what is
 * queued, what a real SMTP server receives from the batches, retries and failures, two batches
 * at once, who sees which message, and the purge. The database is this file's own: every batch
 * claims every tenant's messages, and sent another file's to this file's mail server (an alert of
 * test/rest/alerts.test.ts, running at the same time, never reached its own).
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Harness } from '../harness.js';
import { ownDatabase, type OwnDatabase } from '../own-database.js';
import { startSmtp, type TestSmtp } from '../smtp-server.js';
import { SMTPServer } from 'smtp-server';
import { isHtml, sendDueEmails, smtpTransport, startEmailSender } from '../../src/jobs/email-sender.js';
import { purgeExpired } from '../../src/purge.js';
import { type Api, adminApi, expectEnvelope, expectError, GUID, ordinaryUser, q, STATUS_MSG, uniq, UNKNOWN_ID } from './support.js';

let db: OwnDatabase;
let smtp: TestSmtp;
let h: Harness;
let A: Api;
let B: Api;
let U: Api;

const FROM = 'forms@quire.test';

beforeAll(async () => {
  db = await ownDatabase('emails');
  smtp = await startSmtp();
  h = await Harness.start({ databaseUrl: db.url, smtpUrl: smtp.url, emailFrom: FROM, emailMaxAttempts: 2, emailMaxAttachmentBytes: 64 * 1024 });
  [A, B] = [await adminApi(h), await adminApi(h)];
  U = A.as((await ordinaryUser(A)).token);
});
afterAll(async () => {
  await h.stop();
  await smtp.close();
  await db.drop();
});

/** One batch through the test server, as the server's timer runs it. */
async function batch() {
  const transport = smtpTransport(h.services.config);
  try {
    return await sendDueEmails(h.services, transport);
  } finally {
    transport.close();
  }
}

/** Runs batches until nothing is due, and answers what the SMTP server received meanwhile with `subject`. */
async function deliver(subject?: string) {
  const before = smtp.received.length;
  while ((await batch()).claimed > 0);
  return smtp.received.slice(before).filter((r) => subject === undefined || r.mail.subject === subject);
}

const messages = async (api: Api, subject: string) => {
  const r = await api.gql(
    `query ($q: String) { emails(q: $q) { totalRecords items { id recipients ccRecipients bccRecipients subject body status attempts lastError sentDate attachmentCount attachments { fileName contentType size position } nextAttemptDate } } }`,
    { q: `subject eq '${subject}'` },
  );
  expect(r.body.errors).toBeUndefined();
  return r.body.data.emails.items;
};

/** A refusal as the real service answers it: HTTP 200, the status and message in meta. */
function expectRefusal(r: { status: number; body: { meta: { status: number; statusMsg: string; errors: { message: string }[] } } }, status: number, message: string | RegExp) {
  expect(r.status).toBe(200);
  expect(r.body.meta.status).toBe(status);
  expect(r.body.meta.statusMsg).toBe(STATUS_MSG[status]);
  const text = r.body.meta.errors.map((e) => e.message).join(' | ');
  if (typeof message === 'string') expect(text).toContain(message);
  else expect(text).toMatch(message);
}

/** A multipart body with text parts and several file parts named fileUpload, as the Node client builds it. */
async function multipartWith(parts: Record<string, string>, files: { name: string; content: string | Uint8Array; type?: string }[]) {
  const form = new FormData();
  for (const [k, v] of Object.entries(parts)) form.append(k, v);
  for (const f of files) form.append('fileUpload', new Blob([typeof f.content === 'string' ? f.content : new Uint8Array(f.content)], f.type ? { type: f.type } : {}), f.name);
  const req = new Request('http://x/', { method: 'POST', body: form });
  return { raw: new Uint8Array(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
}

describe('POST emails', () => {
  test('addresses separated by line breaks, tabs, or spaces between bare addresses: each one is a recipient, none lost in a display name', async () => {
    const cases: [string, string][] = [
      ['sp1@example.com sp2@example.com', 'sp1@example.com, sp2@example.com'],
      ['nl1@example.com\r\nnl2@example.com\n\tnl3@example.com', 'nl1@example.com, nl2@example.com, nl3@example.com'],
      ['"Ada Lovelace" <ada@example.com>\nbob@example.com', '"Ada Lovelace" <ada@example.com>, bob@example.com'],
      ['Ada Lovelace <ada@example.com>', '"Ada Lovelace" <ada@example.com>'],
      // No separator after a named address, or before one: still two recipients, not one whose name holds the other.
      ['Ada <ada@example.com> bob@example.com', '"Ada" <ada@example.com>, bob@example.com'],
      ['"Ada" <ada@example.com> Bob Smith <bob@example.com>', '"Ada" <ada@example.com>, "Bob Smith" <bob@example.com>'],
      ['ada@example.com Bob <bob@example.com>', 'ada@example.com, "Bob" <bob@example.com>'],
      // An @ inside quotes belongs to the name.
      ['"ada@example.com" <ada@example.com>', 'ada@example.com'],
    ];
    for (const [recipients, kept] of cases) {
      const subject = uniq('Separated');
      expect((await A.post('/emails', { recipients, subject, body: 'x' })).status).toBe(201);
      expect((await messages(A, subject))[0].recipients).toBe(kept);
    }
    expectRefusal(await A.post('/emails', { recipients: 'ada@example.com not-an-address', subject: 'x' }), 400, "'not-an-address' in 'recipients' is not an e-mail address");
  });

  test('201 with data {success: true}; the next batch sends it to every recipient with the subject, body and From', async () => {
    const subject = uniq('Welcome');
    const r = await A.post('/emails', { recipients: 'ada@example.com; "Bob, Jr." <bob@example.com>', ccrecipients: 'carol@example.com', subject, body: 'Plain words.' });
    expectEnvelope(r, 'POST', A.url('/emails'), 201);
    expect(r.body.data).toEqual({ success: true });
    expect(JSON.stringify(r.body)).toBe(JSON.stringify({ meta: r.body.meta, data: { success: true } }));

    const [queued] = await messages(A, subject);
    expect(queued).toMatchObject({ recipients: 'ada@example.com, "Bob, Jr." <bob@example.com>', ccRecipients: 'carol@example.com', status: 0, attempts: 0, sentDate: null });

    const got = await deliver(subject);
    expect(got).toHaveLength(1);
    expect(got[0].from).toBe(FROM);
    expect(got[0].to.sort()).toEqual(['ada@example.com', 'bob@example.com', 'carol@example.com']);
    expect(got[0].mail.subject).toBe(subject);
    expect(got[0].mail.text?.trim()).toBe('Plain words.');
    expect(got[0].mail.html).toBe(false);
    expect(got[0].mail.cc).toMatchObject({ value: [{ address: 'carol@example.com' }] });

    const [sent] = await messages(A, subject);
    expect(sent).toMatchObject({ status: 1, attempts: 1, lastError: '' });
    expect(sent.sentDate).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // Sent once: later batches leave it.
    expect(await deliver(subject)).toHaveLength(0);
  });

  test('a JSON body that repeats a key, at the top or in a fileUpload element, is a 400 as a form key sent twice is, and nothing is queued; one key in two objects, and a repeat inside a string value, are no repeat', async () => {
    const subject = uniq('Twice');
    const JSON_TYPE = { 'content-type': 'application/json' };
    const post = (raw: string) => A.post('/emails', undefined, { raw, headers: JSON_TYPE });
    // JSON.parse kept the last: this one was queued to carol alone.
    expectRefusal(await post(`{"recipients":"ada@example.com","subject":"${subject}","recipients":"carol@example.com"}`), 400, "The key 'recipients' was sent 2 times in the request body: send it once, with one value.");
    const files = (second: string) => `{"recipients":"ada@example.com","subject":"${subject}","body":"{\\"a\\":1,\\"a\\":2}","hasAttachments":true,"fileUpload":[{"name":"a.txt","base64":"aGk="},${second}]}`;
    expectRefusal(await post(files('{"name":"b.txt","base64":"aGk=","name":"c.txt","name":"d.txt"}')), 400, "The key 'fileUpload[1].name' was sent 3 times in the request body: send it once, with one value.");
    expect(await messages(A, subject)).toEqual([]);
    const r = await post(files('{"name":"b.txt","base64":"aGk="}'));
    expect(r.body.meta.status).toBe(201);
    const [queued] = await messages(A, subject);
    expect(queued).toMatchObject({ recipients: 'ada@example.com', body: '{"a":1,"a":2}', attachmentCount: 2 });
    expect(queued.attachments.map((a: { fileName: string }) => a.fileName)).toEqual(['a.txt', 'b.txt']);
  });

  test('addresses as a JSON list are all kept (none dropped as a repeated form key would be)', async () => {
    const subject = uniq('List');
    expect((await A.post('/emails', { recipients: ['ada@example.com', 'bob@example.com; carol@example.com'], subject })).status).toBe(201);
    const [got] = await deliver(subject);
    expect(got.to.sort()).toEqual(['ada@example.com', 'bob@example.com', 'carol@example.com']);
  });

  test('a body with markup goes as HTML; bcc recipients get it without a Bcc header', async () => {
    const subject = uniq('Html');
    await A.post('/emails', { recipients: 'ada@example.com', bccRecipients: 'hidden@example.com', subject, body: '<p>Hello <b>there</b></p>' });
    const [got] = await deliver(subject);
    expect(got.to.sort()).toEqual(['ada@example.com', 'hidden@example.com']);
    expect(got.mail.html).toContain('<b>there</b>');
    expect(got.mail.headers.has('bcc')).toBe(false);
  });

  test('markup is told from text in one pass, a megabyte of \'<a\' included', () => {
    expect([isHtml('Hello <b>there</b>'), isHtml('a < b and c > d'), isHtml('x <3'), isHtml('<a href="x">'), isHtml('1 > 0 <b')]).toEqual([true, false, false, true, false]);
    expect(isHtml('<a'.repeat(500_000))).toBe(false);
    expect(isHtml(`${'<a'.repeat(500_000)}>`)).toBe(true);
  });

  test('a line break in the subject cannot add a header: it becomes a space', async () => {
    const subject = uniq('Hi');
    await A.post('/emails', { recipients: 'ada@example.com', subject: `${subject}\r\nBcc: evil@example.com`, body: 'x' });
    const [got] = await deliver(`${subject} Bcc: evil@example.com`);
    expect(got.to).toEqual(['ada@example.com']);
    expect(got.mail.subject).toBe(`${subject} Bcc: evil@example.com`);
  });

  test('multipart as the Node client sends it: every fileUpload part is attached, in order, bytes intact', async () => {
    const subject = uniq('Files');
    const bytes = new Uint8Array([...Array(256).keys()]);
    const r = await A.post('/emails', undefined, await multipartWith({ recipients: 'ada@example.com', subject, body: 'see attached', hasAttachments: 'true' }, [
      { name: 'notes.txt', content: 'first file', type: 'text/plain' },
      { name: 'C:\\fakepath\\every byte.bin', content: bytes },
    ]));
    expect([r.status, r.body.meta.status, r.body.data]).toEqual([201, 201, { success: true }]);
    const [queued] = await messages(A, subject);
    expect(queued.attachments).toEqual([
      { fileName: 'notes.txt', contentType: 'text/plain', size: 10, position: 0 },
      { fileName: 'every byte.bin', contentType: 'application/octet-stream', size: 256, position: 1 },
    ]);
    // Each attachment's href downloads its bytes, for its sender; not for another user or tenant.
    const listed = (await A.get(`/emails/${queued.id}`)).body.data;
    expect(listed.attachmentCount).toBe(2);
    const g = await A.gql('query ($id: UUID!) { email(id: $id) { attachments { href } } }', { id: queued.id });
    const [first, second] = g.body.data.email.attachments.map((x: { href: string }) => x.href.slice(1));
    const one = await A.get(first);
    expect([one.status, one.headers.get('content-type'), one.text]).toEqual([200, 'text/plain', 'first file']);
    const two = await A.get(second);
    expect([two.headers.get('content-type'), two.headers.get('content-disposition')]).toEqual(['application/octet-stream', 'attachment; filename="every byte.bin"']);
    expect(Buffer.from(two.bytes).toString('hex')).toBe(Buffer.from(bytes).toString('hex'));
    expectError(await U.get(first), 404);
    expectError(await B.get(first), 404);
    expectError(await A.get(`/emails/${UNKNOWN_ID}/attachments/${first.split('/').pop()}`), 404, /was not found in message/);
    const [got] = await deliver(subject);
    expect(got.mail.attachments.map((a) => [a.filename, a.contentType, Buffer.from(a.content).toString('hex')])).toEqual([
      ['notes.txt', 'text/plain', Buffer.from('first file').toString('hex')],
      ['every byte.bin', 'application/octet-stream', Buffer.from(bytes).toString('hex')],
    ]);
  });

  test('an attachment\'s download takes Range and conditional requests as a stored file\'s, under a strong ETag of its bytes (no Last-Modified)', async () => {
    const subject = uniq('Ranged');
    await A.post('/emails', undefined, await multipartWith({ recipients: 'ada@example.com', subject, body: 'x', hasAttachments: 'true' }, [{ name: 'digits.txt', content: '0123456789', type: 'text/plain' }]));
    const [queued] = await messages(A, subject);
    const g = await A.gql('query ($id: UUID!) { email(id: $id) { attachments { href } } }', { id: queued.id });
    const path = g.body.data.email.attachments[0].href.slice(1) as string;
    const r = await A.get(path);
    const etag = `"${createHash('sha256').update('0123456789').digest('base64url')}"`;
    expect([r.status, r.text, r.headers.get('etag'), r.headers.get('accept-ranges'), r.headers.get('last-modified')]).toEqual([200, '0123456789', etag, 'bytes', null]);
    const ranged = await A.get(path, { headers: { range: 'bytes=2-4', 'if-range': etag } });
    expect([ranged.status, ranged.text, ranged.headers.get('content-range'), ranged.headers.get('content-length')]).toEqual([206, '234', 'bytes 2-4/10', '3']);
    const unchanged = await A.get(path, { headers: { 'if-none-match': etag } });
    expect([unchanged.status, unchanged.text, unchanged.headers.get('etag')]).toEqual([304, '', etag]);
    expect((await A.request('HEAD', path, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expectError(await A.get(path, { headers: { 'if-match': '"other"' } }), 412, `The file is not the one the request's If-Match names: its ETag is ${etag}.`);
    const beyond = await A.get(path, { headers: { range: 'bytes=10-' } });
    expectError(beyond, 416);
    expect(beyond.headers.get('content-range')).toBe('bytes */10');
    // Another user's, whatever the headers: the 404 of a plain GET.
    expectError(await U.get(path, { headers: { 'if-none-match': etag } }), 404);
  });

  test('a file part sent with no Content-Type (not text/plain, what the multipart parser says of it) is of the type its extension names, else application/octet-stream; one that says text/plain keeps it', async () => {
    const subject = uniq('Untyped');
    const b = 'quire-boundary';
    const part = (head: string, content: string) => `--${b}\r\nContent-Disposition: form-data; ${head}\r\n\r\n${content}\r\n`;
    const file = (name: string, type?: string) => part(`name="fileUpload"; filename="${name}"${type ? `\r\nContent-Type: ${type}` : ''}`, 'bytes');
    const raw = [
      part('name="recipients"', 'ada@example.com'),
      part('name="subject"', subject),
      file('scan.pdf'),
      file('C:\\photos\\Photo.JPG'),
      file('notes.txt', 'text/plain'),
      file('table.csv', 'text/plain'),
      file('report.docx', 'application/octet-stream'),
      file('scan.bin'),
      file('data.unknownext'),
      // nodemailer's table has 'application/ccxml+xml,' for this one: no media type, so none.
      file('flow.ccxml'),
      // A name without an extension names no type (nodemailer's table would read `pdf` as one).
      file('pdf'),
      file('README'),
    ].join('');
    // As the older Node client writes it: a leading CRLF, form-Data.
    const r = await A.post('/emails', undefined, { raw: `\r\n${raw.replaceAll('form-data', 'form-Data')}--${b}--\r\n`, headers: { 'content-type': `multipart/form-data; boundary=${b}` } });
    expect([r.status, r.body.meta.status]).toEqual([201, 201]);
    const sent = [
      ['scan.pdf', 'application/pdf'],
      ['Photo.JPG', 'image/jpeg'],
      ['notes.txt', 'text/plain'],
      ['table.csv', 'text/plain'],
      ['report.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      ['scan.bin', 'application/octet-stream'],
      ['data.unknownext', 'application/octet-stream'],
      ['flow.ccxml', 'application/octet-stream'],
      ['pdf', 'application/octet-stream'],
      ['README', 'application/octet-stream'],
    ];
    expect((await messages(A, subject))[0].attachments.map((a: { fileName: string; contentType: string }) => [a.fileName, a.contentType])).toEqual(sent);
    // As the parts' headers say it (the test's mail parser puts its own guess in contentType for application/octet-stream).
    const [got] = await deliver(subject);
    expect(got.mail.attachments.map((a) => [a.filename, (a.headers.get('content-type') as { value: string }).value])).toEqual(sent);
  });

  test('an attachment whose type has a control character, or whose name is missing or has one, is a 400 naming it (multipart part, JSON fileUpload); one stored so before downloads as application/octet-stream', async () => {
    const subject = uniq('BadType');
    const b = 'quire-boundary';
    const part = (head: string, content: string) => `--${b}\r\nContent-Disposition: form-data; ${head}\r\n\r\n${content}\r\n`;
    const raw = `${part('name="recipients"', 'ada@example.com')}${part('name="subject"', subject)}${part('name="fileUpload"; filename="a.txt"\r\nContent-Type: text/pl\u0001ain', 'x')}--${b}--\r\n`;
    expectRefusal(await A.post('/emails', undefined, { raw, headers: { 'content-type': `multipart/form-data; boundary=${b}` } }), 400, `The file's type (fileUpload[0].type, attachment "a.txt") must be a media type`);
    const file = { name: 'b.txt', type: 'text/plain\r\n;a', base64: 'aGk=' };
    expectRefusal(await A.post('/emails', { recipients: 'ada@example.com', subject, fileUpload: [{ name: 'ok.txt', base64: 'aGk=' }, file] }), 400, 'fileUpload[1].type, attachment "b.txt"');
    // A part without a file name, or one with a control character, names the attachment's key (the e-mail has no 'fileName').
    const named = (name: string) => `${part('name="recipients"', 'ada@example.com')}${part('name="subject"', subject)}${part(`name="fileUpload"; filename="${name}"`, 'x')}--${b}--\r\n`;
    expectRefusal(await A.post('/emails', undefined, { raw: named(''), headers: { 'content-type': `multipart/form-data; boundary=${b}` } }), 400, "The file has no name: send 'fileUpload[0].name' or a file name on the file part.");
    expectRefusal(await A.post('/emails', undefined, { raw: named('a\u0001b.txt'), headers: { 'content-type': `multipart/form-data; boundary=${b}` } }), 400, "The field 'fileUpload[0].name' may not contain control characters.");
    const unnamed = await A.gql('mutation ($input: EmailInput!) { sendEmail(input: $input) { success } }', { input: { recipients: 'ada@example.com', subject, fileUpload: [{ name: 'ok.txt', base64: 'aGk=' }, { base64: 'aGk=' }] } });
    expect(unnamed.body.errors[0]).toMatchObject({ message: "The file has no name: send 'fileUpload[1].name' or a file name on the file part.", extensions: { code: 'BAD_REQUEST', field: 'input.fileUpload[1].name' } });
    expect(await messages(A, subject)).toEqual([]);
    // A row stored before types were checked so: its download is answered, as bytes.
    expect((await A.post('/emails', { recipients: 'ada@example.com', subject, fileUpload: [{ name: 'c.txt', type: 'text/plain', base64: 'aGk=' }] })).status).toBe(201);
    const [queued] = await messages(A, subject);
    await h.orm.em.getConnection().execute('update email_attachment set content_type = ? where message_id = ?', ['text/plain\r\n;x=1', queued.id]);
    const g = await A.gql('query ($id: UUID!) { email(id: $id) { attachments { href } } }', { id: queued.id });
    const got = await A.get(g.body.data.email.attachments[0].href.slice(1));
    expect([got.status, got.headers.get('content-type'), got.text]).toEqual([200, 'application/octet-stream', 'hi']);
  });

  test('a browser form\'s empty file input (a part with filename="" and no bytes) is no file chosen, not an attachment; an empty file with a name is one; a nameless part with bytes stays a 400', async () => {
    const b = 'quire-boundary';
    const part = (head: string, content: string) => `--${b}\r\nContent-Disposition: form-data; ${head}\r\n\r\n${content}\r\n`;
    // As a browser sends a file input: Content-Type application/octet-stream when no file was chosen.
    const file = (name: string, content: string) => part(`name="fileUpload"; filename="${name}"\r\nContent-Type: ${name ? 'text/plain' : 'application/octet-stream'}`, content);
    const send = (subject: string, ...files: string[]) =>
      A.post('/emails', undefined, { raw: `${part('name="recipients"', 'ada@example.com')}${part('name="subject"', subject)}${files.join('')}--${b}--\r\n`, headers: { 'content-type': `multipart/form-data; boundary=${b}` } });
    const [none, beside, empty, unnamed] = [uniq('NoFile'), uniq('Beside'), uniq('EmptyFile'), uniq('Unnamed')];
    expect((await send(none, file('', ''))).body.meta.status).toBe(201);
    expect((await send(beside, file('', ''), file('a.txt', 'hi'), file('', ''))).body.meta.status).toBe(201);
    expect((await send(empty, file('empty.txt', ''))).body.meta.status).toBe(201);
    expectRefusal(await send(unnamed, file('', ''), file('', 'x')), 400, "The file has no name: send 'fileUpload[0].name' or a file name on the file part.");
    expect((await messages(A, none))[0].attachments).toEqual([]);
    expect((await messages(A, beside))[0].attachments).toEqual([{ fileName: 'a.txt', contentType: 'text/plain', size: 2, position: 0 }]);
    expect((await messages(A, empty))[0].attachments).toEqual([{ fileName: 'empty.txt', contentType: 'text/plain', size: 0, position: 0 }]);
    expect(await messages(A, unnamed)).toEqual([]);
  });

  test('`documents` attaches the current file of each document named (by document or revision id)', async () => {
    const folder = (await A.post('/folders', { name: uniq('Mail') })).body.data;
    const doc = (await A.post('/documents', { folderId: folder.id, name: uniq('Lease'), description: 'd', documentState: 1 })).body.data;
    const form = await multipartWith({ documentId: doc.documentId }, [{ name: 'lease.pdf', content: '%PDF-1.4 lease', type: 'application/pdf' }]);
    expect((await A.post('/files', undefined, form)).status).toBe(200);
    const subject = uniq('Docs');
    const r = await A.post('/emails', { recipients: 'ada@example.com', subject, documents: [doc.documentId, doc.id] });
    expect(r.status).toBe(201);
    const [got] = await deliver(subject);
    expect(got.mail.attachments.map((a) => [a.filename, Buffer.from(a.content).toString()])).toEqual([
      ['lease.pdf', '%PDF-1.4 lease'],
      ['lease.pdf', '%PDF-1.4 lease'],
    ]);
    // A comma list in one string works too; a document without a file, or unknown, is refused.
    const empty = (await A.post('/documents', { folderId: folder.id, name: uniq('Empty'), description: 'd', documentState: 1 })).body.data;
    expectRefusal(await A.post('/emails', { recipients: 'ada@example.com', documents: `${doc.documentId},${empty.documentId}` }), 400, `'${empty.documentId}' in 'documents' was not found or has no file`);
    expectRefusal(await A.post('/emails', { recipients: 'ada@example.com', documents: UNKNOWN_ID }), 400, 'was not found or has no file');
    // Another tenant's document is not found either.
    expectRefusal(await B.post('/emails', { recipients: 'ada@example.com', documents: doc.documentId }), 400, 'was not found or has no file');
  });
});

describe('refusals: HTTP 200 with meta.status, nothing queued', () => {
  test('no recipients (JSON or multipart with a file), as the Node client\'s test sends it', async () => {
    const subject = uniq('NoOne');
    expectRefusal(await A.post('/emails', { subject, body: 'This is a test email body' }), 400, "The mandatory field 'recipients' is missing");
    expectRefusal(await A.post('/emails', undefined, await multipartWith({ subject, body: 'b' }, [{ name: 'a.xml', content: '<a/>' }])), 400, "'recipients'");
    expectRefusal(await A.post('/emails', { recipients: '  ; , ', subject }), 400, "The field 'recipients' names no address: name at least one address to send to.");
    expectRefusal(await A.post('/emails', { recipients: '', subject }), 400, "The field 'recipients' names no address");
    expect(await messages(A, subject)).toEqual([]);
  });

  test('an address that is not one names itself and its field', async () => {
    const subject = uniq('Bad');
    for (const [body, message] of [
      [{ recipients: 'ada@example.com, not-an-address' }, "'not-an-address' in 'recipients' is not an e-mail address"],
      [{ recipients: 'ada@example.com', ccRecipients: 'a@b@c' }, "in 'ccRecipients' is not an e-mail address"],
      [{ recipients: 'ada@example.com', bccRecipients: '@example.com' }, "in 'bccRecipients' is not an e-mail address"],
      [{ recipients: Array.from({ length: 101 }, (_, i) => `u${i}@example.com`).join(',') }, 'at most 100 addresses'],
      [{ recipients: 'ada@example.com', subject: 'x'.repeat(999) }, "'subject' is longer than 998"],
      [{ recipients: 42 }, "'42' in 'recipients' is not an e-mail address"],
      // Malformed dots and hyphens: taken once, then refused by the mail server (501) at the batch, or sent quoted (`"a."@b.c`).
      ...['ada.@example.com', '.ada@example.com', 'a..da@example.com', 'ada@example..com', 'ada@example.com.', 'ada@.example.com', 'ada@-example.com', 'ada@example-.com'].map(
        (bad) => [{ recipients: `bob@example.com, Ada <${bad}>` }, `'${bad}' in 'recipients' is not an e-mail address`] as const,
      ),
    ] as const) {
      expectRefusal(await A.post('/emails', { subject, ...body }), 400, message);
    }
    expect(await messages(A, subject)).toEqual([]);
    // What an address may be is still taken: quotes, plus and hyphens inside, a name without dots, letters past ASCII.
    const good = "o'hara@example.com, a+tag@mail-1.example.com, admin@localhost, zoë@bücher.example";
    expect((await A.post('/emails', { recipients: good, subject })).status).toBe(201);
    expect((await messages(A, subject)).map((m: { recipients: string }) => m.recipients)).toEqual([good]);
  });

  test('attachments over EMAIL_MAX_ATTACHMENT_BYTES: 413 in meta, nothing queued', async () => {
    const subject = uniq('Big');
    const r = await A.post('/emails', undefined, await multipartWith({ recipients: 'ada@example.com', subject }, [{ name: 'big.bin', content: new Uint8Array(64 * 1024 + 1) }]));
    expectRefusal(r, 413, 'EMAIL_MAX_ATTACHMENT_BYTES');
    expect(await messages(A, subject)).toEqual([]);
  });

  test('documents\' files over EMAIL_MAX_ATTACHMENT_BYTES with the uploaded parts: 413 in meta, nothing queued', async () => {
    const folder = (await A.post('/folders', { name: uniq('Big') })).body.data;
    const doc = (await A.post('/documents', { folderId: folder.id, name: uniq('Big'), description: 'd', documentState: 1 })).body.data;
    expect((await A.post('/files', undefined, await multipartWith({ documentId: doc.documentId }, [{ name: 'half.bin', content: new Uint8Array(40 * 1024) }]))).status).toBe(200);
    const subject = uniq('BigDocs');
    expectRefusal(await A.post('/emails', { recipients: 'ada@example.com', subject, documents: [doc.documentId, doc.documentId] }), 413, 'EMAIL_MAX_ATTACHMENT_BYTES');
    const withPart = await multipartWith({ recipients: 'ada@example.com', subject, documents: doc.documentId }, [{ name: 'part.bin', content: new Uint8Array(30 * 1024) }]);
    expectRefusal(await A.post('/emails', undefined, withPart), 413, 'EMAIL_MAX_ATTACHMENT_BYTES');
    expect(await messages(A, subject)).toEqual([]);
  });

  test('a document named by text that is no GUID: a 400 naming it (a 500 before, from PostgreSQL), in REST and GraphQL', async () => {
    const subject = uniq('NoGuid');
    expectRefusal(await A.post('/emails', { recipients: 'ada@example.com', subject, documents: ['nope'] }), 400, "'nope' in 'documents' was not found");
    const g = await A.gql('mutation { sendEmail(input: { recipients: ["a@example.com"], subject: "x", body: "y", documents: ["nope"] }) { success } }');
    expect(g.status).toBeLessThan(500);
    expect(g.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(await messages(A, subject)).toEqual([]);
  });

  test('who sent it still decides the status: no token is a real 401', async () => {
    const r = await A.as(undefined).post('/emails', { recipients: 'ada@example.com' });
    expect([r.status, r.body.meta.status]).toEqual([401, 401]);
  });
});

describe('limits at their edges (MAX_BODY_BYTES 16 KiB, EMAIL_MAX_ATTACHMENT_BYTES 64 KiB here)', () => {
  const LIMITS = { maxBodyBytes: 16 * 1024, emailMaxAttachmentBytes: 64 * 1024 };
  let small: Harness;
  let S: Api;
  beforeAll(async () => {
    small = await Harness.start({ databaseUrl: db.url, emailFrom: FROM, ...LIMITS });
    S = await adminApi(small);
  });
  afterAll(() => small.stop());

  /** A multipart body with these attachments' sizes, sent as it is and with its Content-Length declared. */
  async function both(subject: string, sizes: number[], parts: Record<string, string> = {}) {
    const form = await multipartWith({ recipients: 'ada@example.com', subject, ...parts }, sizes.map((n, i) => ({ name: `part${i}.bin`, content: new Uint8Array(n).fill(i + 1) })));
    const declared = { ...form, headers: { ...form.headers, 'content-length': String(form.raw.length) } };
    return [await S.post('/emails', undefined, form), await S.post('/emails', undefined, declared)];
  }

  test('attachments of EMAIL_MAX_ATTACHMENT_BYTES in all are taken, though the body is larger than MAX_BODY_BYTES; they arrive whole', async () => {
    const subject = uniq('AtLimit');
    for (const r of await both(subject, [32 * 1024, 32 * 1024])) expect([r.status, r.body.meta.status]).toEqual([201, 201]);
    const queued = await messages(S, subject);
    expect(queued.map((m: { attachments: { size: number }[] }) => m.attachments.map((a) => a.size))).toEqual([
      [32 * 1024, 32 * 1024],
      [32 * 1024, 32 * 1024],
    ]);
    const got = await deliver(subject);
    expect(got.map((g) => g.mail.attachments.map((a) => Buffer.compare(a.content, Buffer.alloc(32 * 1024, a.filename === 'part0.bin' ? 1 : 2))))).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });

  test('one byte more is the 413 of EMAIL_MAX_ATTACHMENT_BYTES, in meta; text parts over MAX_BODY_BYTES the 413 of MAX_BODY_BYTES', async () => {
    const subject = uniq('OverLimit');
    for (const r of await both(subject, [32 * 1024, 32 * 1024 + 1])) expectRefusal(r, 413, 'more than the limit of 65536 bytes (EMAIL_MAX_ATTACHMENT_BYTES)');
    for (const r of await both(subject, [1024], { body: 'x'.repeat(LIMITS.maxBodyBytes) })) expectRefusal(r, 413, `more than the limit of ${LIMITS.maxBodyBytes} bytes (MAX_BODY_BYTES)`);
    // A JSON body carries no files: MAX_BODY_BYTES is its limit.
    expectRefusal(await S.post('/emails', { recipients: 'ada@example.com', subject, body: 'x'.repeat(LIMITS.maxBodyBytes) }), 413, `larger than the limit of ${LIMITS.maxBodyBytes} bytes`);
    expect(await messages(S, subject)).toEqual([]);
  });

  test('the body is parsed as it arrives: text parts over MAX_BODY_BYTES are refused before the rest of the body is sent, nothing queued', async () => {
    const subject = uniq('Streamed');
    const form = await multipartWith({ recipients: 'ada@example.com', subject, body: 'x'.repeat(LIMITS.maxBodyBytes) }, [{ name: 'late.bin', content: new Uint8Array(32 * 1024) }]);
    const server = http.createServer(small.app.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const req = http.request(`http://127.0.0.1:${(server.address() as AddressInfo).port}${S.t.root}/emails`, {
        method: 'POST',
        headers: { authorization: `Bearer ${S.token}`, 'content-type': form.headers['content-type'], 'content-length': form.raw.length },
      });
      const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
        });
        req.on('error', reject);
      });
      // The text parts and the file part's head; the rest of the file is never sent. Read whole first, the body had no answer.
      req.write(form.raw.subarray(0, form.raw.length - 16 * 1024));
      expectRefusal(await answer, 413, `more than the limit of ${LIMITS.maxBodyBytes} bytes (MAX_BODY_BYTES)`);
      req.destroy();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await messages(S, subject)).toEqual([]);
  });

  test('a body declared larger than both limits together is refused before it is read, as the route\'s other refusals: HTTP 200, 413 in meta', async () => {
    const subject = uniq('Declared');
    const form = await multipartWith({ recipients: 'ada@example.com', subject }, [{ name: 'huge.bin', content: new Uint8Array(LIMITS.maxBodyBytes + LIMITS.emailMaxAttachmentBytes) }]);
    const r = await S.post('/emails', undefined, { ...form, headers: { ...form.headers, 'content-length': String(form.raw.length) } });
    expectRefusal(r, 413, `The request body is larger than the limit of ${LIMITS.maxBodyBytes + LIMITS.emailMaxAttachmentBytes} bytes.`);
    // So is a Content-Length that is no number; the same on another route is a real 400.
    const bad = { ...form, headers: { ...form.headers, 'content-length': '12abc' } };
    expectRefusal(await S.post('/emails', undefined, bad), 400, 'The Content-Length header must be a whole number of bytes.');
    expectError(await S.post('/folders', undefined, bad), 400, 'The Content-Length header must be a whole number of bytes.');
    expect(await messages(S, subject)).toEqual([]);
  });
});

describe('the batches', () => {
  /** A message queued with `subject`, then one batch sent through the mail server at `smtpUrl`: the message as it is left. */
  async function sentThrough(smtpUrl: string, subject: string) {
    await A.post('/emails', { recipients: 'ada@example.com', subject, body: 'x' });
    const config = { ...h.services.config, smtpUrl };
    const transport = smtpTransport(config);
    try {
      await sendDueEmails({ ...h.services, config }, transport);
    } finally {
      transport.close();
    }
    return (await messages(A, subject))[0];
  }

  test('a recipient refused for good (5xx) fails the message at once, with the server\'s words', async () => {
    smtp.refuse.set('gone@example.com', { code: 550, message: 'No such mailbox here' });
    const subject = uniq('Gone');
    await A.post('/emails', { recipients: 'gone@example.com', subject, body: 'x' });
    expect((await batch()).failed).toBeGreaterThanOrEqual(1);
    const [m] = await messages(A, subject);
    expect(m).toMatchObject({ status: 2, attempts: 1 });
    expect(m.lastError).toContain('No such mailbox here');
  });

  test('a recipient refused while others accept: sent to the others, the refused one named in lastError', async () => {
    smtp.refuse.set('refuse5@example.com', { code: 550, message: 'No such mailbox here' });
    const subject = uniq('Partly');
    await A.post('/emails', { recipients: 'ok1@example.com, refuse5@example.com', subject, body: 'x' });
    const got = await deliver(subject);
    expect(got.map((r) => r.to)).toEqual([['ok1@example.com']]);
    const [m] = await messages(A, subject);
    expect(m).toMatchObject({ status: 1, attempts: 1 });
    expect(m.lastError).toMatch(/^Refused by the server: refuse5@example\.com \(550 .*No such mailbox here\)$/);
  });

  test('a mail server that refuses the login (535) or greets with 554: tried again later, not failed (a wrong or rotated password failed every queued message at once)', async () => {
    const refusing = new SMTPServer({ allowInsecureAuth: true, disabledCommands: ['STARTTLS'], logger: false, onAuth: (_auth, _session, callback) => callback(new Error('Authentication credentials invalid')) });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const closed = net.createServer((socket) => socket.end('554 No service here\r\n'));
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    try {
      const servers = [
        `smtp://user:wrong@127.0.0.1:${(refusing.server.address() as AddressInfo).port}`,
        `smtp://127.0.0.1:${(closed.address() as AddressInfo).port}`,
      ];
      for (const smtpUrl of servers) {
        const m = await sentThrough(smtpUrl, uniq('Setup'));
        expect([smtpUrl, m]).toEqual([smtpUrl, expect.objectContaining({ status: 0, attempts: 1 })]);
      }
    } finally {
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
      await new Promise((resolve) => closed.close(resolve));
    }
  });

  test("a mail server that cannot be reached: tried again later; lastError names the cause, never the server's address", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const m = await sentThrough(`smtp://127.0.0.1:${port}`, uniq('Down'));
    expect(m).toMatchObject({ status: 0, attempts: 1, lastError: expect.stringMatching(/^The mail server could not be reached or did not take the message \(E[A-Z]+\)\.$/) });
    expect(m.lastError).not.toContain(String(port));
  });

  test('a passing refusal (4xx) is tried again later, then fails after EMAIL_MAX_ATTEMPTS tries', async () => {
    smtp.refuse.set('busy@example.com', { code: 451, message: 'Try again later' });
    const subject = uniq('Busy');
    await A.post('/emails', { recipients: 'busy@example.com', subject, body: 'x' });
    expect((await batch()).retried).toBeGreaterThanOrEqual(1);
    const [waiting] = await messages(A, subject);
    expect(waiting).toMatchObject({ status: 0, attempts: 1 });
    expect(waiting.lastError).toContain('Try again later');
    expect(Date.parse(`${waiting.nextAttemptDate}Z`) - Date.now()).toBeGreaterThan(20_000);
    // Not due yet: the next batch leaves it.
    await batch();
    expect((await messages(A, subject))[0]).toMatchObject({ status: 0, attempts: 1 });
    await h.orm.em.getConnection().execute('update email_message set next_attempt_at = now() where id = ?', [waiting.id]);
    await batch();
    expect((await messages(A, subject))[0]).toMatchObject({ status: 2, attempts: 2 });
  });

  test('two senders draining the queue at once send every message exactly once', async () => {
    const subject = uniq('Many');
    const n = 30;
    await Promise.all(Array.from({ length: n }, (_, i) => A.post('/emails', { recipients: `r${i}@example.com`, subject, body: String(i) })));
    const before = smtp.received.length;
    // Small batches, so both senders keep claiming while the other sends.
    const services = { ...h.services, config: { ...h.services.config, emailBatchSize: 3 } };
    const drain = async () => {
      const transport = smtpTransport(h.services.config);
      let claimed = 0;
      for (let b = await sendDueEmails(services, transport); b.claimed > 0; b = await sendDueEmails(services, transport)) claimed += b.claimed;
      transport.close();
      return claimed;
    };
    const claimed = await Promise.all([drain(), drain()]);
    expect(claimed[0] + claimed[1]).toBeGreaterThanOrEqual(n);
    const got = smtp.received.slice(before).filter((r) => r.mail.subject === subject);
    expect(got.map((r) => r.to[0]).sort()).toEqual(Array.from({ length: n }, (_, i) => `r${i}@example.com`).sort());
    const all = await messages(A, subject);
    expect(all.map((m: { status: number; attempts: number }) => [m.status, m.attempts])).toEqual(Array(n).fill([1, 1]));
  });

  test('the server\'s timer sends what was queued, and stops cleanly', async () => {
    const sender = startEmailSender({ ...h.services, config: { ...h.services.config, emailBatchSeconds: 1 } });
    const subject = uniq('Timer');
    await A.post('/emails', { recipients: 'ada@example.com', subject, body: 'x' });
    const got = await smtp.waitForSubject(subject);
    await sender.stop();
    expect(got.to).toEqual(['ada@example.com']);
    expect((await messages(A, subject))[0]).toMatchObject({ status: 1, attempts: 1 });
  });
});

describe('who sees which message (GraphQL)', () => {
  test('an ordinary user sees the messages they sent; an administrator every one; another tenant none', async () => {
    const subject = uniq('Mine');
    await U.post('/emails', { recipients: 'ada@example.com', subject });
    await A.post('/emails', { recipients: 'bob@example.com', subject });
    const mine = await messages(U, subject);
    expect(mine.map((m: { recipients: string }) => m.recipients)).toEqual(['ada@example.com']);
    expect((await messages(A, subject)).map((m: { recipients: string }) => m.recipients)).toEqual(['ada@example.com', 'bob@example.com']);
    expect(await messages(B, subject)).toEqual([]);
    const other = (await messages(A, subject))[1].id;
    expect(other).toMatch(GUID);
    const r = await U.gql('query ($id: UUID!) { email(id: $id) { id } }', { id: other });
    expect(r.body.errors[0].extensions.code).toBe('NOT_FOUND');
    await deliver();
  });

  test('GET emails and GET emails/{id} (its href) read the same: the sender their own, an administrator every one', async () => {
    const subject = uniq('Rest');
    await U.post('/emails', { recipients: 'ada@example.com', subject, body: 'Words.' });
    await A.post('/emails', { recipients: 'bob@example.com', subject });
    const all = await A.get(`/emails?${q(`subject eq '${subject}'`)}`);
    expect(all.status).toBe(200);
    expect(all.body.data.map((m: { recipients: string }) => m.recipients)).toEqual(['ada@example.com', 'bob@example.com']);
    const [ada, bob] = all.body.data;
    expect(ada).toMatchObject({ dataType: 'Email', href: `~/emails/${ada.id}`, subject, status: expect.any(Number) });
    expect(ada).not.toHaveProperty('body');
    expect((await U.get(`/emails?${q(`subject eq '${subject}'`)}`)).body.data.map((m: { id: string }) => m.id)).toEqual([ada.id]);
    const one = await U.get(`${ada.href.slice(1)}?fields=id,subject,body`);
    expect(one.body.data).toMatchObject({ id: ada.id, subject, body: 'Words.' });
    expectError(await U.get(`/emails/${bob.id}`), 404);
    expectError(await B.get(`/emails/${ada.id}`), 404);
    await deliver();
  });

  test('a page of messages with their attachments costs the same statements for 2 or 20', async () => {
    const subject = uniq('Count');
    for (let i = 0; i < 20; i++) await A.post('/emails', undefined, await multipartWith({ recipients: 'ada@example.com', subject }, [{ name: `f${i}.txt`, content: 'x' }]));
    const query = `query ($q: String, $n: Int) { emails(q: $q, limit: $n) { items { id attachments { fileName } } } }`;
    const count = async (n: number) => {
      const c = await h.countQueries(() => A.gql(query, { q: `subject eq '${subject}'`, n }));
      expect(c.result.body.data.emails.items).toHaveLength(n);
      return c.statements.length;
    };
    expect(await count(20)).toBe(await count(2));
    await deliver();
  });
});

test('the purge deletes messages sent or failed longer than EMAIL_KEEP_DAYS ago, never queued ones, however old', async () => {
  const [oldSent, oldFailed, sentNow, oldQueued] = [uniq('OldSent'), uniq('OldFailed'), uniq('SentNow'), uniq('OldQueued')];
  smtp.refuse.set('nobody@example.com', { code: 550, message: 'No such mailbox here' });
  await A.post('/emails', { recipients: 'ada@example.com', subject: oldSent });
  await A.post('/emails', { recipients: 'nobody@example.com', subject: oldFailed });
  await deliver();
  const conn = h.orm.em.getConnection();
  await conn.execute("update email_message set finished_at = now() - interval '31 days' where subject in (?, ?)", [oldSent, oldFailed]);
  // Queued 31 days ago, sent just now (it waited for its server): kept.
  await A.post('/emails', { recipients: 'ada@example.com', subject: sentNow });
  await A.post('/emails', { recipients: 'ada@example.com', subject: oldQueued });
  await conn.execute("update email_message set created_at = now() - interval '31 days' where subject in (?, ?)", [sentNow, oldQueued]);
  await conn.execute("update email_message set next_attempt_at = now() + interval '1 day' where subject = ?", [oldQueued]);
  await deliver(sentNow);
  const purged = await purgeExpired(h.orm.em.fork(), h.services.config, h.services.files);
  expect(purged.emails).toBeGreaterThanOrEqual(2);
  expect(await messages(A, oldSent)).toEqual([]);
  expect(await messages(A, oldFailed)).toEqual([]);
  expect((await messages(A, sentNow))[0]).toMatchObject({ status: 1 });
  expect((await messages(A, oldQueued))[0]).toMatchObject({ status: 0 });
  await conn.execute('update email_message set next_attempt_at = now() where subject = ?', [oldQueued]);
  await deliver();
});
