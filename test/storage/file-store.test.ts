/**
 * The file stores against what they stand on: the disk store on a temporary directory, the S3
 * store on a real S3-compatible server (s3rver). Both keep the same promises (FileStore), so the
 * same tests run against each; what only one of them has (temporary files, credentials) follows.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import { asStoreError, DiskFileStore } from '../../src/storage/disk-store.js';
import type { FileStore } from '../../src/storage/file-store.js';
import { createFileStore } from '../../src/storage/index.js';
import { S3FileStore } from '../../src/storage/s3-store.js';
import { startS3, type TestS3 } from '../s3-server.js';
import { ROOT, underLimit } from '../server-process.js';

const MB = 1024 * 1024;
const tenant = randomUUID();
const newKey = () => `${tenant}/${randomUUID()}`;

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * `total` random bytes in many chunks of uneven size, as a request body arrives; `failAfter`
 * bytes in, the stream fails as a dropped connection does. `expected` is what went out so far.
 */
function chunked(total: number, failAfter = Infinity) {
  const hash = createHash('sha256');
  const expected = { size: 0, sha256: '' };
  async function* gen() {
    for (let n = 1; expected.size < total; n++) {
      if (expected.size >= failAfter) throw new Error('connection reset by the client');
      const chunk = randomBytes(Math.min(total - expected.size, 16 * 1024 + (expected.size % 7) * 4099));
      hash.update(chunk);
      expected.size += chunk.length;
      yield chunk;
      // A pause now and then, so that the chunks arrive over time and not in one synchronous run.
      if (n % 8 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    expected.sha256 = hash.digest('hex');
  }
  return { stream: Readable.from(gen()), expected };
}

/** Whatever `fn` throws or rejects with. */
async function failure(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

async function expectNotFound(store: FileStore, key: string) {
  const e = await failure(() => store.get(key));
  expect(e).toBeInstanceOf(AppError);
  expect(e).toMatchObject({ code: 'NOT_FOUND', status: 404 });
}

interface Backend {
  name: string;
  start(): Promise<{ store: FileStore; stop(): Promise<void> }>;
}

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.stop();
});

const s3Settings = () => ({
  bucket: s3.bucket,
  region: 'us-east-1',
  endpoint: s3.endpoint,
  accessKeyId: s3.accessKeyId,
  secretAccessKey: s3.secretAccessKey,
  forcePathStyle: true,
});

const backends: Backend[] = [
  {
    name: 'disk',
    async start() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-disk-store-'));
      return { store: new DiskFileStore(dir), stop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 's3',
    async start() {
      const store = new S3FileStore(s3Settings());
      return { store, stop: async () => store.destroy() };
    },
  },
];

describe.each(backends)('the $name file store', (backend) => {
  let store: FileStore;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ store, stop } = await backend.start());
  });
  afterAll(async () => {
    await stop();
  });

  test('a Buffer goes in and the same bytes come out, with their size and SHA-256', async () => {
    const key = newKey();
    const body = randomBytes(1000);
    expect(await store.put(key, body, 1000)).toEqual({ size: 1000, sha256: sha256(body) });
    expect((await bytesOf(await store.get(key))).equals(body)).toBe(true);
  });

  test('a stream that fails before the put reads it: the put rejects with its error, stores nothing, and the process goes on', async () => {
    const key = newKey();
    const body = new PassThrough();
    const put = store.put(key, body, 100);
    // At once, while the put still awaits its target: no listener of the put's is on the stream yet.
    body.destroy(new Error('source lost'));
    await expect(put).rejects.toThrow('source lost');
    await expect(store.get(key)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  test('an empty file is a file', async () => {
    const key = newKey();
    expect(await store.put(key, Readable.from([]), 10)).toEqual({ size: 0, sha256: sha256(Buffer.alloc(0)) });
    expect((await bytesOf(await store.get(key))).length).toBe(0);
  });

  test('a 12 MB stream arriving in hundreds of chunks is stored whole (a multipart upload on S3)', async () => {
    const key = newKey();
    const { stream, expected } = chunked(12 * MB);
    const stored = await store.put(key, stream, 12 * MB);
    expect(stored).toEqual({ size: 12 * MB, sha256: expected.sha256 });
    const back = await bytesOf(await store.get(key));
    expect(back.length).toBe(12 * MB);
    expect(sha256(back)).toBe(expected.sha256);
  });

  test.each([
    ['a small stream', 64 * 1024, 10_000],
    ['a large stream, past the first uploaded part', 12 * MB, 7 * MB],
  ])('%s over maxBytes is a PAYLOAD_TOO_LARGE and nothing stays under the key', async (_name, total, maxBytes) => {
    const key = newKey();
    const { stream, expected } = chunked(total);
    const e = await failure(() => store.put(key, stream, maxBytes));
    expect(e).toBeInstanceOf(AppError);
    expect(e).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413, message: `The file is larger than the limit of ${maxBytes} bytes.` });
    // It stopped reading at the limit, not at the end of the body.
    expect(expected.size).toBeLessThan(total);
    expect(stream.destroyed).toBe(true);
    await expectNotFound(store, key);
  });

  test('a Buffer over maxBytes is refused too; exactly maxBytes is taken', async () => {
    const key = newKey();
    const e = await failure(() => store.put(key, randomBytes(101), 100));
    expect(e).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    await expectNotFound(store, key);
    const exact = randomBytes(100);
    expect(await store.put(key, exact, 100)).toEqual({ size: 100, sha256: sha256(exact) });
  });

  test.each([
    ['early', 64 * 1024],
    ['after a part was uploaded (S3)', 6 * MB],
  ])('a body that fails midway (%s) fails the put with its error and leaves nothing', async (_name, failAfter) => {
    const key = newKey();
    const { stream } = chunked(12 * MB, failAfter);
    const e = await failure(() => store.put(key, stream, 100 * MB));
    expect((e as Error).message).toBe('connection reset by the client');
    await expectNotFound(store, key);
  });

  test('a key with nothing under it is a NOT_FOUND', async () => {
    await expectNotFound(store, newKey());
  });

  test('has says whether bytes are under a key, without reading them; an empty file is there too', async () => {
    const [full, empty, gone] = [newKey(), newKey(), newKey()];
    await store.put(full, Buffer.from('here'), 100);
    await store.put(empty, Buffer.alloc(0), 100);
    await store.put(gone, Buffer.from('gone'), 100);
    await store.delete([gone]);
    expect(await Promise.all([full, empty, gone, newKey()].map((k) => store.has(k)))).toEqual([true, true, false, false]);
  });

  test('a copy has the same bytes under the new key; the original stays', async () => {
    const from = newKey();
    const to = newKey();
    const body = randomBytes(300 * 1024);
    await store.put(from, body, MB);
    await store.copy(from, to);
    expect((await bytesOf(await store.get(to))).equals(body)).toBe(true);
    expect((await bytesOf(await store.get(from))).equals(body)).toBe(true);
    // The copy is its own: deleting the original leaves it.
    await store.delete([from]);
    expect((await bytesOf(await store.get(to))).equals(body)).toBe(true);
  });

  test('copying a key with nothing under it is a NOT_FOUND, and makes nothing', async () => {
    const to = newKey();
    expect(await failure(() => store.copy(newKey(), to))).toMatchObject({ code: 'NOT_FOUND' });
    await expectNotFound(store, to);
  });

  test('delete removes the keys it is given, and no others; missing keys are no error', async () => {
    const [a, b, kept] = [newKey(), newKey(), newKey()];
    for (const k of [a, b, kept]) await store.put(k, Buffer.from(k), 100);
    await store.delete([a, newKey(), b]);
    await expectNotFound(store, a);
    await expectNotFound(store, b);
    expect((await bytesOf(await store.get(kept))).toString()).toBe(kept);
    await store.delete([a, b]);
    await store.delete([]);
  });

  test('delete takes more keys than one S3 request may carry (1000)', async () => {
    const first = newKey();
    const last = newKey();
    await store.put(first, Buffer.from('first'), 100);
    await store.put(last, Buffer.from('last'), 100);
    const keys = [first, ...Array.from({ length: 1500 }, newKey), last];
    await store.delete(keys);
    await expectNotFound(store, first);
    await expectNotFound(store, last);
  });

  test.each(['../etc/passwd', '/abs/file', 'a/b/c', 'nofolder', `${tenant}/..`, '../x', `${tenant}/`, '/x', '.tmp/x', `${tenant}/.hidden`, 'a\\b/c', ''])(
    'the key %j is refused as a programming error, before anything is touched',
    async (bad) => {
      const good = newKey();
      for (const call of [() => store.put(bad, Buffer.from('x'), 10), () => store.get(bad), () => store.copy(bad, good), () => store.copy(good, bad), () => store.delete([good, bad])]) {
        const e = await failure(call);
        expect(e).not.toBeInstanceOf(AppError);
        expect((e as Error).message).toMatch(/^not a file key of the form <tenant>\/<file>/);
      }
    },
  );
});

