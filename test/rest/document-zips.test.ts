/**
 * Zip files of documents (the Node client's `POST documents/CreateDocumentZipFile {documentDhIds}`,
 * reading `data.downloadKey`, then `GET documents/GetDocumentZipFileStatus?downloadKey=`): what
 * goes in, read back with a real zip reader; the background builder (its claims, leases, tries
 * and failures); the download; refusals that leave nothing behind; who may read a zip; and its expiry.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { purgeExpired } from '../../src/purge.js';
import { fileKey } from '../../src/domain/stored-files.js';
import { buildNextZip, startZipBuilder } from '../../src/jobs/zip-builder.js';
import { createFileStore } from '../../src/storage/index.js';
import { Harness } from '../harness.js';
import { ownDatabase, type OwnDatabase } from '../own-database.js';
import { type Api, adminApi, expectEnvelope, expectError, multipart, ordinaryUser, uniq, UNKNOWN_ID } from './support.js';

let h: Harness;
let A: Api;
let B: Api;
let U: Api;

/** Small enough that a test can pass it: 64 KiB. */
const FILE_MAX = 64 * 1024;

let db: OwnDatabase;
/**
 * A file store's directory whose tenant folder is a plain file: it writes (its `.tmp` works) but
 * reads none of the tenant's files, and not as missing files. Writes that work keep a zip's first
 * error the read's, whichever the builder tries first.
 */
let brokenDir: string;

beforeAll(async () => {
  // A database of its own: the builder claims every tenant's zips, and no other test file's may be among them.
  db = await ownDatabase('zips');
  brokenDir = await mkdtemp(path.join(os.tmpdir(), 'quire-zip-broken-'));
  h = await Harness.start({ fileMaxBytes: FILE_MAX, databaseUrl: db.url });
  [A, B] = [await adminApi(h), await adminApi(h)];
  await mkdir(path.join(brokenDir, 'files'));
  await writeFile(path.join(brokenDir, 'files', A.t.tenantId), 'not a directory');
  U = A.as((await ordinaryUser(A)).token);
});
afterAll(async () => {
  await h.stop();
  await db.drop();
  await rm(brokenDir, { recursive: true, force: true });
});

type Doc = { id: string; documentId: string };

async function docWith(folderId: string, fileName: string | null, bytes: Uint8Array | string = 'x'): Promise<Doc> {
  const d = (await A.post('/documents', { folderId, name: uniq('zip-doc') })).body.data as Doc;
  if (fileName !== null) expect((await A.post('/files', undefined, await multipart({ documentId: d.documentId, fileName }, bytes, fileName))).status).toBe(200);
  return d;
}
const newFolder = async () => (await A.post('/folders', { name: uniq('Zips') })).body.data as { id: string };

/** When each entry of a zip was last changed, as yauzl reads it (DOS time: two-second steps, the process's zone). */
const modifiedDates = new WeakMap<[string, Buffer][], Date[]>();

/** The entries of a zip, read with yauzl: name and bytes, in order (their dates in `modifiedDates`). */
function entriesOf(zip: Uint8Array): Promise<[string, Buffer][]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(zip), { lazyEntries: true }, (err, file) => {
      if (err) return reject(err);
      const out: [string, Buffer][] = [];
      const dates: Date[] = [];
      modifiedDates.set(out, dates);
      file.on('error', reject);
      file.on('end', () => resolve(out));
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.push([entry.fileName, Buffer.concat(chunks)]);
            dates.push(entry.getLastModDate());
            file.readEntry();
          });
        });
      });
      file.readEntry();
    });
  });
}

/** Builds every due zip, as a server's builder does; the outcomes in order. */
/** Seconds until zip `key`, which failed a try, is due to be tried again. */
const secondsUntilRetry = async (key: string) =>
  Number((await h.services.reads.query('select extract(epoch from lease_until - now()) as s from document_zip where tenant_id = $1 and id = $2', [A.t.tenantId, key])).rows[0].s);
/** Zip `key`'s next try due now, as if its wait had passed. */
const retryNow = (key: string) => h.services.reads.query('update document_zip set lease_until = now() - interval \'1 second\' where tenant_id = $1 and id = $2', [A.t.tenantId, key]);

