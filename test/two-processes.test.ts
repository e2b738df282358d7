/**
 * Two server processes on one database, as a deployment behind a load balancer runs them: nothing
 * that must be shared lives in one process's memory. A token from one works on the other, a user
 * disabled or promoted through one is refused or admitted by the other on the next request, and
 * the lock-out counts failures made on both, and each zip asked for is built by one of their builders once.
 */
import { randomUUID } from 'node:crypto';
import { startServer, stop, type Started } from './server-process.js';

let a: Started;
let b: Started;
let admin: { token: string; root: string; clientId: string; clientSecret: string; home: string };

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

async function call(s: Started, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${s.port}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function login(s: Started, username: string, password: string) {
  const res = await fetch(`http://127.0.0.1:${s.port}/oauth/token`, {
    method: 'POST',
    headers: FORM,
    body: new URLSearchParams({ grant_type: 'password', client_id: admin.clientId, client_secret: admin.clientSecret, username, password }).toString(),
  });
  return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

beforeAll(async () => {
  const env = { DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, LOG_LEVEL: 'info', LOGIN_MAX_FAILURES: '4' };
  const started = await Promise.allSettled([startServer(env), startServer(env)]);
  [a, b] = started.map((s) => (s.status === 'fulfilled' ? s.value : undefined!));
  for (const s of started) if (s.status === 'rejected') throw s.reason; // afterAll stops the one that started
  const { createTenant } = await import('../src/domain/tenants.js');
  const { initOrm } = await import('../src/db/orm.js');
  const orm = await initOrm(process.env.QUIRE_TEST_DATABASE_URL!, 1);
  const suffix = randomUUID().slice(0, 8);
  const t = await createTenant(orm.em, { customer: `two${suffix}`, database: 'db', admin: 'admin', password: 'Two-Processes-1' });
  await orm.close(true);
  admin = { token: '', root: `/api/v1/${t.customerAlias}/${t.databaseAlias}`, clientId: t.clientId, clientSecret: t.clientSecret, home: t.homeSiteId };
  const r = await login(a, 'admin', 'Two-Processes-1');
  expect(r.status).toBe(200);
  admin.token = r.body.access_token;
}, 120_000);

afterAll(async () => {
  await Promise.all([a && stop(a), b && stop(b)]);
});

async function newUser(): Promise<{ id: string; userid: string; password: string }> {
  const userid = `u-${randomUUID().slice(0, 8)}`;
  const password = `pw-${randomUUID()}`;
  const r = await call(a, 'POST', `${admin.root}/sites/${admin.home}/users`, admin.token, { userid, password, firstName: 'F', lastName: 'L', emailaddress: `${userid}@example.test` });
  expect({ status: r.status, errors: r.body.meta?.errors }).toEqual({ status: 200, errors: undefined });
  return { id: r.body.data.id, userid, password };
}

test('a token from one process works on the other, renewed too', async () => {
  expect((await call(b, 'GET', `${admin.root}/users/me`, admin.token)).status).toBe(200);
  const renewed = await call(b, 'GET', `${admin.root}/users/getjwt`, admin.token);
  expect(renewed.status).toBe(200);
  expect((await call(a, 'GET', `${admin.root}/users/me`, renewed.body.data.token)).status).toBe(200);
});

test('a user disabled through one process is refused by the other on the next request', async () => {
  const u = await newUser();
  const token = (await login(b, u.userid, u.password)).body.access_token;
  expect((await call(b, 'GET', `${admin.root}/users/me`, token)).status).toBe(200);
  expect((await call(a, 'PUT', `${admin.root}/users/${u.id}`, admin.token, { enabled: false })).status).toBe(200);
  expect((await call(b, 'GET', `${admin.root}/users/me`, token)).status).toBe(401);
  expect((await call(b, 'GET', `${admin.root}/sites`, token)).status).toBe(401);
});

test('a promotion through one process counts on the other at once', async () => {
  const u = await newUser();
  const token = (await login(b, u.userid, u.password)).body.access_token;
  expect((await call(b, 'POST', `${admin.root}/sites`, token, { name: `s-${u.userid}`, description: 'made on b' })).status).toBe(403);
  const admins = await call(a, 'GET', `${admin.root}/groups?q=name eq 'Administrators'`, admin.token);
  expect((await call(a, 'PUT', `${admin.root}/groups/${admins.body.data[0].id}/users/${u.id}`, admin.token)).status).toBe(201);
  expect((await call(b, 'POST', `${admin.root}/sites`, token, { name: `s-${u.userid}`, description: 'made on b' })).status).toBe(200);
});

test('the lock-out counts failures made on both processes', async () => {
  const u = await newUser();
  const answers = [];
  for (const s of [a, b, a, b]) answers.push((await login(s, u.userid, 'wrong')).status);
  expect(answers).toEqual([400, 400, 400, 429]);
  expect((await login(a, u.userid, u.password)).status).toBe(429);
  expect((await login(b, u.userid, u.password)).status).toBe(429);
});

test('zips asked for on one process are built in the background by the two servers\' builders, each once', async () => {
  const folder = await call(a, 'POST', `${admin.root}/folders`, admin.token, { name: `zips-${randomUUID().slice(0, 8)}`, description: '' });
  const keys: string[] = [];
  for (let i = 0; i < 6; i++) {
    const doc = await call(a, 'POST', `${admin.root}/documents`, admin.token, { folderId: folder.body.data.id, name: `z${i}` });
    const form = new FormData();
    form.set('documentId', doc.body.data.documentId);
    form.set('fileName', `z${i}.txt`);
    form.set('fileUpload', new Blob([`zip ${i}`]), `z${i}.txt`);
    const up = await fetch(`http://127.0.0.1:${a.port}${admin.root}/files`, { method: 'POST', headers: { authorization: `Bearer ${admin.token}` }, body: form });
    expect(up.status).toBe(200);
    const zip = await call(a, 'POST', `${admin.root}/documents/CreateDocumentZipFile`, admin.token, { documentDhIds: [doc.body.data.documentId] });
    expect(zip.body.data.status).toBe('Pending');
    keys.push(zip.body.data.downloadKey);
  }
  const statuses = async () => Promise.all(keys.map(async (k) => (await call(b, 'GET', `${admin.root}/documents/GetDocumentZipFileStatus?downloadKey=${k}`, admin.token)).body.data.status));
  let now = await statuses();
  for (let i = 0; i < 150 && now.some((s) => s === 'Pending'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    now = await statuses();
  }
  expect(now).toEqual(keys.map(() => 'Ready'));
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: process.env.QUIRE_TEST_DATABASE_URL });
  await c.connect();
  try {
    const rows = (await c.query('select attempts from document_zip where id = any($1::uuid[])', [keys])).rows;
    expect(rows).toEqual(keys.map(() => ({ attempts: 1 })));
  } finally {
    await c.end();
  }
  const file = await fetch(`http://127.0.0.1:${b.port}${admin.root}/documents/DownloadDocumentZipFile?downloadKey=${keys[0]}`, { headers: { authorization: `Bearer ${admin.token}` } });
  expect(file.status).toBe(200);
  expect(file.headers.get('content-type')).toBe('application/zip');
}, 60_000);