describe('the disk store on its directory', () => {
  let dir: string;
  let store: DiskFileStore;
  beforeEach(() => {
    dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-disk-store-')), 'files');
    store = new DiskFileStore(dir);
  });
  afterEach(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }));

  test('makes its directory on the first put, not before: reads, copies and deletes of nothing make nothing', async () => {
    await expectNotFound(store, newKey());
    await store.delete([newKey()]);
    expect(fs.existsSync(dir)).toBe(false);
    const key = newKey();
    await store.put(key, Buffer.from('hello'), 10);
    expect(fs.readFileSync(path.join(dir, ...key.split('/')), 'utf8')).toBe('hello');
  });

  test('a put that fails leaves no temporary file, and neither does a good one', async () => {
    await store.put(newKey(), randomBytes(1000), 1000);
    const tooBig = chunked(2 * MB);
    await expect(store.put(newKey(), tooBig.stream, MB)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const broken = chunked(2 * MB, MB);
    await expect(store.put(newKey(), broken.stream, 10 * MB)).rejects.toThrow('connection reset by the client');
    const original = newKey();
    await store.put(original, Buffer.from('x'), 10);
    await store.copy(original, newKey());
    await expect(store.copy(newKey(), newKey())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(fs.readdirSync(path.join(dir, '.tmp'))).toEqual([]);
    // Only the tenant's folder besides the temporary one: nothing else was written.
    expect(fs.readdirSync(dir).sort()).toEqual(['.tmp', tenant].sort());
    expect(fs.readdirSync(path.join(dir, tenant))).toHaveLength(3);
  });

  test('sweep removes temporary files a crash left, once they are old enough; fresh ones stay', async () => {
    expect(await store.sweep(1000)).toBe(0);
    await store.put(newKey(), Buffer.from('made the folders'), 100);
    const tmp = path.join(dir, '.tmp');
    fs.writeFileSync(path.join(tmp, 'left-by-a-crash'), 'half a file');
    fs.writeFileSync(path.join(tmp, 'in-flight'), 'a put going on now');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    fs.utimesSync(path.join(tmp, 'left-by-a-crash'), twoDaysAgo, twoDaysAgo);
    expect(await store.sweep(24 * 3600 * 1000)).toBe(1);
    expect(fs.readdirSync(tmp)).toEqual(['in-flight']);
  });

  test('many puts at once each land whole under their own key', async () => {
    const bodies = Array.from({ length: 20 }, () => ({ key: newKey(), body: randomBytes(50_000) }));
    await Promise.all(bodies.map(({ key, body }) => store.put(key, Readable.from([body.subarray(0, 20_000), body.subarray(20_000)]), 50_000)));
    for (const { key, body } of bodies) expect((await bytesOf(await store.get(key))).equals(body)).toBe(true);
    expect(fs.readdirSync(path.join(dir, '.tmp'))).toEqual([]);
  });

  test('createFileStore picks the disk store on FILES_DIR by default', async () => {
    const files = createFileStore(loadConfig({ FILES_DIR: dir }));
    expect(files).toBeInstanceOf(DiskFileStore);
    const key = newKey();
    await files.put(key, Buffer.from('via config'), 100);
    expect(fs.readFileSync(path.join(dir, ...key.split('/')), 'utf8')).toBe('via config');
  });
});

