/**
 * Documents' file bytes in the file store (docs/decisions.md, "Files"): on disk by default, in an
 * S3-compatible bucket (a real one, s3rver) when FILE_STORE is s3. Uploads, downloads, copies,
 * deletions through the removal queue and the purge, and files kept in the database before.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileKey, moveDatabaseFiles } from '../../src/domain/stored-files.js';
import { purgeExpired } from '../../src/purge.js';
import { Harness, type Reply } from '../harness.js';
import { ownDatabase, type OwnDatabase } from '../own-database.js';
import { startS3, type TestS3 } from '../s3-server.js';
import { adminApi, Api, expectError, multipart, uniq } from './support.js';

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
/** Every byte value, many times over: a file that arrives in many chunks. */
const BIG = new Uint8Array(3 * 1024 * 1024 + 7).map((_, i) => (i * 31) % 256);

interface Setup {
  h: Harness;
  A: Api;
  folder: string;
}

async function setUp(h: Harness): Promise<Setup> {
  const A = await adminApi(h);
  return { h, A, folder: (await A.post('/folders', { name: uniq('Stored') })).body.data.id };
}

async function newDoc({ A, folder }: Setup) {
  return (await A.post('/documents', { folderId: folder, name: uniq('Doc'), description: 'd', documentState: 1 })).body.data as { id: string; documentId: string };
}

async function upload(s: Setup, documentId: string, content: string | Uint8Array, fileName = 'f.bin') {
  const r = await s.A.post('/files', undefined, await multipart({ documentId }, content, fileName));
  expect(r.status).toBe(200);
  return r.body.data as { id: string; fileId: string; documentId: string };
}

const inStore = async (s: Setup, fileId: string) =>
  s.h.services.files.get(fileKey(s.A.t.tenantId, fileId)).then(
    async (stream) => Buffer.concat(await stream.toArray()),
    () => undefined,
  );
const queued = async (s: Setup) =>
  (await s.h.services.reads.query('select file_id from file_removal where tenant_id = $1', [s.A.t.tenantId])).rows.map((r) => r.file_id as string);
const purge = (s: Setup) => purgeExpired(s.h.orm.em.fork(), s.h.services.config, s.h.services.files);