async function buildAll(services = h.services): Promise<string[]> {
  const outcomes: string[] = [];
  for (let o = await buildNextZip(services); o !== undefined; o = await buildNextZip(services)) outcomes.push(o);
  return outcomes;
}

const statusOf = async (key: string, api = A) => (await api.get(`/documents/GetDocumentZipFileStatus?downloadKey=${key}`)).body.data;

/** Asks for a zip and has it built; the zip's record once built. */
async function zipOf(ids: unknown, api = A) {
  const r = await api.post('/documents/CreateDocumentZipFile', { documentDhIds: ids });
  expect(r.status).toBe(200);
  await buildAll();
  return statusOf(r.body.data.downloadKey, api);
}

const zipCount = async () => Number((await h.services.reads.query('select count(*) as n from document_zip where tenant_id = $1', [A.t.tenantId])).rows[0].n);

test('as the Node client calls it: the zip holds each document\'s current file byte for byte, repeated names numbered; its status; its download', async () => {
  const folder = await newFolder();
  const binary = new Uint8Array(40_000).map((_, i) => (i * 31) % 256);
  const a = await docWith(folder.id, 'report.pdf', binary);
  const b = await docWith(folder.id, 'notes.txt', 'first notes');
  const c = await docWith(folder.id, 'Notes.txt', 'other notes');
  // A second revision: the zip takes the current one, named by any revision id.
  expect((await A.post('/files', undefined, await multipart({ documentId: b.documentId, fileName: 'notes.txt' }, 'newer notes', 'notes.txt'))).status).toBe(200);

  const r = await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [a.documentId, b.id, c.documentId] });
  expectEnvelope(r, 'POST', A.url('/documents/CreateDocumentZipFile'));
  const asked = r.body.data;
  // Answered at once, to be built in the background: no size or hash yet, and nothing to download.
  expect(asked).toMatchObject({ dataType: 'DocumentZip', status: 'Pending', fileCount: 3, contentType: 'application/zip', createBy: 'admin', fileSize: null, sha256: null });
  expect(asked.href).toBe(`~/documents/GetDocumentZipFileStatus?downloadKey=${asked.downloadKey}`);
  expect(Date.parse(`${asked.expireDate}Z`) - Date.parse(`${asked.createDate}Z`)).toBe(24 * 3600 * 1000);
  expectError(await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${asked.downloadKey}`), 409, /still being built/);

  expect(await buildAll()).toEqual(['ready']);
  const status = await A.get(`/documents/GetDocumentZipFileStatus?downloadKey=${asked.downloadKey}`);
  expectEnvelope(status, 'GET', A.url(`/documents/GetDocumentZipFileStatus?downloadKey=${asked.downloadKey}`));
  const zip = status.body.data;
  expect(zip).toEqual({ ...asked, status: 'Ready', fileSize: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });

  const file = await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${zip.downloadKey}`);
  expect(file.status).toBe(200);
  expect(file.headers.get('content-type')).toBe('application/zip');
  expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${zip.fileName}"`);
  expect(file.bytes.length).toBe(zip.fileSize);
  expect(createHash('sha256').update(file.bytes).digest('hex')).toBe(zip.sha256);
  // A stored file as a document's is: a range of it, and its tag (docs/decisions.md, "Files").
  const tail = await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${zip.downloadKey}`, { headers: { range: 'bytes=-22' } });
  expect([tail.status, tail.headers.get('content-range'), tail.headers.get('etag')]).toEqual([206, `bytes ${zip.fileSize - 22}-${zip.fileSize - 1}/${zip.fileSize}`, `"${zip.downloadKey}"`]);
  expect(Buffer.from(tail.bytes)).toEqual(Buffer.from(file.bytes.subarray(-22)));
  const entries = await entriesOf(file.bytes);
  expect(entries).toEqual([
    ['report.pdf', Buffer.from(binary)],
    ['notes.txt', Buffer.from('newer notes')],
    ['Notes (2).txt', Buffer.from('other notes')],
  ]);
  // Each entry is dated when its document last changed (to the two seconds a zip can tell).
  const changed = Date.parse(`${(await A.get(`/documents/${a.documentId}`)).body.data.modifyDate}Z`);
  expect(Math.abs(modifiedDates.get(entries)![0].getTime() - changed)).toBeLessThanOrEqual(2000);
});

test('file names a zip entry cannot have, stored before uploads refused them (`..`, `.`, a drive letter), go in under safe names', async () => {
  const folder = await newFolder();
  const docs = [await docWith(folder.id, 'a.txt', 'dots'), await docWith(folder.id, 'b.txt', 'dot'), await docWith(folder.id, 'c.txt', 'drive')];
  const rename = (d: Doc, name: string) =>
    h.services.reads.query('update document_file set file_name = $3 where tenant_id = $1 and revision_id = $2', [A.t.tenantId, d.id, name]);
  await rename(docs[0], '..');
  await rename(docs[1], '.');
  await rename(docs[2], 'C:evil.txt');
  const zip = await zipOf(docs.map((d) => d.documentId));
  expect(zip.status).toBe('Ready');
  const entries = await entriesOf((await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${zip.downloadKey}`)).bytes);
  expect(entries.map(([n, b]) => [n, b.toString()])).toEqual([
    ['file', 'dots'],
    ['file (2)', 'dot'],
    ['C_evil.txt', 'drive'],
  ]);

  // A zip asked for before, its entry names recorded as they were: built all the same.
  const r = await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [docs[0].documentId] });
  await h.services.reads.query(`update document_zip set entries = jsonb_set(entries, '{0,name}', '".."') where tenant_id = $1 and id = $2`, [A.t.tenantId, r.body.data.downloadKey]);
  expect(await buildAll()).toEqual(['ready']);
  const again = await entriesOf((await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${r.body.data.downloadKey}`)).bytes);
  expect(again.map(([n]) => n)).toEqual(['file']);
});

test('one comma list as a form sends it; a document named twice goes in once', async () => {
  const folder = await newFolder();
  const a = await docWith(folder.id, 'a.txt', 'A');
  const zip = await zipOf(`${a.documentId}, ${a.id}`);
  expect(zip.fileCount).toBe(1);
  const file = await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${zip.downloadKey}`);
  expect(await entriesOf(file.bytes)).toEqual([['a.txt', Buffer.from('A')]]);
});

