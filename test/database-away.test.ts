/**
 * The server against a PostgreSQL of its own that goes away: stopped outright (connections
 * refused) and frozen by SIGSTOP (connections accepted, nothing answered). Every answer is then
 * a 503 UNAVAILABLE envelope with Retry-After, /readyz says the database is down without waiting
 * for it, the service recovers when the database returns, and SIGTERM ends the process within
 * SHUTDOWN_GRACE_MS whatever the database does.
 */
import http from 'node:http';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';
import { startServer, stop, type Started } from './server-process.js';

let db: PrivatePostgres;
let s: Started;
let root: string;
let token: string;
async function call(method: string, p: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${s.port}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * A GET whose connection is open before `connected` resolves: a request truly in flight, which a
 * server that stops listening must still answer (fetch may not have connected yet when it returns).
 */
function callConnected(p: string) {
  let connected!: () => void;
  const isConnected = new Promise<void>((resolve) => (connected = resolve));
  const done = new Promise<{ status: number; headers: Headers; body: any }>((resolve, reject) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const req = http.get(`http://127.0.0.1:${s.port}${p}`, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: new Headers(res.headers as Record<string, string>), body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('socket', (socket) => socket.once('connect', connected));
    req.on('error', reject);
  });
  return { connected: isConnected, done };
}

/** /readyz, which must answer well before the statement timeout (2 s here, 3 s on the client side). */
async function ready() {
  const res = await fetch(`http://127.0.0.1:${s.port}/readyz`, { signal: AbortSignal.timeout(2500) });
  return { status: res.status, body: await res.json() };
}

/** Polls /readyz until it answers 200 (a check slower than its deadline on a loaded machine is one more turn); its body. */
async function readyAgain() {
  for (;;) {
    const r = await ready().catch(() => undefined);
    if (r?.status === 200) return r.body;
  }
}

function expectUnavailable(r: { status: number; headers: Headers; body: any }) { // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(r.status).toBe(503);
  expect(r.headers.get('retry-after')).toBe('5');
  const errors = r.body.meta?.errors ?? r.body.errors.map((e: { extensions: object }) => e.extensions);
  expect(errors[0].code).toBe('UNAVAILABLE');
}

beforeAll(async () => {
  db = await startPrivatePostgres('away');
  s = await startServer({
    DATABASE_URL: db.url,
    DB_POOL_SIZE: '2',
    DB_CONNECT_TIMEOUT_MS: '1000',
    DB_ACQUIRE_TIMEOUT_MS: '1000',
    DB_STATEMENT_TIMEOUT_MS: '2000',
    SHUTDOWN_GRACE_MS: '6000',
    LOG_LEVEL: 'info',
  });
  const { createTenant } = await import('../src/domain/tenants.js');
  const { initOrm } = await import('../src/db/orm.js');
  const orm = await initOrm(db.url, 1);
  const t = await createTenant(orm.em, { customer: 'away', database: 'db', admin: 'admin', password: 'Away-1' });
  await orm.close(true);
  root = `/api/v1/${t.customerAlias}/${t.databaseAlias}`;
  const res = await fetch(`http://127.0.0.1:${s.port}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username: 'admin', password: 'Away-1' }).toString(),
  });
  token = ((await res.json()) as { access_token: string }).access_token;
  expect((await call('GET', `${root}/sites`)).status).toBe(200);
}, 120_000);

afterAll(async () => {
  db.thaw();
  if (s && s.child.exitCode === null) await stop(s, 'SIGKILL');
  await db.remove();
}, 60_000);

test('with the database stopped, REST, /graphql and the token endpoint answer 503 UNAVAILABLE; it recovers by itself', async () => {
  await db.server.stop();
  expectUnavailable(await call('GET', `${root}/sites`));
  expectUnavailable(await call('POST', `${root}/sites`, { name: 'North' }));
  expectUnavailable(await call('POST', '/graphql', { query: '{ sites { totalRecords } }' }));
  // The .NET client's suppress_response_codes: HTTP 200, the 503 in meta.status, and still when to retry.
  const suppressed = await call('GET', `${root}/sites?suppress_response_codes=true`);
  expect({ status: suppressed.status, meta: suppressed.body.meta.status, retryAfter: suppressed.headers.get('retry-after') }).toEqual({ status: 200, meta: 503, retryAfter: '5' });
  const login = await fetch(`http://127.0.0.1:${s.port}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=password&client_id=x&client_secret=y&username=u&password=p',
  });
  expect(login.status).toBe(503);
  expect(await ready()).toEqual({ status: 503, body: { status: 'unavailable', database: 'down' } });
  expect(s.stdout()).not.toMatch(/\n\s+at /);

  await db.server.start();
  // Readiness is the signal: no fixed sleep.
  expect(await readyAgain()).toEqual({ status: 'ready', database: 'up' });
  expect((await call('GET', `${root}/sites`)).status).toBe(200);
}, 60_000);

test('with the database frozen, /readyz says so at once, requests get 503 instead of hanging, and SIGTERM still ends the process', async () => {
  db.freeze();
  try {
    expect(await ready()).toEqual({ status: 503, body: { status: 'unavailable', database: 'down' } });
    expectUnavailable(await call('GET', `${root}/sites`));
    expectUnavailable(await call('POST', '/graphql', { query: '{ sites { totalRecords } }' }));

    // A request in flight on the frozen database when the signal comes still gets its 503, and the
    // process ends within its grace period although closing the pools cannot finish.
    const inFlight = callConnected(`${root}/groups`);
    await inFlight.connected;
    const exited = new Promise<number | null>((resolve) => s.child.once('close', resolve));
    s.child.kill('SIGTERM');
    expectUnavailable(await inFlight.done);
    expect(typeof (await exited)).toBe('number');
    expect(s.stdout()).toContain('"msg":"shutting down');
    expect(s.stdout()).not.toMatch(/\n\s+at /);
  } finally {
    db.thaw();
  }
}, 60_000);