/** The same behaviour on both stores; `more`, tests of one store alone (given the setup once it is made). */
function storeBehaviour(name: string, start: () => Promise<Setup>, stop: () => Promise<void>, more?: (setup: () => Setup) => void) {
  describe(name, () => {
    let s: Setup;
    beforeAll(async () => {
      s = await start();
    });
    afterAll(stop);

    test('an upload goes to the store, not the database; GET files/{id} streams it back byte for byte', async () => {
      const doc = await newDoc(s);
      const up = await upload(s, doc.documentId, BIG);
      const { rows } = await s.h.services.reads.query('select content is null as "empty", size, sha256 from document_file where tenant_id = $1 and id = $2', [s.A.t.tenantId, up.fileId]);
      expect(rows).toEqual([{ empty: true, size: String(BIG.length), sha256: sha(BIG) }]);
      expect(sha((await inStore(s, up.fileId))!)).toBe(sha(BIG));
      const r = await s.A.get(`/files/${doc.documentId}`);
      expect([r.status, r.headers.get('content-length')]).toEqual([200, String(BIG.length)]);
      expect(sha(r.bytes)).toBe(sha(BIG));
    });

    test('a Range is answered 206 with just those bytes, read from the store as a range; past the end 416; several or malformed, the whole file', async () => {
      const doc = await newDoc(s);
      const up = await upload(s, doc.documentId, BIG);
      const size = BIG.length;
      const path = `/files/${doc.documentId}`;
      for (const [range, start, end] of [
        ['bytes=1-1', 1, 1],
        ['bytes=1000-2000000', 1000, 2000000],
        ['bytes=3145000-', 3145000, size - 1],
        ['bytes=-10', size - 10, size - 1],
        // Past the end is cut to it (RFC 9110 14.1.2); ranges that touch are joined into one.
        ['bytes=5-99999999', 5, size - 1],
        ['bytes=10-19,20-29', 10, 29],
      ] as const) {
        const r = await s.A.get(path, { headers: { range } });
        expect([range, r.status, r.headers.get('content-range'), r.headers.get('content-length')]).toEqual([range, 206, `bytes ${start}-${end}/${size}`, String(end - start + 1)]);
        expect([range, sha(r.bytes)]).toEqual([range, sha(BIG.subarray(start, end + 1))]);
        expect([r.headers.get('accept-ranges'), r.headers.get('etag')]).toEqual(['bytes', `"${up.fileId}"`]);
      }
      // The first byte alone. s3rver answers `bytes=0-0` with the whole object (test/s3-server.ts):
      // the store refuses bytes it did not ask for, a 500, rather than send other bytes than the headers say.
      const onS3 = s.h.services.config.fileStore === 's3';
      const first = await s.A.get(path, { headers: { range: 'bytes=0-0' }, failureExpected: onS3 });
      if (onS3) {
        expect(first.status).toBe(500);
        expect(first.log!.map((l) => (l.err as { message?: string } | undefined)?.message)).toContain(`the S3 server answered bytes 0-${size - 1}/${size} for the range bytes 0-0/*`);
      } else {
        expect([first.status, first.headers.get('content-range'), [...first.bytes]]).toEqual([206, `bytes 0-0/${size}`, [BIG[0]]]);
      }
      // All past the end, or each last byte before its first (range-parser finds these unsatisfiable too).
      for (const range of [`bytes=${size}-`, `bytes=${size + 5}-${size + 9}`, 'bytes=-0', 'bytes=9-2', `bytes=${size}-, 5-4`]) {
        const r = await s.A.get(path, { headers: { range } });
        expectError(r, 416, `The range '${range}' names none of the file's ${size} bytes (0 to ${size - 1}): ask for a first byte among them and a last one not before it.`);
        expect(r.headers.get('content-range')).toBe(`bytes */${size}`);
      }
      // Not one range of bytes: the file whole (RFC 9110 14.2 lets a server ignore Range).
      for (const range of ['bytes=0-1,5-6', 'bytes=abc', 'bytes=1x-5', 'items=0-5', 'bytes 0-5', '']) {
        const r = await s.A.get(path, { headers: { range } });
        expect([range, r.status, r.headers.get('content-range'), r.headers.get('content-length')]).toEqual([range, 200, null, String(size)]);
        expect(sha(r.bytes)).toBe(sha(BIG));
      }
    });

    test('a file whose bytes are gone from the store is the plain GET\'s 404 whatever the Range or conditional headers, HEAD too (RFC 9110 13.2.1)', async () => {
      const doc = await newDoc(s);
      const up = await upload(s, doc.documentId, '0123456789');
      const path = `/files/${doc.documentId}`;
      const etag = `"${up.fileId}"`;
      // Before: each of these answers without reading the bytes.
      const statuses = async (method: string) => {
        const out: number[] = [];
        for (const headers of [{ 'if-none-match': etag }, { 'if-modified-since': new Date(Date.now() + 3600_000).toUTCString() }, { range: 'bytes=99-' }, { 'if-match': '"other"' }] as Record<string, string>[]) {
          out.push((await s.A.request(method, path, { headers })).status);
        }
        return out;
      };
      expect([await statuses('GET'), await statuses('HEAD'), (await s.A.request('HEAD', path)).status]).toEqual([[304, 304, 416, 412], [304, 304, 200, 412], 200]);
      const key = fileKey(s.A.t.tenantId, up.fileId);
      await s.h.services.files.delete([key]);
      try {
        const plain = await s.A.get(path);
        expectError(plain, 404, 'The file is not in the file store.');
        expect([await statuses('GET'), await statuses('HEAD'), (await s.A.request('HEAD', path)).status]).toEqual([[404, 404, 404, 404], [404, 404, 404, 404], 404]);
        for (const headers of [{ 'if-none-match': etag }, { range: 'bytes=99-' }, { 'if-match': '"other"' }] as Record<string, string>[]) {
          expect((await s.A.get(path, { headers })).body).toEqual(plain.body);
        }
      } finally {
        // Back in place: the other tests copy the folder, and compare the store's keys with the rows'.
        await s.h.services.files.put(key, Buffer.from('0123456789'), 10);
      }
    });

    test('a copied document, and a copied folder, carry each file under a key of its own', async () => {
      const doc = await newDoc(s);
      const up = await upload(s, doc.documentId, 'copy me', 'c.txt');
      const copy = (await s.A.post(`/documents/${doc.documentId}/copy`, { folderId: s.folder, name: uniq('Copy') })).body.data;
      expect(copy.fileId).not.toBe(up.fileId);
      expect(Buffer.from((await s.A.get(`/files/${copy.id}`)).bytes).toString()).toBe('copy me');
      expect((await inStore(s, copy.fileId))?.toString()).toBe('copy me');

      const folderCopy = (await s.A.post('/folders/copy', { sourceFolderId: s.folder, targetFolderPath: `/${uniq('Copied')}` })).body.data;
      const copied = (await s.A.get(`/folders/${folderCopy.id}/documents`)).body.data as { fileId: string; name: string; id: string }[];
      const twin = copied.find((d) => d.name === (copy.name as string))!;
      expect(twin.fileId).not.toBe(copy.fileId);
      expect(Buffer.from((await s.A.get(`/files/${twin.id}`)).bytes).toString()).toBe('copy me');
      expect((await inStore(s, twin.fileId))?.toString()).toBe('copy me');
    });

    test('rows that go queue their bytes, cascades too; the purge deletes them and empties the queue', async () => {
      const doc = await newDoc(s);
      const first = await upload(s, doc.documentId, 'one');
      const second = await upload(s, doc.documentId, 'two');
      // A revision deleted by hand.
      expect((await s.A.del(`/documents/revisions/${second.id}`)).status).toBe(200);
      // A folder deleted with what it holds: the database's cascade.
      const sub = (await s.A.post('/folders', { name: uniq('Doomed') })).body.data.id as string;
      const inSub = (await s.A.post('/documents', { folderId: sub, name: uniq('Doc'), description: 'd', documentState: 1 })).body.data;
      const third = await upload(s, inSub.documentId, 'three');
      expect((await s.A.del(`/folders/${sub}`)).status).toBe(200);

      expect(await queued(s)).toEqual(expect.arrayContaining([second.fileId, third.fileId]));
      expect(await queued(s)).not.toContain(first.fileId);
      // Until the purge, the bytes are still there (the rows are not).
      expect(await inStore(s, third.fileId)).toBeDefined();
      const purged = await purge(s);
      expect(purged.files).toBeGreaterThanOrEqual(2);
      expect(await queued(s)).toEqual([]);
      expect(await inStore(s, second.fileId)).toBeUndefined();
      expect(await inStore(s, third.fileId)).toBeUndefined();
      expect((await inStore(s, first.fileId))?.toString()).toBe('one');
    });

    test('an upload refused after its bytes were stored leaves none behind', async () => {
      const doc = await newDoc(s);
      const before = await s.h.services.reads.query('select count(*)::int as n from document_file where tenant_id = $1', [s.A.t.tenantId]);
      // The index field named does not exist: refused after the store took the bytes.
      const r = await s.A.post('/files', undefined, await multipart({ documentId: doc.documentId, indexFields: JSON.stringify({ [uniq('NoSuchField')]: 'x' }) }, 'refused', 'r.txt'));
      expectError(r, 400);
      const after = await s.h.services.reads.query('select count(*)::int as n from document_file where tenant_id = $1', [s.A.t.tenantId]);
      expect(after.rows[0].n).toBe(before.rows[0].n);
      expect(await storedKeys(s)).toEqual(await liveKeys(s));
    });

    more?.(() => s);
  });
}