describe('the disk store when the file system refuses: no room is a 507, a file system away the 503, the error kept as the cause', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-disk-refusals-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The error Node itself makes of a real failing call. */
  function errorOf(call: () => unknown): NodeJS.ErrnoException {
    try {
      call();
    } catch (e) {
      return e as NodeJS.ErrnoException;
    }
    throw new Error('expected the call to fail');
  }
  const plainFile = () => {
    const file = path.join(dir, 'plain');
    fs.writeFileSync(file, 'x', { mode: 0o600 });
    return file;
  };
  // Each fails alike for root and for any other user.
  const real: Record<string, () => NodeJS.ErrnoException> = {
    ENOSPC: () => errorOf(() => fs.writeFileSync('/dev/full', 'x')),
    EIO: () =>
      errorOf(() => {
        // Address 0 of this process's memory is never mapped.
        const fd = fs.openSync('/proc/self/mem', 'r');
        try {
          fs.readSync(fd, Buffer.alloc(1), 0, 1, 0);
        } finally {
          fs.closeSync(fd);
        }
      }),
    // Even root needs an execute bit.
    EACCES: () => errorOf(() => fs.accessSync(plainFile(), fs.constants.X_OK)),
    // No one may hard-link a directory.
    EPERM: () => errorOf(() => fs.linkSync(dir, path.join(dir, 'link'))),
  };
  // No call fails so without a mount, a quota or the whole system's table of open files: Node's
  // error of a real failing call (ENOTDIR), given their code. EFBIG and EMFILE come for real below.
  const relabelled = (code: string) => () => Object.assign(errorOf(() => fs.openSync(path.join(plainFile(), 'x'), 'r')), { code });

  test.each([
    ['ENOSPC', 'INSUFFICIENT_STORAGE', real.ENOSPC],
    ['EDQUOT', 'INSUFFICIENT_STORAGE', relabelled('EDQUOT')],
    ['EIO', 'UNAVAILABLE', real.EIO],
    ['EACCES', 'UNAVAILABLE', real.EACCES],
    ['EPERM', 'UNAVAILABLE', real.EPERM],
    ['EROFS', 'UNAVAILABLE', relabelled('EROFS')],
    ['ENFILE', 'UNAVAILABLE', relabelled('ENFILE')],
  ])('%s is the store\'s %s; its message names no path and not the error', (code, expected, make) => {
    const e = make();
    expect(e.code).toBe(code);
    const refusal = asStoreError(e);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: expected, status: expected === 'UNAVAILABLE' ? 503 : 507 });
    expect((refusal as Error).cause).toBe(e);
    const { message, developerMessage } = refusal as AppError;
    for (const text of [message, developerMessage]) expect([text.includes(code), text.includes(e.message), text.includes(dir)]).toEqual([false, false, false]);
  });

  test('any other error goes on as it is (a 500): a path under a file (ENOTDIR), an error of no file system', () => {
    const notDir = errorOf(() => fs.openSync(path.join(plainFile(), 'x'), 'r'));
    expect(notDir.code).toBe('ENOTDIR');
    expect(asStoreError(notDir)).toBe(notDir);
    const plain = new Error('not the file system');
    expect(asStoreError(plain)).toBe(plain);
  });

  /**
   * `script`, the body of an ES module with `store` (the built disk store on `dir`) and `outcome`
   * in scope, run by a child process under `ulimit`; what it prints, as JSON. The child must end
   * well: Node ignores SIGXFSZ, so a write past `ulimit -f` fails with EFBIG and does not kill it.
   */
  async function inChild(ulimit: string, script: string): Promise<Record<string, unknown>> {
    const code = `
      const { DiskFileStore } = await import(${JSON.stringify(path.join(ROOT, 'dist/src/storage/disk-store.js'))});
      const store = new DiskFileStore(process.argv[1]);
      const outcome = (p) => p.then((v) => v ?? 'done', (e) => ({ code: e.code, status: e.status, cause: { code: e.cause?.code, syscall: e.cause?.syscall } }));
      ${script}`;
    const [command, args] = underLimit(ulimit, process.execPath, ['--input-type=module', '-e', code, dir]);
    return new Promise((resolve, reject) =>
      execFile(command, args, { env: { ...process.env, NODE_OPTIONS: '' } }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)))),
    );
  }
  const noRoom = (syscall: string) => ({ code: 'INSUFFICIENT_STORAGE', status: 507, cause: { code: 'EFBIG', syscall } });
  const away = (syscall: string) => ({ code: 'UNAVAILABLE', status: 503, cause: { code: 'EMFILE', syscall } });

  test('a put or a copy past the largest file the process may write (EFBIG, under ulimit -f) is a 507; nothing half-written stays; a smaller file is stored', async () => {
    const [small, big, original, copied] = [newKey(), newKey(), newKey(), newKey()];
    // Stored here, with no limit: larger than the child may write.
    await new DiskFileStore(dir).put(original, randomBytes(200 * 1024), MB);
    const got = await inChild(
      '-f 64',
      `console.log(JSON.stringify({
        small: await outcome(store.put('${small}', Buffer.alloc(32 * 1024, 1), 1e9)),
        big: await outcome(store.put('${big}', (await import('node:stream')).Readable.from(Array.from({ length: 20 }, () => Buffer.alloc(10 * 1024, 1))), 1e9)),
        copy: await outcome(store.copy('${original}', '${copied}')),
      }));`,
    );
    expect(got).toEqual({ small: { size: 32 * 1024, sha256: sha256(Buffer.alloc(32 * 1024, 1)) }, big: noRoom('write'), copy: noRoom('copyfile') });
    expect(fs.readdirSync(path.join(dir, '.tmp'))).toEqual([]);
    expect(fs.readdirSync(path.join(dir, tenant)).sort()).toEqual([small, original].map((k) => k.split('/')[1]).sort());
  });

  test('out of file descriptors (EMFILE, under ulimit -n): a put, a get, a copy and a sweep are the 503; nothing is left', async () => {
    const [kept, put, copied] = [newKey(), newKey(), newKey()];
    await new DiskFileStore(dir).put(kept, Buffer.from('kept'), 100);
    const got = await inChild(
      '-n 64',
      `const fs = await import('node:fs');
      const held = [];
      try {
        for (;;) held.push(fs.openSync('/dev/null', 'r'));
      } catch (e) {
        if (e.code !== 'EMFILE') throw e;
      }
      const got = {
        put: await outcome(store.put('${put}', Buffer.from('lost?'), 100)),
        get: await outcome(store.get('${kept}')),
        copy: await outcome(store.copy('${kept}', '${copied}')),
        sweep: await outcome(store.sweep(0)),
      };
      for (const fd of held) fs.closeSync(fd);
      console.log(JSON.stringify(got));`,
    );
    expect(got).toEqual({ put: away('open'), get: away('open'), copy: away('copyfile'), sweep: away('scandir') });
    expect(fs.readdirSync(path.join(dir, '.tmp'))).toEqual([]);
    expect(fs.readdirSync(path.join(dir, tenant))).toEqual([kept.split('/')[1]]);
  });
});

