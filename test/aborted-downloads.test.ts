/**
 * Downloads cut short, against the real server process. One whose client goes away: the file the
 * store opened for it is closed then, on the disk store and on S3 (a real bucket, s3rver), not
 * left to the garbage collector (which warns "Closing file descriptor N on garbage collection")
 * or, on S3, holding a connection of the SDK's pool. One whose store fails midway (an S3 server
 * that drops the connection): the client's connection is closed, and the server goes on.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { ownDatabase, type OwnDatabase } from './own-database.js';
import { connect } from './raw-socket.js';
import { startS3, type TestS3 } from './s3-server.js';
import { startServer, stop, waitFor, type Started } from './server-process.js';
import { serverTenant } from './server-tenant.js';
import { multipart } from './rest/support.js';

/** Big enough that neither the store's stream nor S3's answer is read whole before anyone asks. */
const CONTENT = new Uint8Array(4 * 1024 * 1024).map((_, i) => (i * 7) % 256);
const ABORTED = 60;

interface Served {
  s: Started;
  /** GET files/{revision id} of a stored CONTENT. */
  path: string;
  token: string;
  tenantId: string;
}

async function serve(databaseUrl: string, env: Record<string, string> = {}): Promise<Served> {
  const s = await startServer({ DATABASE_URL: databaseUrl, ...env });
  const { tenantId, root, token } = await serverTenant(s, databaseUrl, 'dl');
  const base = `http://127.0.0.1:${s.port}`;
  const post = async (path: string, body: { raw: Uint8Array; headers: Record<string, string> } | object) => {
    const init = 'raw' in body ? { body: body.raw, headers: body.headers } : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
    const r = await fetch(`${base}${root}${path}`, { method: 'POST', body: init.body as BodyInit, headers: { ...init.headers, authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    return ((await r.json()) as { data: { id: string; documentId: string } }).data;
  };
  const folder = await post('/folders', { name: `Downloads ${randomUUID().slice(0, 6)}` });
  const doc = await post('/documents', { folderId: folder.id, name: 'Doc', description: 'd', documentState: 1 });
  const file = await post('/files', await multipart({ documentId: doc.documentId }, CONTENT, 'big.bin'));
  return { s, path: `${root}/files/${file.id}`, token, tenantId };
}

/** The process's open descriptors, each as what it names (a path, `socket:[n]`, ...). */
function descriptors(pid: number): string[] {
  return fs.readdirSync(`/proc/${pid}/fd`).map((fd) => {
    try {
      return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return ''; // closed meanwhile
    }
  });
}

/**
 * Sends the GET and closes the connection: before reading a byte of the answer (`printf ... |
 * timeout 0.01 nc`), or once its first bytes arrived.
 */
async function abortedDownload({ s, path, token }: Served, when: 'at once' | 'midway'): Promise<void> {
  const sock = await connect(s.port);
  sock.on('error', () => {});
  sock.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  if (when === 'midway') await new Promise((resolve) => sock.once('data', resolve));
  sock.destroy();
}

/** Runs `n` aborted downloads one after another, each until the server has answered it (to nobody), half of them midway. */
async function abortDownloads(d: Served, n: number): Promise<void> {
  const answered = () => d.s.stdout().split('\n').filter((l) => l.includes(`"path":"${d.path}"`) && l.includes('"msg":"request"')).length;
  const before = answered();
  for (let i = 1; i <= n; i++) {
    await abortedDownload(d, i % 2 ? 'at once' : 'midway');
    await waitFor(d.s.child, () => String(answered() - before >= i), /true/, 10_000);
  }
}

/** A whole download, read to its end: what the counts start from (pools and caches warmed). */
async function download({ s, path, token }: Served): Promise<void> {
  const r = await fetch(`http://127.0.0.1:${s.port}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(r.status).toBe(200);
  expect((await r.arrayBuffer()).byteLength).toBe(CONTENT.length);
}

/** Polls until `settled()` holds, for up to `ms`; answers whether it did. */
async function settles(settled: () => boolean, ms = 5000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (settled()) return true;
  return settled();
}

describe('on the disk store', () => {
  let d: Served;
  /** The tenant's folder of the run's file store, which the server uses. */
  let filesDir: string;
  beforeAll(async () => {
    d = await serve(process.env.QUIRE_TEST_DATABASE_URL!);
    filesDir = fs.realpathSync(`${process.env.QUIRE_TEST_FILES_DIR}/${d.tenantId}`);
  }, 60_000);
  afterAll(async () => {
    if (d?.s.child.exitCode === null) await stop(d.s);
  });

  test('a client that goes away before reading leaves no file open, and nothing for the garbage collector to close', async () => {
    await download(d);
    const open = () => descriptors(d.s.child.pid!).filter((p) => p.startsWith(filesDir)).length;
    // The store closes its file just after the last byte went out, so the client may be first.
    expect(await settles(() => open() === 0)).toBe(true);
    await abortDownloads(d, ABORTED);
    expect(await settles(() => open() === 0)).toBe(true);
    await download(d);
    expect(d.s.stdout()).not.toMatch(/Closing file descriptor|DEP0137/);
  }, 60_000);

  test('HEAD opens no file', async () => {
    const open = () => descriptors(d.s.child.pid!).filter((p) => p.startsWith(filesDir)).length;
    expect(await settles(() => open() === 0)).toBe(true); // the last test's download's file closed
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`http://127.0.0.1:${d.s.port}${d.path}`, { method: 'HEAD', headers: { authorization: `Bearer ${d.token}` } });
      expect([r.status, r.headers.get('content-length')]).toEqual([200, String(CONTENT.length)]);
    }
    expect(open()).toBe(0);
  });
});