/** Every key the store holds for the tenant, where the store can list them (the disk store). */
async function storedKeys(s: Setup): Promise<string[]> {
  const dir = path.join(s.h.services.config.filesDir, s.A.t.tenantId);
  if (s.h.services.config.fileStore !== 'disk' || !fs.existsSync(dir)) return liveKeys(s);
  return fs.readdirSync(dir).map((f) => fileKey(s.A.t.tenantId, f)).sort();
}
async function liveKeys(s: Setup): Promise<string[]> {
  const { rows } = await s.h.services.reads.query('select id from document_file where tenant_id = $1', [s.A.t.tenantId]);
  const gone = await queued(s);
  return [...rows.map((r) => r.id as string), ...gone].map((id) => fileKey(s.A.t.tenantId, id)).sort();
}

// Each store on a database of its own: the purges of other test files, on the shared database,
// would otherwise take this file's removals off the queue while its tests look at it.
let diskDb: OwnDatabase;
let filesDir: string;
let disk: Harness;
beforeAll(async () => {
  diskDb = await ownDatabase('disk');
  filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-disk-'));
});
afterAll(async () => {
  await diskDb.drop();
  fs.rmSync(filesDir, { recursive: true, force: true });
});
const onDisk = () => Harness.start({ databaseUrl: diskDb.url, filesDir });

