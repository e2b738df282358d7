/**
 * BODY_MEMORY_BYTES, over real HTTP: request bodies held open by slow clients fill the server's
 * budget, and another body is then a 503 with Retry-After on every face that reads one whole
 * (REST JSON and multipart, e-mail attachments, /graphql); what they took comes back when they end,
 * finished or aborted. A file streamed into the store (`POST files`) takes nothing of it. The token
 * endpoint's bodies take from a share of their own, an eighth of the budget, beside it, as they
 * arrive, and have TOKEN_READ_SECONDS to do so.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Harness, type TestTenant } from '../harness.js';
import { Api, expectError, multipart, uniq } from './support.js';
import type { BodyShare } from '../../src/body-budget.js';
import { TOKEN_READ_SECONDS } from '../../src/rest/token.js';

const KIB = 1024;
const MAX_BODY = 64 * KIB;
const BUDGET = 128 * KIB;

let h: Harness;
let t: TestTenant;
let A: Api;
let token: string;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  ({ h, t, token } = await Harness.withTenant({ maxBodyBytes: MAX_BODY, bodyMemoryBytes: BUDGET }));
  A = new Api(h, t, token);
  server = http.createServer(h.app.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await h.stop();
});

/** Requests held open by `hold`: cut when their test ends, whatever it did, so the next test starts with the budget free. */
const open = new Set<http.ClientRequest>();
afterEach(() => {
  for (const req of open) req.destroy();
  open.clear();
});

/** Waits (no deadline but jest's) until the server's budget (or another share) in use is `bytes`. */
async function inUseReaches(bytes: number, share: BodyShare = h.services.bodies): Promise<void> {
  while (share.inUse !== bytes) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A JSON body of exactly `size` bytes: `value`, then spaces (which parsing trims). */
const jsonOf = (value: unknown, size: number) => {
  const text = JSON.stringify(value);
  return Buffer.from(text + ' '.repeat(size - text.length));
};

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

interface Held {
  /** Sends the rest of the body; the answer's status and envelope. */
  finish(): Promise<Answer>;
  /** The answer the server gives without the rest of the body. */
  answer: Promise<Answer>;
  /** The client goes away before its body is whole. */
  abort(): void;
}

/**
 * A request that sends the first `sent` bytes of `body` to `at` (this file's server) and waits:
 * with its Content-Length, or chunked when `declared` is false.
 */
function hold(path: string, body: Buffer, contentType: string, { sent = KIB, declared = true, at = origin } = {}): Held {
  const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, 'content-type': contentType };
  if (declared) headers['content-length'] = body.length;
  const req = http.request(`${at}${path}`, { method: 'POST', headers });
  open.add(req);
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
  });
  // Awaited only by finish(): a test failing before it must not see the request's end as unhandled.
  answer.catch(() => undefined);
  req.write(body.subarray(0, sent));
  return {
    finish: () => {
      req.end(body.subarray(sent));
      return answer;
    },
    answer,
    abort: () => req.destroy(),
  };
}

/** A request sent whole over HTTP (fetch declares its length). */
async function send(path: string, body: BodyInit, contentType?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (contentType) headers['content-type'] = contentType;
  const r = await fetch(`${origin}${path}`, { method: 'POST', headers, body });
  return { status: r.status, headers: r.headers, text: await r.text() };
}

const folderBody = (name: string, size = MAX_BODY) => jsonOf({ name }, size);
const graphqlMultipart = () => {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: '{ me { id } }' }));
  form.append('map', '{}');
  return form;
};

/** A document to upload files to. */
async function newDocument(): Promise<string> {
  const folder = (await A.post('/folders', { name: uniq('Files') })).body.data;
  return (await A.post('/documents', { folderId: folder.id, name: uniq('Doc'), description: 'd', documentState: 1 })).body.data.documentId;
}