describe('on S3', () => {
  let s3: TestS3;
  let db: OwnDatabase;
  let d: Served;
  beforeAll(async () => {
    // A database of its own: its purge must not drain the disk store's removal queue into the bucket.
    [s3, db] = await Promise.all([startS3(), ownDatabase('aborted')]);
    d = await serve(db.url, { FILE_STORE: 's3', S3_BUCKET: s3.bucket, S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey });
  }, 60_000);
  afterAll(async () => {
    if (d?.s.child.exitCode === null) await stop(d.s);
    await Promise.all([s3?.stop(), db?.drop()]);
  });

  test('a client that goes away before reading leaves no connection to the bucket held', async () => {
    await download(d);
    const sockets = () => descriptors(d.s.child.pid!).filter((p) => p.startsWith('socket:')).length;
    const before = sockets();
    await abortDownloads(d, ABORTED);
    // Each answer left unread held one of the SDK's connections (50 at most: then every download waits).
    expect(await settles(() => sockets() <= before + 5)).toBe(true);
    await download(d);
  }, 90_000);
});

/**
 * An S3 endpoint that stores what is put and, asked for it, sends the head (with a checksum, as
 * AWS does for what the SDK uploaded), a part of the bytes, and then drops the connection.
 */
async function failingS3(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': CONTENT.length, etag: '"e"', 'x-amz-checksum-crc32': 'AAAAAA==' });
        res.write(CONTENT.subarray(0, 64 * 1024));
        setTimeout(() => res.socket?.destroy(), 100);
      } else if (req.method === 'POST') {
        res.writeHead(200, { 'content-type': 'application/xml' }).end('<DeleteResult></DeleteResult>');
      } else {
        res.writeHead(200, { etag: '"e"' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a file store that fails midway', () => {
  let s3: Awaited<ReturnType<typeof failingS3>>;
  let db: OwnDatabase;
  let d: Served;
  beforeAll(async () => {
    [s3, db] = await Promise.all([failingS3(), ownDatabase('failing')]);
    d = await serve(db.url, { FILE_STORE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' });
  }, 60_000);
  afterAll(async () => {
    if (d?.s.child.exitCode === null) await stop(d.s);
    await Promise.all([s3?.close(), db?.drop()]);
  });

  test('closes the client\'s connection after what it could send, logs why, and the server goes on', async () => {
    const sock = net.connect(d.s.port, '127.0.0.1');
    let received = 0;
    sock.on('data', (chunk: Buffer) => (received += chunk.length));
    const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
    sock.on('error', () => {});
    sock.write(`GET ${d.path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${d.token}\r\n\r\n`);
    // Not waiting for ever for the bytes that will not come: the head and what arrived, then the end.
    await closed;
    expect(received).toBeGreaterThan(64 * 1024);
    expect(received).toBeLessThan(CONTENT.length);
    await waitFor(d.s.child, d.s.stdout, /"level":40,.*"requestId":"[\w-]+".*the file store failed during a download/, 5000);
    expect((await fetch(`http://127.0.0.1:${d.s.port}/healthz`)).status).toBe(200);
    expect(d.s.child.exitCode).toBeNull();
  }, 30_000);
});