storeBehaviour(
  'on disk (the default)',
  async () => setUp((disk = await onDisk())),
  () => disk.stop(),
  (setup) => {
    test('an upload the store cannot keep (the tenant\'s folder a file, not a folder) is a 500 with its cause logged, not a 400 "malformed body" quoting the file system; nothing is recorded', async () => {
      const s = setup();
      const doc = await newDoc(s);
      await upload(s, doc.documentId, 'kept');
      // The same database, served from a store whose tenant folder cannot be made.
      const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-broken-'));
      fs.writeFileSync(path.join(broken, s.A.t.tenantId), 'not a folder');
      const refusing = await Harness.start({ databaseUrl: diskDb.url, filesDir: broken });
      try {
        const r = await new Api(refusing, s.A.t, s.A.token).post('/files', undefined, { ...(await multipart({ documentId: doc.documentId }, 'lost?', 'f.txt')), failureExpected: true });
        expect(r.status).toBe(500);
        expect(r.text).toContain(`An unexpected error occurred. Quote request id ${r.headers.get('x-request-id')}`);
        expect(r.text).not.toContain(broken);
        expect(r.log?.find((l) => l.level === 50)).toMatchObject({ err: { type: 'FileStoreFault', message: expect.stringContaining('the file store refused the file') } });
        // Nothing left behind in it: no temporary file, no tenant folder.
        expect(fs.readdirSync(path.join(broken, '.tmp'))).toEqual([]);
      } finally {
        await refusing.stop();
        fs.rmSync(broken, { recursive: true, force: true });
      }
      expect((await s.A.get(`/files/${doc.documentId}`)).text).toBe('kept');
    });
  },
);