test('refusals: no ids, a bad id, an unknown or hidden document, one without a file, a deleted one, too many, too large; no zip is left', async () => {
  const folder = await newFolder();
  const withFile = await docWith(folder.id, 'f.txt', 'f');
  const empty = await docWith(folder.id, null);
  const deleted = await docWith(folder.id, 'd.txt', 'd');
  await A.del(`/documents/${deleted.documentId}`);
  const big = [await docWith(folder.id, 'big1.bin', new Uint8Array(40_000)), await docWith(folder.id, 'big2.bin', new Uint8Array(40_000))];
  const hidden = await newFolder();
  await A.put(`/folders/${hidden.id}/securitymembers/${(await A.get('/users/me')).body.data.id}`, { memberType: 0, securityRole: 1 });
  const secret = await docWith(hidden.id, 's.txt', 's');
  const before = await zipCount();
  const create = (ids: unknown, api = A) => api.post('/documents/CreateDocumentZipFile', { documentDhIds: ids });

  expectError(await create([]), 400, /'documentDhIds' is missing/);
  expectError(await A.post('/documents/CreateDocumentZipFile', {}), 400, /'documentDhIds' is missing/);
  expectError(await create(['not-a-guid']), 400, /must hold document ids/);
  expectError(await create([withFile.documentId, UNKNOWN_ID]), 404, new RegExp(`Document '${UNKNOWN_ID}' was not found`));
  expectError(await create([secret.documentId], U), 404);
  expectError(await create([withFile.documentId, empty.documentId]), 400, /has no file/);
  expectError(await create([deleted.documentId]), 409, /is deleted/);
  expectError(await create(Array.from({ length: 1001 }, () => crypto.randomUUID())), 400, /at most 1000 documents/);
  expectError(await create(big.map((d) => d.documentId)), 413, /FILE_MAX_BYTES/);
  expect(await zipCount()).toBe(before);
});