test('with the budget held by two slow bodies, a third body on any face is a 503 with Retry-After, and nothing is stored', async () => {
  const documentId = await newDocument();
  const revisions = async () => (await A.get(`/documents/${documentId}/revisions`)).body.data;
  const unchanged = await revisions();
  expect(unchanged).toEqual(expect.any(Array));
  const kept = uniq('Held');
  const first = hold(`${t.root}/folders`, folderBody(kept), 'application/json');
  const second = hold(`${t.root}/folders`, folderBody(uniq('Held')), 'application/json');
  await inUseReaches(BUDGET);

  const refused = uniq('Refused');
  const rest = await send(`${t.root}/folders`, JSON.stringify({ name: refused }), 'application/json');
  expect(rest.status).toBe(503);
  expect(rest.headers.get('retry-after')).toBe('5');
  const body = JSON.parse(rest.text);
  expectError({ ...rest, bytes: new Uint8Array(), body }, 503, 'The server is receiving too many request bodies at once to take this one. Try again in 5 seconds.');
  expect(body.meta.errors[0].code).toBe('UNAVAILABLE');
  expect(body.meta.errors[0].developerMessage).toMatch(/BODY_MEMORY_BYTES/);

  // A multipart body, and a multipart e-mail whose attachments are read whole.
  const parts = await multipart({ name: uniq('Refused') }, null);
  expect((await send(`${t.root}/folders`, parts.raw, parts.headers['content-type'])).status).toBe(503);
  const mail = await multipart({ recipients: 'ada@example.com', subject: 'budget', body: 'x' }, 'attached', 'a.txt');
  const emailed = await send(`${t.root}/emails`, mail.raw, mail.headers['content-type']);
  expect({ status: emailed.status, retryAfter: emailed.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '5' });

  // An upload, whose text parts are held (its file would stream into the store).
  const upload = await multipart({ documentId }, 'content', 'refused.txt');
  expect((await send(`${t.root}/files`, upload.raw, upload.headers['content-type'])).status).toBe(503);
  expect(await revisions()).toEqual(unchanged);

  // /graphql: a JSON body, and a multipart one, which Yoga's own parser reads.
  for (const graphql of [await send('/graphql', JSON.stringify({ query: '{ me { id } }' }), 'application/json'), await send('/graphql', graphqlMultipart())]) {
    expect({ status: graphql.status, retryAfter: graphql.headers.get('retry-after') }).toEqual({ status: 503, retryAfter: '5' });
    expect(JSON.parse(graphql.text).errors[0]).toMatchObject({ message: expect.stringMatching(/too many request bodies/), extensions: { code: 'UNAVAILABLE' } });
  }
  // A body without a Content-Length, refused at its first chunk.
  expectError(await A.post('/folders', { name: uniq('Refused') }), 503, /too many request bodies/);

  expect((await first.finish()).status).toBe(200);
  second.abort();
  await inUseReaches(0);
  const names = (await A.get('/folders?folderpath=/&limit=2000')).body.data.map((f: { name: string }) => f.name);
  expect(names).toContain(kept);
  expect(names).not.toContain(refused);
  expect((await send(`${t.root}/folders`, JSON.stringify({ name: uniq('After') }), 'application/json')).status).toBe(200);
  expect(h.services.bodies.inUse).toBe(0);
});

test('a body without a Content-Length takes its chunks as they arrive; aborted requests give everything back', async () => {
  const declared = hold(`${t.root}/folders`, folderBody(uniq('Held')), 'application/json');
  const chunked = hold(`${t.root}/folders`, folderBody(uniq('Held'), 60 * KIB), 'application/json', { sent: 40 * KIB, declared: false });
  await inUseReaches(MAX_BODY + 40 * KIB);
  // 24 KiB are left: a body declaring more is refused, a smaller one is taken.
  expect((await send(`${t.root}/folders`, folderBody(uniq('Big'), 25 * KIB), 'application/json')).status).toBe(503);
  expect((await send(`${t.root}/folders`, folderBody(uniq('Small'), 20 * KIB), 'application/json')).status).toBe(200);
  declared.abort();
  chunked.abort();
  await inUseReaches(0);
  expect((await send(`${t.root}/folders`, folderBody(uniq('After')), 'application/json')).status).toBe(200);
  expect(h.services.bodies.inUse).toBe(0);
});