let s3: TestS3;
let db: OwnDatabase;
let onS3: Harness;
const s3Settings = () => ({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true });
storeBehaviour(
  'in an S3-compatible bucket',
  async () => {
    [s3, db] = await Promise.all([startS3(), ownDatabase('s3')]);
    return setUp((onS3 = await Harness.start({ databaseUrl: db.url, fileStore: 's3', s3: s3Settings() })));
  },
  async () => {
    await onS3.stop();
    await Promise.all([s3.stop(), db.drop()]);
  },
  (setup) => {
    test('the store away: an upload, a download and a HEAD are 503s naming the file store, with Retry-After, its error logged as a warning (an upload was a 400 "malformed body" naming its address)', async () => {
      const s = setup();
      const doc = await newDoc(s);
      await upload(s, doc.documentId, 'kept');
      // The same database, with the store at an address where nothing listens.
      const port = await new Promise<number>((resolve) => {
        const probe = http.createServer().listen(0, '127.0.0.1', () => {
          const { port: free } = probe.address() as AddressInfo;
          probe.close(() => resolve(free));
        });
      });
      const away = await Harness.start({ databaseUrl: db.url, fileStore: 's3', s3: { ...s3Settings(), endpoint: `http://127.0.0.1:${port}` } });
      try {
        const W = new Api(away, s.A.t, s.A.token);
        const message = 'The file store is not available right now. Try again in 5 seconds.';
        const answers = [
          await W.post('/files', undefined, await multipart({ documentId: doc.documentId }, 'lost?', 'f.txt')),
          await W.get(`/files/${doc.documentId}`),
          await W.request('HEAD', `/files/${doc.documentId}`),
        ];
        for (const r of answers) {
          expect([r.status, r.headers.get('retry-after')]).toEqual([503, '5']);
          expect(r.text).not.toContain(String(port));
        }
        expectError(answers[0], 503, message);
        expectError(answers[1], 503, message);
        expect(answers[0].log?.find((l) => l.level === 40)).toMatchObject({ msg: expect.stringContaining('The file store refused or dropped the connection'), err: expect.anything() });
        // Nothing was recorded for the upload that failed: the document still has its one file.
        expect((await s.A.get(`/files/${doc.documentId}`)).text).toBe('kept');
      } finally {
        await away.stop();
      }
    });

    test('a bucket that is missing: the answers that read no bytes (304, 412, 416, HEAD) are the plain GET\'s 500, not the file\'s 404', async () => {
      const s = setup();
      const doc = await newDoc(s);
      const up = await upload(s, doc.documentId, '0123456789');
      // The same database and server, configured with a bucket the server does not have.
      const lost = await Harness.start({ databaseUrl: db.url, fileStore: 's3', s3: { ...s3Settings(), bucket: 'no-such-bucket' } });
      try {
        const L = new Api(lost, s.A.t, s.A.token);
        const path = `/files/${doc.documentId}`;
        /** What a person sees of the answer (its request id aside), and what the server logged of it. */
        const seen = (r: Reply) => ({
          status: r.status,
          body: r.text.replaceAll(r.headers.get('x-request-id')!, '<id>'),
          logged: r.log?.map((l) => (l.err as { name?: string } | undefined)?.name).filter(Boolean),
        });
        const plain = seen(await L.get(path, { failureExpected: true }));
        expect(plain).toMatchObject({ status: 500, body: expect.stringContaining('An unexpected error occurred. Quote request id <id>'), logged: ['NoSuchBucket'] });
        const future = new Date(Date.now() + 3600_000).toUTCString();
        for (const headers of [{ 'if-none-match': `"${up.fileId}"` }, { 'if-modified-since': future }, { range: 'bytes=99-' }, { 'if-match': '"other"' }] as Record<string, string>[]) {
          expect([headers, seen(await L.get(path, { headers, failureExpected: true }))]).toEqual([headers, plain]);
          // HEAD: the same status and log, no body.
          expect([headers, seen(await L.request('HEAD', path, { headers, failureExpected: true }))]).toEqual([headers, { ...plain, body: '' }]);
        }
        expect(seen(await L.request('HEAD', path, { failureExpected: true }))).toEqual({ ...plain, body: '' });
      } finally {
        await lost.stop();
      }
    });

    test('an upload the store refuses (a missing bucket, a key id it does not know) is a 500 with its cause logged, not a 400 "malformed body" quoting the store; nothing is recorded', async () => {
      const s = setup();
      const doc = await newDoc(s);
      await upload(s, doc.documentId, 'kept');
      for (const wrong of [{ bucket: 'no-such-bucket' }, { accessKeyId: 'NO-SUCH-KEY-ID' }]) {
        const refusing = await Harness.start({ databaseUrl: db.url, fileStore: 's3', s3: { ...s3Settings(), ...wrong } });
        try {
          const r = await new Api(refusing, s.A.t, s.A.token).post('/files', undefined, { ...(await multipart({ documentId: doc.documentId }, 'lost?', 'f.txt')), failureExpected: true });
          expect([wrong, r.status]).toEqual([wrong, 500]);
          expect(r.text).toContain(`An unexpected error occurred. Quote request id ${r.headers.get('x-request-id')}`);
          expect(r.log?.find((l) => l.level === 50)).toMatchObject({ err: { type: 'FileStoreFault', message: expect.stringContaining('the file store refused the file') } });
        } finally {
          await refusing.stop();
        }
      }
      expect((await s.A.get(`/files/${doc.documentId}`)).text).toBe('kept');
    });
  },
);