test('the zip routes under their own names only: GET or DELETE documents/CreateDocumentZipFile is a 405 with Allow: POST, not a read of a document with that id', async () => {
  for (const method of ['GET', 'DELETE'] as const) {
    const r = await A.request(method, '/documents/CreateDocumentZipFile');
    expectError(r, 405, 'use POST');
    expect([r.headers.get('allow'), r.body.meta.errors[0].code]).toEqual(['POST', 'METHOD_NOT_ALLOWED']);
  }
  const status = await A.request('DELETE', '/documents/getdocumentzipfilestatus');
  expectError(status, 405);
  expect(status.headers.get('allow')).toBe('GET, HEAD');
});

test('a document whose bytes are missing from the store: the zip fails at once, its reason logged and not on the wire; nothing is left', async () => {
  const folder = await newFolder();
  const ok = await docWith(folder.id, 'ok.txt', 'fine');
  const lost = await docWith(folder.id, 'lost.txt', 'gone');
  const fileId = (await A.get(`/documents/${lost.id}`)).body.data.fileId;
  await h.services.files.delete([fileKey(A.t.tenantId, fileId)]);
  const key = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [lost.documentId, ok.documentId] })).body.data.downloadKey;
  expect(await buildAll()).toEqual(['failed']);
  const zip = await statusOf(key);
  expect(zip).toMatchObject({ status: 'Failed', fileSize: null, sha256: null });
  const r = await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${key}`);
  // Asking again cannot help: the message says so, and names no file, path or store.
  expectError(r, 409, "The zip could not be built: the stored bytes of one of its documents' files are missing: ask an administrator");
  expect(r.text).not.toMatch(/file store|ask for a new one|at \S+ \(/);
  expect(r.text).not.toContain(fileId);
  await expect(h.services.files.get(fileKey(A.t.tenantId, key))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  const row = (await h.services.reads.query('select attempts, last_error from document_zip where tenant_id = $1 and id = $2', [A.t.tenantId, key])).rows[0];
  expect(row.attempts).toBe(1);
  expect(row.last_error).toMatch(new RegExp(`file ${fileId} .* not in the file store`));
  expect((await zipOf([ok.documentId])).status).toBe('Ready');
});

test('a store that cannot be read is tried again, up to three tries, then the zip fails; nothing is left', async () => {
  const folder = await newFolder();
  const d = await docWith(folder.id, 'r.txt', 'retry');
  const key = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data.downloadKey;
  // A builder whose file store is broken (its directory is a file): every read fails, and not as a missing file.
  const broken = { ...h.services, files: createFileStore({ fileStore: 'disk', filesDir: path.join(brokenDir, 'files'), s3: undefined }) };
  const lastError = async () => (await h.services.reads.query('select last_error from document_zip where tenant_id = $1 and id = $2', [A.t.tenantId, key])).rows[0].last_error;
  expect(await buildNextZip(broken)).toBe('retried');
  expect((await statusOf(key)).status).toBe('Pending');
  expect(await lastError()).toMatch(/could not be read/);
  // Not tried again at once (three tries came within a quarter of a second, and a store away for a second failed the zip): in a minute, then two.
  expect(await buildNextZip(broken)).toBeUndefined();
  expect(await secondsUntilRetry(key)).toBeCloseTo(60, -1);
  await retryNow(key);
  expect(await buildNextZip(broken)).toBe('retried');
  expect(await secondsUntilRetry(key)).toBeCloseTo(120, -1);
  await retryNow(key);
  expect(await buildNextZip(broken)).toBe('failed');
  expect(await buildNextZip(broken)).toBeUndefined();
  expect((await statusOf(key)).status).toBe('Failed');
  await expect(h.services.files.get(fileKey(A.t.tenantId, key))).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

test('a zip that comes out larger than FILE_MAX_BYTES (its one file is FILE_MAX_BYTES): its download says so and asks for fewer documents, not again', async () => {
  const folder = await newFolder();
  const d = await docWith(folder.id, 'full.bin', randomBytes(FILE_MAX));
  const key = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data.downloadKey;
  expect(await buildAll()).toEqual(['failed']);
  const r = await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${key}`);
  // It said "a file could not be read: ask for a new one", which could never work.
  expectError(r, 409, `The zip could not be built: it came out larger than a stored file may be (FILE_MAX_BYTES, ${FILE_MAX} bytes): ask for one of fewer documents.`);
  expect(r.text).not.toMatch(/could not be read|ask for a new one/);
});

