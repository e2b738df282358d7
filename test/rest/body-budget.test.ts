/**
 * BODY_MEMORY_BYTES, over real HTTP: request bodies held open by slow clients fill the server's
 * budget, and another body is then a 503 with Retry-After on every face that reads one whole
 * (REST JSON and multipart, e-mail attachments, /graphql); what they took comes back when they end,
 * finished or aborted. A file streamed into the store (`POST files`) takes nothing of it (its text
 * parts do), and its body keeps the pace too. The token
 * endpoint's bodies take from a share of their own, an eighth of the budget, beside it, as they
 * arrive, and have TOKEN_READ_SECONDS to do so. One tenant's bodies hold at most its part
 * (BODY_MEMORY_TENANT_BYTES), and a body read whole that falls behind the least pace
 * (BODY_GRACE_SECONDS, BODY_MIN_BYTES_PER_SECOND) is a 408 that gives its part back.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Harness, type TestTenant } from '../harness.js';
import { Api, expectError, multipart, uniq } from './support.js';
import { TOKEN_READ_SECONDS, type BodyShare } from '../../src/body-budget.js';
import type { Config } from '../../src/config.js';

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
  // Held bodies stay held here (the pace has its own server, below).
  ({ h, t, token } = await Harness.withTenant({ maxBodyBytes: MAX_BODY, bodyMemoryBytes: BUDGET, bodyGraceSeconds: 3600 }));
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
  /** Sends `n` more bytes of the body. */
  more(n: number): void;
  /** The answer the server gives without the rest of the body. */
  answer: Promise<Answer>;
  /** The client goes away before its body is whole. */
  abort(): void;
}

/**
 * A request that sends the first `sent` bytes of `body` to `at` (this file's server) with `bearer`
 * (this file's tenant's token) and waits: with its Content-Length, or chunked when `declared` is false.
 */
function hold(path: string, body: Buffer, contentType: string, { sent = KIB, declared = true, at = origin, bearer = token } = {}): Held {
  const headers: Record<string, string | number> = { authorization: `Bearer ${bearer}`, 'content-type': contentType };
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
  let written = sent;
  return {
    finish: () => {
      req.end(body.subarray(written));
      return answer;
    },
    more: (n) => {
      req.write(body.subarray(written, written + n));
      written += n;
    },
    answer,
    abort: () => req.destroy(),
  };
}