test('/graphql bodies take from the budget, a multipart one by its Content-Length', async () => {
  const json = hold('/graphql', jsonOf({ query: '{ me { id } }' }, MAX_BODY), 'application/json');
  const form = new Request('http://x/', { method: 'POST', body: graphqlMultipart() });
  const bytes = Buffer.from(await form.arrayBuffer());
  const multi = hold('/graphql', bytes, form.headers.get('content-type')!, { sent: 10 });
  await inUseReaches(MAX_BODY + bytes.length);
  expect((await json.finish()).body).toMatchObject({ data: { me: { id: expect.any(String) } } });
  expect((await multi.finish()).body).toMatchObject({ data: { me: { id: expect.any(String) } } });
  await inUseReaches(0);
});

test('a file streamed into the store takes nothing but its text parts, and the metric shows what is held', async () => {
  const documentId = await newDocument();
  const held = hold(`${t.root}/folders`, folderBody(uniq('Held')), 'application/json');
  await inUseReaches(MAX_BODY);
  const metric = await h.request('GET', '/metrics');
  expect(metric.text).toContain(`request_body_memory_bytes ${MAX_BODY}`);
  // A file larger than the whole budget.
  const upload = await multipart({ documentId }, new Uint8Array(3 * BUDGET).fill(7), 'big.bin');
  const r = await send(`${t.root}/files`, upload.raw, upload.headers['content-type']);
  expect({ status: r.status, text: r.text.slice(0, 300) }).toEqual({ status: 200, text: expect.any(String) });
  expect(JSON.parse(r.text).data.fileSize).toBe(3 * BUDGET);
  held.abort();
  await inUseReaches(0);
});

/** A token request's form body of exactly `size` bytes (padded with a parameter no grant reads), wrong credentials. */
const tokenBody = (size: number) => {
  const head = 'grant_type=password&client_id=nobody&client_secret=x&username=nobody&password=x&scope=';
  return Buffer.from(head + 'p'.repeat(size - head.length));
};
const FORM = 'application/x-www-form-urlencoded';

test('token bodies take from their own share: one at its 64 KiB limit is taken though an eighth of this budget is less', async () => {
  expect(BUDGET / 8).toBeLessThan(64 * KIB);
  const held = hold('/oauth/token', tokenBody(64 * KIB), FORM, { sent: 64 * KIB - 1 });
  await inUseReaches(64 * KIB - 1, h.services.bodies.anonymous);
  // Not the signed-in callers' budget.
  expect(h.services.bodies.inUse).toBe(0);
  expect((await held.finish()).status).toBe(401);
  expect(h.services.bodies.anonymous.inUse).toBe(0);
});

test('token bodies take what has arrived, not what they declare: held ones declaring the whole share stop no login', async () => {
  const anonymous = h.services.bodies.anonymous;
  expect(anonymous.bytes).toBe(64 * KIB);
  const held = [1, 2, 3].map(() => hold('/oauth/token', tokenBody(64 * KIB), FORM));
  // Each has taken its first KiB (declared lengths would have been refused past the first).
  await inUseReaches(3 * KIB, anonymous);
  const login = new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username: t.adminUserId, password: t.password });
  expect((await fetch(`${origin}/oauth/token`, { method: 'POST', body: login })).status).toBe(200);
  for (const r of held) r.abort();
  await inUseReaches(0, anonymous);
});

