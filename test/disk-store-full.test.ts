/**
 * The disk store with no room, against the real server process: run under `ulimit -f 64`, it may
 * write no file past 64 KiB, and a larger one fails as on a full disk (EFBIG; Node ignores
 * SIGXFSZ, so the process goes on). Uploads are a 507 naming the file store, with nothing left
 * behind; the log names the cause, the answer does not; a zip's try fails with the cause logged.
 * (Each code's answer: test/storage/file-store.test.ts.)
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ownDatabase, type OwnDatabase } from './own-database.js';
import { multipart } from './rest/support.js';
import { startServer, stop, waitFor, type Started } from './server-process.js';
import { serverTenant, type ServerTenant } from './server-tenant.js';

const KIB = 1024;
const NO_ROOM = 'The file store has no room for this file: nothing was stored. Tell an administrator of this service, or try a smaller file.';
const NO_ROOM_DEV = "The file store's disk is full, its quota is used up, or it takes no file this large. Nothing was stored.";

let db: OwnDatabase;
let filesDir: string;
let s: Started;
let t: ServerTenant;
// A database of its own: the server's zip builder takes only this file's zips.
beforeAll(async () => {
  db = await ownDatabase('full');
  filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-full-'));
  s = await startServer({ DATABASE_URL: db.url, FILES_DIR: filesDir }, { ulimit: '-f 64' });
  t = await serverTenant(s, db.url, 'full');
}, 60_000);
afterAll(async () => {
  if (s) await stop(s);
  await db?.drop();
  fs.rmSync(filesDir, { recursive: true, force: true });
});

async function call(method: string, url: string, body?: { raw: Uint8Array; headers: Record<string, string> } | object) {
  const init = body === undefined ? {} : 'raw' in body ? { body: body.raw as BodyInit, headers: body.headers } : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
  const r = await fetch(`http://127.0.0.1:${s.port}${url}`, { method, ...init, headers: { ...init.headers, authorization: `Bearer ${t.token}` } });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
}
const rest = (method: string, url: string, body?: Parameters<typeof call>[2]) => call(method, `${t.root}${url}`, body);

async function newDocument(): Promise<{ id: string; documentId: string }> {
  const folder = (await rest('POST', '/folders', { name: `Full ${randomUUID().slice(0, 6)}` })).body.data;
  return (await rest('POST', '/documents', { folderId: folder.id, name: 'Doc', description: 'd', documentState: 1 })).body.data;
}

/** The server's log lines so far, parsed. */
const logLines = () =>
  s
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; requestId?: string; err?: { code?: string; syscall?: string; message?: string } });

/** Nothing of a failed write is left: no temporary file, and under the tenant's folder only `kept`. */
function expectOnlyStored(kept: string[]) {
  expect(fs.readdirSync(path.join(filesDir, '.tmp'))).toEqual([]);
  const tenantDir = path.join(filesDir, t.tenantId);
  expect((fs.existsSync(tenantDir) ? fs.readdirSync(tenantDir) : []).sort()).toEqual([...kept].sort());
}

test('POST files larger than the process may write: a 507 envelope, no Retry-After, nothing stored or recorded; the cause (EFBIG) is logged as a warning, never sent; a smaller file is stored', async () => {
  const doc = await newDocument();
  const r = await rest('POST', '/files', await multipart({ documentId: doc.documentId }, randomBytes(200 * KIB), 'big.bin'));
  expect(r.status).toBe(507);
  expect(r.body.meta).toMatchObject({ status: 507, statusMsg: 'Insufficient Storage', errors: [{ code: 'INSUFFICIENT_STORAGE', message: NO_ROOM, developerMessage: NO_ROOM_DEV }] });
  expect(r.headers.get('retry-after')).toBeNull();
  expect(r.text).not.toMatch(/EFBIG|\.tmp|too large, write/);
  expect(r.text).not.toContain(filesDir);
  const requestId = r.headers.get('x-request-id');
  // The log line reaches this process's pipe on its own time: wait for it, then read it.
  await waitFor(s.child, s.stdout, new RegExp(`"level":40,[^\\n]*"requestId":"${requestId}"`), 5000);
  const logged = logLines().filter((l) => l.requestId === requestId);
  expect(logged.find((l) => l.level === 40)).toMatchObject({ msg: NO_ROOM_DEV, err: { code: 'EFBIG', syscall: 'write' } });
  expect(logged.filter((l) => l.level >= 50)).toEqual([]);
  expectOnlyStored([]);
  // No file was recorded: the document still has none.
  expect((await rest('GET', `/files/${doc.documentId}`)).status).toBe(404);

  const small = randomBytes(10 * KIB);
  const up = await rest('POST', '/files', await multipart({ documentId: doc.documentId }, small, 'small.bin'));
  expect(up.status).toBe(200);
  const back = await fetch(`http://127.0.0.1:${s.port}${t.root}/files/${doc.documentId}`, { headers: { authorization: `Bearer ${t.token}` } });
  expect(Buffer.from(await back.arrayBuffer()).equals(small)).toBe(true);
  expectOnlyStored([up.body.data.fileId]);
});