/** A request sent whole over HTTP (fetch declares its length), to `at` (this file's server) with `bearer` (this file's tenant's token). */
async function send(path: string, body: BodyInit, contentType?: string, { at = origin, bearer = token } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
  if (contentType) headers['content-type'] = contentType;
  const r = await fetch(`${at}${path}`, { method: 'POST', headers, body });
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
  // Refused by its headers alone, a multipart body gets that refusal, not the 503: on REST and /graphql (an upload) alike.
  const refusedByHeaders = [
    [`${parts.headers['content-type']}; charset=iso-8859-1`, 415, /declared as charset=iso-8859-1/],
    ['multipart/form-data; boundary=', 400, /boundary its Content-Type names is empty/],
    ['multipart/form-data', 400, /malformed: Multipart: Boundary not found/],
  ] as const;
  for (const [contentType, status, message] of refusedByHeaders) {
    const rest = await send(`${t.root}/folders`, parts.raw, contentType);
    const graphql = await send('/graphql', parts.raw, contentType);
    expect([rest, graphql].map((r) => ({ status: r.status, error: JSON.parse(r.text).meta?.errors[0] ?? JSON.parse(r.text).errors[0] }))).toEqual([
      { status, error: expect.objectContaining({ message: expect.stringMatching(message) }) },
      { status, error: expect.objectContaining({ message: expect.stringMatching(message) }) },
    ]);
  }

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
  expect(await metricOf(h, 'request_body_refusals_total{reason="token_too_slow"}')).toBe(1);
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

/** A harness with one tenant and its administrator's token, served over HTTP on a port of its own. */
async function served(overrides: Partial<Config>) {
  const { h: sh, t: st, token: stoken } = await Harness.withTenant(overrides);
  const sserver = http.createServer(sh.app.handle);
  await new Promise<void>((resolve) => sserver.listen(0, '127.0.0.1', resolve));
  const stop = async () => {
    sserver.closeAllConnections();
    await new Promise((resolve) => sserver.close(resolve));
    await sh.stop();
  };
  return { h: sh, t: st, token: stoken, origin: `http://127.0.0.1:${(sserver.address() as AddressInfo).port}`, stop };
}

/** The value of the metric line `series` (name and labels), or undefined when it is not shown. */
async function metricOf(mh: Harness, series: string): Promise<number | undefined> {
  const line = (await mh.request('GET', '/metrics')).text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('a part of the budget per tenant (BODY_MEMORY_TENANT_BYTES: two bodies of the four the budget holds)', () => {
  let s: Awaited<ReturnType<typeof served>>;
  let other: TestTenant;
  let otherToken: string;
  beforeAll(async () => {
    // Held bodies stay held here: the pace has its own server below.
    s = await served({ maxBodyBytes: MAX_BODY, bodyMemoryBytes: 4 * MAX_BODY, bodyMemoryTenantBytes: 2 * MAX_BODY, bodyGraceSeconds: 3600 });
    other = await s.h.tenant();
    otherToken = await s.h.login(other);
  });
  afterAll(() => s.stop());

  test("one tenant holding its part gets the 503 for more bodies, however it spells its path; bad tokens take nothing; another tenant's bodies are taken", async () => {
    const bodies = s.h.services.bodies;
    const mine = { at: s.origin, bearer: s.token };
    const held = [1, 2].map(() => hold(`${s.t.root}/folders`, folderBody(uniq('Held')), 'application/json', mine));
    await inUseReaches(2 * MAX_BODY, bodies);

    // Two more, which would fill the whole budget: refused before they are read, on either face.
    const more = [
      hold(`${s.t.root}/folders`, folderBody(uniq('More')), 'application/json', mine),
      hold('/graphql', jsonOf({ query: '{ me { id } }' }, MAX_BODY), 'application/json', mine),
    ];
    let answered = false;
    const answers = Promise.all(more.map((r) => r.answer)).finally(() => (answered = true));
    // Until they are answered, or (were they taken) the budget is full.
    while (!answered && bodies.inUse < 4 * MAX_BODY) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(bodies.inUse).toBe(2 * MAX_BODY);
    expect(bodies.heldBy(s.t.tenantId)).toBe(2 * MAX_BODY);
    const [rest, graphql] = await answers;
    expect(rest).toMatchObject({
      status: 503,
      headers: { 'retry-after': '5' },
      body: {
        meta: {
          errors: [
            {
              code: 'UNAVAILABLE',
              message: 'The server is receiving too many request bodies for this customer database at once to take this one. Try again in 5 seconds.',
              developerMessage: expect.stringMatching(/BODY_MEMORY_TENANT_BYTES/),
            },
          ],
        },
      },
    });
    expect(graphql).toMatchObject({ status: 503, body: { errors: [{ message: expect.stringMatching(/for this customer database/), extensions: { code: 'UNAVAILABLE' } }] } });
    // The path's aliases in another case name the same tenant, and the same part.
    const shouted = `/api/v1/${s.t.customerAlias.toUpperCase()}/${s.t.databaseAlias.toUpperCase()}`;
    expect((await send(`${shouted}/folders`, JSON.stringify({ name: uniq('Shouted') }), 'application/json', mine)).status).toBe(503);
    // A body with a bad token is refused before a byte of it is read, and takes nothing.
    const forged = hold(`${s.t.root}/folders`, folderBody(uniq('Forged')), 'application/json', { at: s.origin, bearer: 'not-a-token' });
    expect((await forged.answer).status).toBe(401);
    expect(bodies.inUse).toBe(2 * MAX_BODY);

    // Another tenant's bodies, of the same size, are taken on both faces.
    const theirs = { at: s.origin, bearer: otherToken };
    expect((await send(`${other.root}/folders`, folderBody(uniq('Other')), 'application/json', theirs)).status).toBe(200);
    const query = await send('/graphql', jsonOf({ query: '{ me { id } }' }, MAX_BODY), 'application/json', theirs);
    expect(JSON.parse(query.text)).toMatchObject({ data: { me: { id: expect.any(String) } } });
    expect(await metricOf(s.h, 'request_body_refusals_total{reason="tenant_share_full"}')).toBe(3);
    expect(await metricOf(s.h, 'request_body_refusals_total{reason="budget_full"}')).toBeUndefined();

    // Finished or aborted, the tenant's part comes back.
    expect((await held[0].finish()).status).toBe(200);
    held[1].abort();
    await inUseReaches(0, bodies);
    expect(bodies.heldBy(s.t.tenantId)).toBe(0);
    expect((await send(`${s.t.root}/folders`, folderBody(uniq('After')), 'application/json', mine)).status).toBe(200);
  });
});

describe('the least pace of a body (BODY_GRACE_SECONDS 1, BODY_MIN_BYTES_PER_SECOND 1 KiB)', () => {
  let s: Awaited<ReturnType<typeof served>>;
  beforeAll(async () => {
    s = await served({ maxBodyBytes: MAX_BODY, bodyMemoryBytes: 4 * MAX_BODY, bodyGraceSeconds: 1, bodyMinBytesPerSecond: KIB });
  });
  afterAll(() => s.stop());

  test('bodies stalled or trickling behind it are a 408 on every face, their connection closed and the budget given back; a body sent whole is taken', async () => {
    const bodies = s.h.services.bodies;
    const mine = { at: s.origin, bearer: s.token };
    // A byte every 100 ms, far behind 1 KiB a second, until the answer comes.
    const trickled = hold(`${s.t.root}/folders`, folderBody(uniq('Trickled')), 'application/json', mine);
    const trickle = setInterval(() => trickled.more(1), 100);
    const parts = await multipart({ name: uniq('Stalled') }, null);
    const stalled = [
      trickled,
      hold(`${s.t.root}/folders`, folderBody(uniq('Chunked'), 60 * KIB), 'application/json', { ...mine, declared: false }),
      hold(`${s.t.root}/folders`, Buffer.from(parts.raw), parts.headers['content-type'], { ...mine, sent: 10 }),
      hold('/graphql', jsonOf({ query: '{ me { id } }' }, MAX_BODY), 'application/json', mine),
    ];
    const [rest, chunked, multi, graphql] = await Promise.all(stalled.map((r) => r.answer)).finally(() => clearInterval(trickle));

    for (const r of [rest, chunked, multi]) {
      expect(r).toMatchObject({
        status: 408,
        headers: { connection: 'close' },
        body: {
          meta: {
            status: 408,
            errors: [
              {
                code: 'REQUEST_TIMEOUT',
                message: 'The request body arrived too slowly; nothing of this request was done. Send the body whole, without pausing.',
                developerMessage: expect.stringMatching(/BODY_GRACE_SECONDS \(1\).*BODY_MIN_BYTES_PER_SECOND \(1024\)/),
              },
            ],
          },
        },
      });
    }
    expect(graphql).toMatchObject({ status: 408, headers: { connection: 'close' }, body: { errors: [{ message: expect.stringMatching(/arrived too slowly/), extensions: { code: 'REQUEST_TIMEOUT' } }] } });
    await inUseReaches(0, bodies);
    expect(await metricOf(s.h, 'request_body_refusals_total{reason="too_slow"}')).toBe(4);

    expect((await send(`${s.t.root}/folders`, folderBody(uniq('Whole')), 'application/json', mine)).status).toBe(200);
    expect(bodies.inUse).toBe(0);
  });

  test('an upload whose text part arrived and whose file part stalls is a 408, and what its text part took comes back', async () => {
    const bodies = s.h.services.bodies;
    const S = new Api(s.h, s.t, s.token);
    const folder = (await S.post('/folders', { name: uniq('Files') })).body.data;
    const documentId = (await S.post('/documents', { folderId: folder.id, name: uniq('Doc'), description: 'd', documentState: 1 })).body.data.documentId;
    const revisions = async () => (await S.get(`/documents/${documentId}/revisions`)).body.data;
    const unchanged = await revisions();
    const before = (await metricOf(s.h, 'request_body_refusals_total{reason="too_slow"}')) ?? 0;
    const upload = await multipart({ documentId }, new Uint8Array(10 * KIB).fill(7), 'stalled.bin');
    // The text part, the file part's headers and a KiB of it; the rest never comes.
    const raw = Buffer.from(upload.raw);
    const stalled = hold(`${s.t.root}/files`, raw, upload.headers['content-type'], { at: s.origin, bearer: s.token, sent: raw.indexOf('stalled.bin') + KIB });
    expect(await stalled.answer).toMatchObject({ status: 408, headers: { connection: 'close' }, body: { meta: { errors: [{ code: 'REQUEST_TIMEOUT' }] } } });
    await inUseReaches(0, bodies);
    expect(bodies.heldBy(s.t.tenantId)).toBe(0);
    expect(await metricOf(s.h, 'request_body_refusals_total{reason="too_slow"}')).toBe(before + 1);
    expect(await revisions()).toEqual(unchanged);
  });
});
