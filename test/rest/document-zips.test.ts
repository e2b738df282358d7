/**
 * Zip files of documents (the Node client's `POST documents/CreateDocumentZipFile {documentDhIds}`,
 * reading `data.downloadKey`, then `GET documents/GetDocumentZipFileStatus?downloadKey=`): what
 * goes in, read back with a real zip reader; the download; refusals that leave nothing behind;
 * who may read a zip; and its expiry.
 */
import { createHash } from 'node:crypto';
import yauzl from 'yauzl';
import { purgeExpired } from '../../src/purge.js';
import { fileKey } from '../../src/domain/stored-files.js';
import { Harness } from '../harness.js';
import { type Api, adminApi, expectEnvelope, expectError, multipart, ordinaryUser, uniq, UNKNOWN_ID } from './support.js';

let h: Harness;
let A: Api;
let B: Api;
let U: Api;

/** Small enough that a test can pass it: 64 KiB. */
const FILE_MAX = 64 * 1024;

beforeAll(async () => {
  h = await Harness.start({ fileMaxBytes: FILE_MAX });
  [A, B] = [await adminApi(h), await adminApi(h)];
  U = A.as((await ordinaryUser(A)).token);
});
afterAll(() => h.stop());

type Doc = { id: string; documentId: string };

async function docWith(folderId: string, fileName: string | null, bytes: Uint8Array | string = 'x'): Promise<Doc> {
  const d = (await A.post('/documents', { folderId, name: uniq('zip-doc') })).body.data as Doc;
  if (fileName !== null) expect((await A.post('/files', undefined, await multipart({ documentId: d.documentId, fileName }, bytes, fileName))).status).toBe(200);
  return d;
}
const newFolder = async () => (await A.post('/folders', { name: uniq('Zips') })).body.data as { id: string };

/** The entries of a zip, read with yauzl: name and bytes, in order. */
function entriesOf(zip: Uint8Array): Promise<[string, Buffer][]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(zip), { lazyEntries: true }, (err, file) => {
      if (err) return reject(err);
      const out: [string, Buffer][] = [];
      file.on('error', reject);
      file.on('end', () => resolve(out));
      file.on('entry', (entry: yauzl.Entry) => {
        file.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.push([entry.fileName, Buffer.concat(chunks)]);
            file.readEntry();
          });
        });
      });
      file.readEntry();
    });
  });
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
  const zip = r.body.data;
  expect(zip).toMatchObject({ dataType: 'DocumentZip', status: 'Ready', fileCount: 3, contentType: 'application/zip', createBy: 'admin' });
  expect(zip.href).toBe(`~/documents/GetDocumentZipFileStatus?downloadKey=${zip.downloadKey}`);
  expect(Date.parse(`${zip.expireDate}Z`) - Date.parse(`${zip.createDate}Z`)).toBe(24 * 3600 * 1000);

  const status = await A.get(`/documents/GetDocumentZipFileStatus?downloadKey=${zip.downloadKey}`);
  expectEnvelope(status, 'GET', A.url(`/documents/GetDocumentZipFileStatus?downloadKey=${zip.downloadKey}`));
  expect(status.body.data).toEqual(zip);

  const file = await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${zip.downloadKey}`);
  expect(file.status).toBe(200);
  expect(file.headers.get('content-type')).toBe('application/zip');
  expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${zip.fileName}"`);
  expect(file.bytes.length).toBe(zip.fileSize);
  expect(createHash('sha256').update(file.bytes).digest('hex')).toBe(zip.sha256);
  expect(await entriesOf(file.bytes)).toEqual([
    ['report.pdf', Buffer.from(binary)],
    ['notes.txt', Buffer.from('newer notes')],
    ['Notes (2).txt', Buffer.from('other notes')],
  ]);
});

test('one comma list as a form sends it; a document named twice goes in once', async () => {
  const folder = await newFolder();
  const a = await docWith(folder.id, 'a.txt', 'A');
  const r = await A.post('/documents/CreateDocumentZipFile', { documentDhIds: `${a.documentId}, ${a.id}` });
  expect(r.body.data.fileCount).toBe(1);
  const file = await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${r.body.data.downloadKey}`);
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

test('a document whose bytes are missing from the store: a 500 in the envelope, logged; nothing is left and the server goes on', async () => {
  const folder = await newFolder();
  const ok = await docWith(folder.id, 'ok.txt', 'fine');
  const lost = await docWith(folder.id, 'lost.txt', 'gone');
  const fileId = (await A.get(`/documents/${lost.id}`)).body.data.fileId;
  await h.services.files.delete([fileKey(A.t.tenantId, fileId)]);
  const before = await zipCount();
  const r = await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [lost.documentId, ok.documentId] });
  expectError(r, 500);
  // The reason is in the log, not on the wire.
  expect(r.text).not.toMatch(/stored bytes|at \S+ \(/);
  expect(await zipCount()).toBe(before);
  expect((await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [ok.documentId] })).status).toBe(200);
});

test('a zip is its creator\'s (and administrators\'); other users and tenants find nothing', async () => {
  const folder = await newFolder();
  const d = await docWith(folder.id, 'mine.txt', 'mine');
  const theirs = (await U.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data;
  const admins = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data;
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
  const zip = (await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId] })).body.data;
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
  expect(made.body.data.createDocumentZipFile).toEqual({ downloadKey: key, fileCount: 1, status: 'Ready' });
  expect((await A.gql(`{ documentZipFile(downloadKey: "${key}") { fileName fileCount } }`)).body.data.documentZipFile.fileCount).toBe(1);
});