test("GraphQL's uploadFile larger than the process may write: the field's error is INSUFFICIENT_STORAGE, with REST's message; nothing stored", async () => {
  const doc = await newDocument();
  const before = fs.existsSync(path.join(filesDir, t.tenantId)) ? fs.readdirSync(path.join(filesDir, t.tenantId)) : [];
  const query = 'mutation($input: FileUploadInput!) { uploadFile(input: $input) { id } }';
  const input = { documentId: doc.documentId, fileUpload: { name: 'big.bin', base64: randomBytes(100 * KIB).toString('base64') } };
  const r = await call('POST', '/graphql', { query, variables: { input } });
  expect(r.body).toEqual({ data: { uploadFile: null }, errors: [expect.objectContaining({ message: NO_ROOM, extensions: expect.objectContaining({ code: 'INSUFFICIENT_STORAGE', developerMessage: NO_ROOM_DEV }) })] });
  expect(r.text).not.toMatch(/EFBIG|\.tmp/);
  expect(r.text).not.toContain(filesDir);
  expectOnlyStored(before);
});

test('a zip larger than the process may write: the try fails, is to be tried again, and its log line and record name the cause (EFBIG); the last says there was no room; nothing is left', async () => {
  const ids: string[] = [];
  // Two files that fit, whose zip does not (random bytes do not compress).
  for (const name of ['a.bin', 'b.bin']) {
    const doc = await newDocument();
    const up = await rest('POST', '/files', await multipart({ documentId: doc.documentId }, randomBytes(40 * KIB), name));
    expect(up.status).toBe(200);
    ids.push(doc.documentId);
  }
  const before = fs.readdirSync(path.join(filesDir, t.tenantId));
  const key = (await rest('POST', '/documents/CreateDocumentZipFile', { documentDhIds: ids })).body.data.downloadKey as string;
  const m = await waitFor(s.child, s.stdout, new RegExp(`\\{[^\\n]*"zipId":"${key}"[^\\n]*"msg":"zip not built: trying again"[^\\n]*\\}`), 20_000);
  const line = JSON.parse(m[0]) as { level: number; error: string };
  expect(line.level).toBe(40);
  // It was the store's message alone: what the file system said was lost.
  expect(line.error).toBe(`${NO_ROOM} (EFBIG: file too large, write)`);
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    expect((await c.query('select last_error from document_zip where id = $1', [key])).rows).toEqual([{ last_error: line.error }]);
  } finally {
    await c.end();
  }
  expect((await rest('GET', `/documents/GetDocumentZipFileStatus?downloadKey=${key}`)).body.data.status).toBe('Pending');
  expectOnlyStored(before);

  // Its last try, due now (not a minute later): failed for good, and its download says why in words an operator can act on.
  const c2 = new pg.Client({ connectionString: db.url });
  await c2.connect();
  try {
    await c2.query('update document_zip set attempts = 2, lease_until = now() where id = $1', [key]);
  } finally {
    await c2.end();
  }
  await waitFor(s.child, s.stdout, new RegExp(`\\{[^\\n]*"zipId":"${key}"[^\\n]*"msg":"zip failed: not trying again"[^\\n]*\\}`), 20_000);
  expect((await rest('GET', `/documents/GetDocumentZipFileStatus?downloadKey=${key}`)).body.data.status).toBe('Failed');
  const download = await rest('GET', `/documents/DownloadDocumentZipFile?downloadKey=${key}`);
  expect([download.status, download.body.meta.errors[0].message]).toEqual([
    409,
    'The zip could not be built: the file store had no room for it: tell an administrator of this service, then ask for a new one.',
  ]);
  expectOnlyStored(before);
});