describe('files kept in the database before the file store', () => {
  let h: Harness;
  let s: Setup;
  beforeAll(async () => {
    h = await onDisk();
    s = await setUp(h);
  });
  afterAll(() => h.stop());

  test('are moved into it at start-up, and read, copied and deleted as any other', async () => {
    const doc = await newDoc(s);
    const up = await upload(s, doc.documentId, 'from before', 'old.txt');
    // As a file stored before this change: its bytes in its row, none in the store.
    await h.services.reads.query('update document_file set content = $3 where tenant_id = $1 and id = $2', [s.A.t.tenantId, up.fileId, Buffer.from('from before')]);
    await h.services.files.delete([fileKey(s.A.t.tenantId, up.fileId)]);
    expect(await inStore(s, up.fileId)).toBeUndefined();

    expect(await moveDatabaseFiles(h.orm.em.fork(), h.services.files)).toBeGreaterThanOrEqual(1);
    const { rows } = await h.services.reads.query('select content from document_file where tenant_id = $1 and id = $2', [s.A.t.tenantId, up.fileId]);
    expect(rows).toEqual([{ content: null }]);
    expect((await inStore(s, up.fileId))?.toString()).toBe('from before');
    expect(Buffer.from((await s.A.get(`/files/${up.fileId}`)).bytes).toString()).toBe('from before');
    // Nothing left to move: a second start moves none.
    expect(await moveDatabaseFiles(h.orm.em.fork(), h.services.files)).toBe(0);
  });

  test('a row deleted before it was moved queues nothing (it has no stored bytes)', async () => {
    const doc = await newDoc(s);
    const up = await upload(s, doc.documentId, 'legacy');
    await h.services.reads.query('update document_file set content = $3 where tenant_id = $1 and id = $2', [s.A.t.tenantId, up.fileId, Buffer.from('legacy')]);
    await s.A.del(`/folders/${s.folder}`);
    expect(await queued(s)).not.toContain(up.fileId);
  });
});