describe('the S3 store on its bucket', () => {
  test('createFileStore picks the S3 store for FILE_STORE=s3, with the endpoint, bucket and keys configured', async () => {
    const files = createFileStore(
      loadConfig({ FILE_STORE: 's3', S3_BUCKET: s3.bucket, S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY_ID: s3.accessKeyId, S3_SECRET_ACCESS_KEY: s3.secretAccessKey }),
    );
    expect(files).not.toBeInstanceOf(DiskFileStore);
    const key = newKey();
    const body = randomBytes(2048);
    expect(await files.put(key, body, 2048)).toEqual({ size: 2048, sha256: sha256(body) });
    expect((await bytesOf(await files.get(key))).equals(body)).toBe(true);
    // The object is where an operator would look for it: <bucket>/<tenant>/<file>.
    expect(fs.readdirSync(path.join(s3.directory, s3.bucket, tenant)).some((f) => f.startsWith(key.split('/')[1]))).toBe(true);
    await files.copy(key, `${tenant}/copied`);
    await files.delete([key]);
    await expectNotFound(files, key);
    expect((await bytesOf(await files.get(`${tenant}/copied`))).equals(body)).toBe(true);
  });

  test('the configured keys are sent: an unknown access key id is refused by the server, and the put stores nothing', async () => {
    // (s3rver checks the access key id, not SigV4 signatures: a wrong secret would pass there.)
    const wrong = new S3FileStore({ ...s3Settings(), accessKeyId: 'NOT-S3RVER', secretAccessKey: 'not-the-secret' });
    const right = new S3FileStore(s3Settings());
    try {
      const key = newKey();
      const e = await failure(() => wrong.put(key, randomBytes(100), 1000));
      expect(e).toMatchObject({ name: 'FileStoreFault', cause: { name: 'InvalidAccessKeyId' } });
      expect(String((e as Error).message)).not.toContain('not-the-secret');
      await expectNotFound(right, key);
    } finally {
      wrong.destroy();
      right.destroy();
    }
  });

  describe('a server that is away: every call is the store\'s 503 UNAVAILABLE, its own error kept as the cause', () => {
    /** A peer on a port of its own that meets every connection as `meet` says. */
    async function peer(meet: (socket: net.Socket) => void): Promise<{ endpoint: string; close(): Promise<void> }> {
      const sockets = new Set<net.Socket>();
      const server = net.createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
        meet(socket);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as net.AddressInfo;
      return {
        endpoint: `http://127.0.0.1:${port}`,
        close: () => {
          for (const socket of sockets) socket.destroy();
          return new Promise((resolve) => server.close(() => resolve()));
        },
      };
    }
    const calls = (store: S3FileStore): [string, () => Promise<unknown>][] => [
      ['put', () => store.put(newKey(), randomBytes(100), 1000)],
      ['get', () => store.get(newKey())],
      ['has', () => store.has(newKey())],
      ['copy', () => store.copy(newKey(), newKey())],
      ['delete', () => store.delete([newKey()])],
    ];
    /** Every call (the slow ones, a get and a put: each is tried three times) fails as the store being away. */
    async function expectAway(endpoint: string, cause: Record<string, unknown>, slow = false) {
      const store = new S3FileStore({ ...s3Settings(), endpoint }, { connectMs: 500, answerMs: 1_000 });
      try {
        for (const [name, call] of calls(store).filter(([n]) => !slow || n === 'get' || n === 'put')) {
          const e = await failure(call);
          expect([name, e]).toEqual([name, expect.objectContaining({ code: 'UNAVAILABLE', status: 503, message: 'The file store is not available right now. Try again in 5 seconds.' })]);
          expect([name, (e as Error).cause]).toEqual([name, expect.objectContaining(cause)]);
        }
      } finally {
        store.destroy();
      }
    }

    test('nothing listening: refused (it was the client\'s 400 "malformed body" on an upload, a 503 naming the database elsewhere)', async () => {
      const gone = await peer(() => undefined);
      await gone.close();
      await expectAway(gone.endpoint, { $metadata: expect.objectContaining({ attempts: 3 }) });
    });

    test('connections dropped as they come', async () => {
      const dropping = await peer((socket) => socket.destroy());
      try {
        await expectAway(dropping.endpoint, { $metadata: expect.objectContaining({ attempts: 3 }) });
      } finally {
        await dropping.close();
      }
    });

    test('a 503 SlowDown from the server (it was a 500)', async () => {
      const slowDown = await peer((socket) =>
        socket.once('data', () => {
          const xml = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>';
          socket.end(`HTTP/1.1 503 Slow Down\r\ncontent-type: application/xml\r\ncontent-length: ${xml.length}\r\nconnection: close\r\n\r\n${xml}`);
        }),
      );
      try {
        await expectAway(slowDown.endpoint, { $metadata: expect.objectContaining({ httpStatusCode: 503 }) }, true);
      } finally {
        await slowDown.close();
      }
    });

    test('connections taken and never answered: the answer\'s time runs out (it waited for ever)', async () => {
      const silent = await peer(() => undefined);
      try {
        await expectAway(silent.endpoint, { name: 'TimeoutError' }, true);
      } finally {
        await silent.close();
      }
    }, 60_000);
  });

  test('a bucket that does not exist is a server error, not a NOT_FOUND of the file; `has` says so too, though HeadObject\'s 404 cannot', async () => {
    const lost = new S3FileStore({ ...s3Settings(), bucket: 'no-such-bucket' });
    try {
      for (const ask of [() => lost.get(newKey()), () => lost.has(newKey())]) {
        const e = await failure(ask);
        expect(e).not.toBeInstanceOf(AppError);
        expect(e).toMatchObject({ name: 'NoSuchBucket' });
      }
    } finally {
      lost.destroy();
    }
  });
});