test('builders at once: each zip is built by exactly one of them', async () => {
  const folder = await newFolder();
  const docs = await Promise.all(['1', '2', '3'].map((n) => docWith(folder.id, `${n}.txt`, n)));
  const keys = [];
  for (const d of docs) keys.push((await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data.downloadKey);
  // Five builders for three zips: three build one each, two find nothing left.
  const outcomes = await Promise.all(Array.from({ length: 5 }, () => buildNextZip(h.services)));
  expect(outcomes.filter((o) => o === 'ready')).toHaveLength(3);
  expect(outcomes.filter((o) => o === undefined)).toHaveLength(2);
  const rows = (await h.services.reads.query('select attempts, status from document_zip where tenant_id = $1 and id = any($2::uuid[])', [A.t.tenantId, keys])).rows;
  expect(rows).toEqual(keys.map(() => ({ attempts: 1, status: 1 })));
});

/**
 * The services with the real file store, its reads held until `release`: `reading` settles when
 * the builder asks for its first file (it has claimed its zip by then); with `fail`, the held
 * reads then fail as a lost disk would.
 */
function heldReads(fail: boolean) {
  let release!: () => void;
  let read!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const reading = new Promise<void>((r) => (read = r));
  const files = h.services.files;
  const get = async (k: string) => {
    read();
    await held;
    return fail ? Promise.reject(new Error('disk gone')) : files.get(k);
  };
  const store = { ...h.services, files: { ...files, put: files.put.bind(files), delete: files.delete.bind(files), get } };
  return { store, reading, release };
}

test('a zip deleted while it is built (expired, its creator gone): its bytes are discarded, no row names them', async () => {
  const folder = await newFolder();
  const d = await docWith(folder.id, 'g.txt', 'gone');
  const key = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data.downloadKey;
  // The real store, its reads held until the row is gone.
  const { store: gated, reading, release } = heldReads(false);
  const building = buildNextZip(gated);
  // The builder has claimed the zip once it reads its first file (not after a timed poll: a stalled host could miss it).
  await reading;
  await h.services.reads.query('delete from document_zip where tenant_id = $1 and id = $2', [A.t.tenantId, key]);
  release();
  expect(await building).toBe('gone');
  await expect(h.services.files.get(fileKey(A.t.tenantId, key))).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

/**
 * A builder stalled past its lease (its reads held) while another took the zip over: `fail` says
 * whether the stalled one's reads then fail or go on. The zip and the builders' outcomes.
 */
async function overtaken(fail: boolean) {
  const folder = await newFolder();
  const d = await docWith(folder.id, 'o.txt', 'overtaken');
  const key = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data.downloadKey as string;
  const { store: stalled, reading, release } = heldReads(fail);
  const building = buildNextZip(stalled);
  await reading;
  // Its lease runs out (a pause of its process), and another builder takes the zip and builds it.
  await h.services.reads.query("update document_zip set lease_until = now() - interval '1 second' where tenant_id = $1 and id = $2", [A.t.tenantId, key]);
  const second = await buildNextZip(h.services);
  release();
  return { key, first: await building, second };
}

test('a builder overtaken after its lease ran out leaves the zip the other built: ready, its bytes there, whether its own build then ends well or fails', async () => {
  for (const fail of [false, true]) {
    const { key, first, second } = await overtaken(fail);
    expect([second, first]).toEqual(['ready', 'taken']);
    const zip = await statusOf(key);
    expect(zip.status).toBe('Ready');
    const file = await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${key}`);
    expect(file.status).toBe(200);
    expect(createHash('sha256').update(file.bytes).digest('hex')).toBe(zip.sha256);
    expect((await entriesOf(file.bytes)).map(([n, b]) => [n, b.toString()])).toEqual([['o.txt', 'overtaken']]);
  }
});

test('a zip whose builder died is taken again when its lease runs out, and given up after three such tries', async () => {
  const folder = await newFolder();
  const d = await docWith(folder.id, 'l.txt', 'lease');
  const key = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data.downloadKey;
  const lease = (until: string, attempts: number) =>
    h.services.reads.query(`update document_zip set lease_until = now() + interval '${until}', attempts = $3 where tenant_id = $1 and id = $2`, [A.t.tenantId, key, attempts]);
  // Leased by a builder still at work: left alone.
  await lease('1 minute', 1);
  expect(await buildNextZip(h.services)).toBeUndefined();
  // Its lease ran out: built.
  await lease('-1 second', 1);
  expect(await buildNextZip(h.services)).toBe('ready');

  const again = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data.downloadKey;
  await h.services.reads.query("update document_zip set lease_until = now() - interval '1 second', attempts = 3 where tenant_id = $1 and id = $2", [A.t.tenantId, again]);
  expect(await buildNextZip(h.services)).toBe('failed');
  expect((await statusOf(again)).status).toBe('Failed');
});

test('the server\'s builder builds what is asked for without being called, and stopping it puts a zip in flight back in the queue', async () => {
  const folder = await newFolder();
  const d = await docWith(folder.id, 's.txt', 'started');
  const builder = startZipBuilder(h.services);
  try {
    const key = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data.downloadKey;
    let status = 'Pending';
    for (let i = 0; i < 100 && status === 'Pending'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await statusOf(key)).status;
    }
    expect(status).toBe('Ready');
  } finally {
    await builder.stop();
  }
  // A build abandoned (the server stopping): the zip goes back to the queue at once, that try not counted.
  const key = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data.downloadKey;
  const abort = new AbortController();
  abort.abort();
  expect(await buildNextZip(h.services, abort.signal)).toBe('stopped');
  const row = (await h.services.reads.query('select attempts, lease_until, status from document_zip where tenant_id = $1 and id = $2', [A.t.tenantId, key])).rows[0];
  expect(row).toEqual({ attempts: 0, lease_until: null, status: 0 });
  expect(await buildAll()).toEqual(['ready']);
});

test('a zip is its creator\'s (and administrators\'); other users and tenants find nothing', async () => {
  const folder = await newFolder();
  const d = await docWith(folder.id, 'mine.txt', 'mine');
  const theirs = await zipOf([d.documentId], U);
  const admins = await zipOf([d.documentId]);
  expect((await U.get(`/documents/GetDocumentZipFileStatus?downloadKey=${theirs.downloadKey}`)).body.data.createBy).not.toBe('admin');
  expect((await A.get(`/documents/GetDocumentZipFileStatus?downloadKey=${theirs.downloadKey}`)).status).toBe(200);
  expectError(await U.get(`/documents/GetDocumentZipFileStatus?downloadKey=${admins.downloadKey}`), 404, /Zip file/);
  expectError(await U.get(`/documents/DownloadDocumentZipFile?downloadKey=${admins.downloadKey}`), 404);
  expectError(await B.get(`/documents/GetDocumentZipFileStatus?downloadKey=${theirs.downloadKey}`), 404);
  expectError(await A.get(`/documents/GetDocumentZipFileStatus?downloadKey=${UNKNOWN_ID}`), 404);
  expectError(await A.get('/documents/GetDocumentZipFileStatus'), 400, /downloadKey/);
});

test('a day later it is gone: unreadable at once, and the purge deletes its row and its bytes', async () => {
  const folder = await newFolder();
  const d = await docWith(folder.id, 'old.txt', 'old');
  const zip = await zipOf([d.documentId]);
  await h.services.reads.query("update document_zip set expires_at = now() - interval '1 second' where tenant_id = $1 and id = $2", [A.t.tenantId, zip.downloadKey]);
  expectError(await A.get(`/documents/GetDocumentZipFileStatus?downloadKey=${zip.downloadKey}`), 404);
  expectError(await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${zip.downloadKey}`), 404);
  const purged = await purgeExpired(h.services.orm.em.fork(), h.services.config, h.services.files);
  expect(purged.documentZips).toBeGreaterThanOrEqual(1);
  expect(Number((await h.services.reads.query('select count(*) as n from document_zip where id = $1', [zip.downloadKey])).rows[0].n)).toBe(0);
  await expect(h.services.files.get(fileKey(A.t.tenantId, zip.downloadKey))).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

test('GraphQL: createDocumentZipFile and documentZipFile', async () => {
  const folder = await newFolder();
  const d = await docWith(folder.id, 'g.txt', 'g');
  const made = await A.gql('mutation ($ids: [String]) { createDocumentZipFile(input: { documentDhIds: $ids }) { downloadKey fileCount status } }', { ids: [d.documentId] });
  expect(made.body.errors).toBeUndefined();
  const key = made.body.data.createDocumentZipFile.downloadKey;
  expect(made.body.data.createDocumentZipFile).toEqual({ downloadKey: key, fileCount: 1, status: 'Pending' });
  expect((await A.gql(`{ readyDocumentZipFile(downloadKey: "${key}") { fileName } }`)).body.errors[0].extensions).toMatchObject({ code: 'CONFLICT' });
  await buildAll();
  expect((await A.gql(`{ documentZipFile(downloadKey: "${key}") { status fileSize fileCount } }`)).body.data.documentZipFile).toEqual({ status: 'Ready', fileSize: expect.any(Number), fileCount: 1 });
  expect((await A.gql(`{ readyDocumentZipFile(downloadKey: "${key}") { downloadKey } }`)).body.data.readyDocumentZipFile.downloadKey).toBe(key);
});

/** The path of a stored file in the disk store the tests run on. */
const storedPath = (fileId: string) => path.join(process.env.QUIRE_TEST_FILES_DIR!, A.t.tenantId, fileId);

/** Whether this process still holds `file` open (a descriptor closes a moment after its stream is destroyed). */
async function heldOpen(file: string): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    const links = await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
    if (!links.includes(file)) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

test('a stored file whose read fails mid-way (it opens, its bytes cannot be read): the try fails and is tried again, the file is closed, nothing is left', async () => {
  const folder = await newFolder();
  const ok = await docWith(folder.id, 'ok.txt', 'fine');
  const bad = await docWith(folder.id, 'bad.txt', 'x'.repeat(1000));
  const stored = storedPath((await A.get(`/documents/${bad.id}`)).body.data.fileId);
  // A directory where its bytes were: opening it works, reading it fails (EISDIR), as a disk's read error would.
  await rm(stored);
  await mkdir(stored);
  try {
    const key = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [ok.documentId, bad.documentId] })).body.data.downloadKey;
    // Before, the source's 'error' had no listener: an uncaught exception (the server stopped), and the build never ended.
    expect(await buildNextZip(h.services)).toBe('retried');
    expect(await heldOpen(stored)).toBe(false);
    const row = (await h.services.reads.query('select status, last_error from document_zip where tenant_id = $1 and id = $2', [A.t.tenantId, key])).rows[0];
    expect(row.status).toBe(0);
    expect(row.last_error).toMatch(/could not be read: EISDIR/);
    await expect(h.services.files.get(fileKey(A.t.tenantId, key))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await retryNow(key);
    expect(await buildNextZip(h.services)).toBe('retried');
    await retryNow(key);
    expect(await buildAll()).toEqual(['failed']);
    expect((await statusOf(key)).status).toBe('Failed');
    const r = await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${key}`);
    expectError(r, 409, 'The zip could not be built: its files could not be read at the time: ask for a new one.');
    expect(JSON.stringify(r.body.meta.errors)).not.toMatch(/EISDIR|\//);
  } finally {
    await rm(stored, { recursive: true, force: true });
  }
});

test('a stored file grown past the limit after its upload: the zip fails when the store stops taking its bytes, and the file being read is closed', async () => {
  const folder = await newFolder();
  const d = await docWith(folder.id, 'grown.bin', 'small');
  const stored = storedPath((await A.get(`/documents/${d.id}`)).body.data.fileId);
  const key = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data.downloadKey;
  // Bytes that do not compress, far more than FILE_MAX and than the streams between hold: the put refuses the zip while this file is still being read.
  await writeFile(stored, randomBytes(64 * FILE_MAX));
  expect(await buildNextZip(h.services)).toBe('failed');
  // Before, it stayed open, paused, until the garbage collector closed it.
  expect(await heldOpen(stored)).toBe(false);
  expect((await statusOf(key)).status).toBe('Failed');
  await expect(h.services.files.get(fileKey(A.t.tenantId, key))).rejects.toMatchObject({ code: 'NOT_FOUND' });
});