test(`a token body stalled for ${TOKEN_READ_SECONDS} seconds is a 408 in the OAuth shape, its connection closed and its share given back`, async () => {
  const held = hold('/oauth/token', tokenBody(64 * KIB), FORM);
  await inUseReaches(KIB, h.services.bodies.anonymous);
  const r = await held.answer;
  expect(r).toMatchObject({
    status: 408,
    headers: { connection: 'close' },
    body: {
      error: 'invalid_request',
      error_description: `The request body did not arrive within ${TOKEN_READ_SECONDS} seconds: send the token request's parameters at once.`,
      meta: { status: 408 },
    },
  });
  expect(h.services.bodies.anonymous.inUse).toBe(0);
}, (TOKEN_READ_SECONDS + 20) * 1000);

describe('the token endpoint\'s share, an eighth of BODY_MEMORY_BYTES (1 MiB here: two token bodies at their 64 KiB limit)', () => {
  let h8: Harness;
  let t8: TestTenant;
  let server8: http.Server;
  let origin8: string;
  beforeAll(async () => {
    ({ h: h8, t: t8 } = await Harness.withTenant({ maxBodyBytes: MAX_BODY, bodyMemoryBytes: 1024 * KIB }));
    server8 = http.createServer(h8.app.handle);
    await new Promise<void>((resolve) => server8.listen(0, '127.0.0.1', resolve));
    origin8 = `http://127.0.0.1:${(server8.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server8.closeAllConnections();
    await new Promise((resolve) => server8.close(resolve));
    await h8.stop();
  });

  const anonymousReaches = (bytes: number) => inUseReaches(bytes, h8.services.bodies.anonymous);

  test('held token bodies fill it: the next token request is a 503 in the OAuth shape with Retry-After, signed-in bodies are still taken, and it comes back', async () => {
    // All but their last byte sent: the share takes what has arrived.
    const first = hold('/oauth/token', tokenBody(64 * KIB), FORM, { at: origin8, sent: 64 * KIB - 1 });
    const second = hold('/oauth/token', tokenBody(64 * KIB), FORM, { at: origin8, sent: 64 * KIB - 1 });
    await anonymousReaches(128 * KIB - 2);
    expect(h8.services.bodies.inUse).toBe(0);

    // Refused, at both of its addresses, whatever the body; a login sent whole.
    const login = new URLSearchParams({ grant_type: 'password', client_id: t8.clientId, client_secret: t8.clientSecret, username: t8.adminUserId, password: t8.password }).toString();
    for (const path of ['/oauth/token', `${t8.root}/oauth/token`]) {
      const r = await fetch(`${origin8}${path}`, { method: 'POST', headers: { 'content-type': FORM }, body: login });
      expect({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() }).toEqual({
        status: 503,
        retryAfter: '5',
        body: {
          error: 'temporarily_unavailable',
          error_description: 'The server is receiving too many token requests at once to take this one. Try again in 5 seconds.',
          meta: expect.objectContaining({ status: 503, errors: [expect.objectContaining({ code: 'UNAVAILABLE', developerMessage: expect.stringMatching(/an eighth of BODY_MEMORY_BYTES/) })] }),
        },
      });
    }
    // A signed-in caller's body of the same size is taken: the budget is not the token endpoint's.
    const token8 = await (async () => {
      first.abort();
      await anonymousReaches(64 * KIB - 1);
      const r = await fetch(`${origin8}/oauth/token`, { method: 'POST', headers: { 'content-type': FORM }, body: login });
      expect(r.status).toBe(200);
      return ((await r.json()) as { access_token: string }).access_token;
    })();
    const third = hold('/oauth/token', tokenBody(64 * KIB), FORM, { at: origin8, sent: 64 * KIB - 1 });
    await anonymousReaches(128 * KIB - 2);
    const folder = await fetch(`${origin8}${t8.root}/folders`, { method: 'POST', headers: { authorization: `Bearer ${token8}`, 'content-type': 'application/json' }, body: folderBody(uniq('Signed-in')) });
    expect(folder.status).toBe(200);

    // Finished or aborted, the share comes back.
    expect((await second.finish()).status).toBe(401);
    third.abort();
    await anonymousReaches(0);
    expect(h8.services.bodies.inUse).toBe(0);
  });
});