describe('files larger than a request body may be (streamed: MAX_BODY_BYTES 64 KiB, FILE_MAX_BYTES 1 MiB here)', () => {
  const LIMITS = { maxBodyBytes: 64 * 1024, fileMaxBytes: 1024 * 1024 };
  let h: Harness;
  let s: Setup;
  beforeAll(async () => {
    h = await Harness.start({ databaseUrl: diskDb.url, filesDir, ...LIMITS });
    s = await setUp(h);
  });
  afterAll(() => h.stop());

  /** A multipart body of these parts, in this order (a Blob part is a file). */
  async function body(entries: [string, string | Uint8Array, string?][]) {
    const form = new FormData();
    for (const [name, value, fileName] of entries) {
      if (typeof value === 'string' && !fileName) form.append(name, value);
      else form.append(name, new Blob([typeof value === 'string' ? value : new Uint8Array(value)]), fileName ?? 'f.bin');
    }
    const req = new Request('http://x/', { method: 'POST', body: form });
    return { raw: new Uint8Array(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
  }
  const fileCount = async () => (await h.services.reads.query('select count(*)::int as n from document_file where tenant_id = $1', [s.A.t.tenantId])).rows[0].n as number;
  const LARGE = BIG.subarray(0, 600 * 1024);

  test('a file of 600 KB goes in, its text parts before or after it, and comes back whole; GraphQL, which carries bytes in its answer, says where to get it', async () => {
    const doc = await newDoc(s);
    const r = await s.A.post('/files', undefined, await body([['fileUpload', LARGE, 'large.bin'], ['documentId', doc.documentId], ['fileName', 'named after.bin']]));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ fileName: 'named after.bin', fileSize: LARGE.length });
    const back = await s.A.get(`/files/${doc.documentId}`);
    expect([back.status, sha(back.bytes)]).toEqual([200, sha(LARGE)]);
    const g = await s.A.gql('query ($id: UUID!) { file(id: $id) { content } }', { id: doc.documentId });
    expect(g.body.errors[0]).toMatchObject({ message: expect.stringContaining(`GET files/${r.body.data.fileId}`), extensions: { code: 'PAYLOAD_TOO_LARGE' } });
    // Its record is there for GraphQL all the same.
    const rec = await s.A.gql('query ($id: UUID!) { documentFile(id: $id) { fileId fileSize sha256 } }', { id: doc.documentId });
    expect(rec.body.data.documentFile).toEqual({ fileId: r.body.data.fileId, fileSize: LARGE.length, sha256: sha(LARGE) });
  });

  test('a file over FILE_MAX_BYTES is a 413, and nothing of it is kept', async () => {
    const doc = await newDoc(s);
    const before = await fileCount();
    const r = await s.A.post('/files', undefined, await body([['documentId', doc.documentId], ['fileUpload', BIG, 'huge.bin']]));
    expectError(r, 413, /larger than the limit of 1048576 bytes/);
    // Declared larger than both limits together: refused before a byte is read.
    const declared = await body([['documentId', doc.documentId], ['fileUpload', BIG, 'huge.bin']]);
    const up = await s.A.post('/files', undefined, { ...declared, headers: { ...declared.headers, 'content-length': String(declared.raw.length) } });
    expectError(up, 413, `The request body is larger than the limit of ${LIMITS.maxBodyBytes + LIMITS.fileMaxBytes} bytes.`);
    expect(await fileCount()).toBe(before);
    expect(await storedKeys(s)).toEqual(await liveKeys(s));
  });

  test('refused uploads keep nothing: no token (nothing read), an unknown document, text parts over MAX_BODY_BYTES', async () => {
    const doc = await newDoc(s);
    const before = await fileCount();
    expectError(await s.A.as(undefined).post('/files', undefined, await body([['documentId', doc.documentId], ['fileUpload', LARGE]])), 401);
    expectError(await s.A.post('/files', undefined, await body([['documentId', '00000000-0000-4000-8000-0000000000aa'], ['fileUpload', LARGE]])), 404);
    expectError(await s.A.post('/files', undefined, await body([['documentId', doc.documentId], ['changeText', 'x'.repeat(70 * 1024)], ['fileUpload', 'small']])), 413, /MAX_BODY_BYTES/);
    expectError(await s.A.post('/files', undefined, await body([['documentId', doc.documentId]])), 400, /no file/);
    expect(await fileCount()).toBe(before);
    expect(await storedKeys(s)).toEqual(await liveKeys(s));
  });

  test('the first file part is the upload; later ones are read and dropped', async () => {
    const doc = await newDoc(s);
    const r = await s.A.post('/files', undefined, await body([['documentId', doc.documentId], ['fileUpload', 'first', 'one.txt'], ['fileUpload', LARGE, 'two.bin']]));
    expect(r.body.data).toMatchObject({ fileName: 'one.txt', fileSize: 5 });
    expect(Buffer.from((await s.A.get(`/files/${doc.documentId}`)).bytes).toString()).toBe('first');
    expect(await storedKeys(s)).toEqual(await liveKeys(s));
  });

  test('over a real socket, sent in chunks with no Content-Length, the file streams through', async () => {
    const doc = await newDoc(s);
    const server = http.createServer(h.app.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { raw, headers } = await body([['documentId', doc.documentId], ['fileUpload', BIG.subarray(0, 900 * 1024), 'chunked.bin']]);
      // 16 KB at a time, as a stream: fetch sends it chunked.
      const chunks = Array.from({ length: Math.ceil(raw.length / 16384) }, (_, i) => raw.subarray(i * 16384, (i + 1) * 16384));
      const stream = new ReadableStream<Uint8Array>({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()!) : c.close()) });
      const { port } = server.address() as AddressInfo;
      const r = await fetch(`http://127.0.0.1:${port}${s.A.t.root}/files`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${s.A.token}` },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(r.status).toBe(200);
      expect(((await r.json()) as { data: { fileSize: number } }).data.fileSize).toBe(900 * 1024);
      expect(sha((await s.A.get(`/files/${doc.documentId}`)).bytes)).toBe(sha(BIG.subarray(0, 900 * 1024)));
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a download the client gives up on, or a HEAD, leaves no file open', async () => {
    const doc = await newDoc(s);
    const up = await upload(s, doc.documentId, LARGE, 'abandoned.bin');
    const openOf = () => fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`).endsWith(up.fileId);
      } catch {
        return false;
      }
    });
    const server = http.createServer(h.app.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}${s.A.t.root}/files/${up.fileId}`;
      const auth = { authorization: `Bearer ${s.A.token}` };
      const head = await fetch(url, { method: 'HEAD', headers: auth });
      expect([head.status, head.headers.get('content-length')]).toEqual([200, String(LARGE.length)]);
      const stop = new AbortController();
      const r = await fetch(url, { headers: auth, signal: stop.signal });
      await r.body!.getReader().read();
      stop.abort();
      // The server sees the socket close and closes the file: wait for that, not for a time.
      for (let i = 0; openOf().length > 0 && i < 200; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(openOf()).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('every other route keeps MAX_BODY_BYTES', async () => {
    expectError(await s.A.post('/documents', { folderId: s.folder, name: uniq('Doc'), description: 'x'.repeat(70 * 1024) }), 413);
  });
});
