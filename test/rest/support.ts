/**
 * Shared helpers for the REST route tests: a per-tenant client, envelope and error assertions,
 * the exact field sets of the legacy data types, and fixtures created through the API itself.
 */
import { randomUUID } from 'node:crypto';
import http, { STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BASE, Harness, type Reply, type RequestOptions, type TestTenant } from '../harness.js';
import { startScriptServer, type TestScriptServer } from '../script-server.js';

export const ZERO_GUID = '00000000-0000-0000-0000-000000000000';
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A well-formed GUID that names nothing in any tenant. */
export const UNKNOWN_ID = '0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f';

/** The exact keys of each record as the default projection returns them (href and dataType first). */
export const SITE_KEYS = ['href', 'dataType', 'id', 'name', 'description', 'siteType', 'status'];
export const GROUP_KEYS = ['href', 'dataType', 'id', 'name', 'description', 'siteId'];
export const USER_KEYS = [
  'href',
  'dataType',
  'id',
  'name',
  'userid',
  'firstName',
  'middleInitial',
  'lastName',
  'passwordExpires',
  'userIdExpires',
  'emailAddress',
  'siteId',
  'userIdNeverExpires',
  'passwordNeverExpires',
  'enabled',
  'lastIpAddress',
];
export const PAGINATION_KEYS = ['dataType', 'href', 'first', 'last', 'next', 'previous', 'limit', 'totalRecords'];

/** The status text the envelope carries (Node's own table, as the server uses). */
export const STATUS_MSG: Record<number, string> = STATUS_CODES as Record<number, string>;

/** A short unique name, so tests inside one tenant never collide. */
export const uniq = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

export const sorted = (keys: string[]) => [...keys].sort();
export const keysOf = (o: object) => Object.keys(o).sort();

/** Requests against one tenant's root with one bearer token (override per call with `token`). */
export class Api {
  constructor(
    readonly h: Harness,
    readonly t: TestTenant,
    readonly token: string | undefined,
  ) {}

  /** The same tenant's paths with another caller's token. */
  as(token: string | undefined): Api {
    return new Api(this.h, this.t, token);
  }

  /** Another tenant's paths with this caller's token. */
  on(t: TestTenant): Api {
    return new Api(this.h, t, this.token);
  }

  url(path: string): string {
    return `${BASE}${this.t.root}${path}`;
  }

  request(method: string, path: string, o: RequestOptions = {}): Promise<Reply> {
    return this.h.request(method, `${this.t.root}${path}`, { token: this.token, ...o });
  }

  get = (path: string, o?: RequestOptions) => this.request('GET', path, o);
  post = (path: string, body?: unknown, o?: RequestOptions) => this.request('POST', path, { body, ...o });
  put = (path: string, body?: unknown, o?: RequestOptions) => this.request('PUT', path, { body, ...o });
  del = (path: string, o?: RequestOptions) => this.request('DELETE', path, o);
  /** A /graphql operation with this caller's token (the tenant is the token's). */
  gql = (query: string, variables?: Record<string, unknown>) => this.h.request('POST', '/graphql', { token: this.token, body: { query, variables } });
}

/** A `q` query parameter, encoded. */
export const q = (expr: string) => `q=${encodeURIComponent(expr)}`;

/** The success envelope: HTTP status = meta.status, statusMsg, method and the absolute href. */
export function expectEnvelope(r: Reply, method: string, absoluteUrl: string, status = 200) {
  expect({ status: r.status, text: r.text.slice(0, 400) }).toEqual({ status, text: expect.any(String) });
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body.meta).toEqual({ status, statusMsg: STATUS_MSG[status], method, href: new URL(absoluteUrl).toString() });
  expect(r.body.meta.errors).toBeUndefined();
}

/** A failure: the status in both places, at least one error with a message, and never `data`. */
export function expectError(r: Reply, status: number, message?: RegExp | string) {
  expect({ status: r.status, text: r.text.slice(0, 600) }).toEqual({ status, text: expect.any(String) });
  expect(r.body.meta.status).toBe(status);
  expect(r.body.meta.statusMsg).toBe(STATUS_MSG[status]);
  expect(r.body).not.toHaveProperty('data');
  expect(r.body).not.toHaveProperty('pagination');
  expect(Array.isArray(r.body.meta.errors)).toBe(true);
  expect(r.body.meta.errors.length).toBeGreaterThan(0);
  for (const e of r.body.meta.errors) {
    expect(typeof e.code).toBe('string');
    expect(typeof e.message).toBe('string');
    expect(typeof e.developerMessage).toBe('string');
  }
  if (message !== undefined) {
    const text = r.body.meta.errors.map((e: { message: string }) => e.message).join(' | ');
    if (typeof message === 'string') expect(text).toContain(message);
    else expect(text).toMatch(message);
  }
}

/** A record of a data type: href `~/<path>/<id>`, dataType and exactly the default keys. */
export function expectRecord(rec: Record<string, unknown>, dataType: string, path: string, keys: string[]) {
  expect(rec.dataType).toBe(dataType);
  expect(rec.id).toMatch(GUID);
  expect(rec.href).toBe(`~/${path}/${rec.id}`);
  expect(keysOf(rec)).toEqual(sorted(keys));
}

export const expectSite = (rec: Record<string, unknown>) => expectRecord(rec, 'Site', 'sites', SITE_KEYS);
export const expectGroup = (rec: Record<string, unknown>) => expectRecord(rec, 'Group', 'groups', GROUP_KEYS);
export const expectUser = (rec: Record<string, unknown>) => expectRecord(rec, 'User', 'users', USER_KEYS);
/** A User in an expanded relation, which shows every field of its records: `isVaultAccess` too. */
export const expectExpandedUser = (rec: Record<string, unknown>) => expectRecord(rec, 'User', 'users', [...USER_KEYS, 'isVaultAccess']);

/** Turns an absolute pagination link into a path the harness can request, checking it points at us. */
export function pathOf(link: string): string {
  expect(link.startsWith(`${BASE}/`)).toBe(true);
  return link.slice(BASE.length);
}

export interface Fixture {
  id: string;
  name: string;
}

export async function createSite(api: Api, name = uniq('site'), description = `about ${name}`): Promise<Fixture> {
  const r = await api.post('/sites', { name, description });
  if (r.status !== 200) throw new Error(`create site failed: ${r.status} ${r.text}`);
  return { id: r.body.data.id, name };
}

export async function createGroup(api: Api, o: { name?: string; description?: string; siteId?: string } = {}): Promise<Fixture> {
  const name = o.name ?? uniq('group');
  const r = await api.post('/groups', { name, description: o.description ?? `about ${name}`, ...(o.siteId ? { siteId: o.siteId } : {}) });
  if (r.status !== 200) throw new Error(`create group failed: ${r.status} ${r.text}`);
  return { id: r.body.data.id, name };
}

export interface UserFixture extends Fixture {
  userid: string;
  password: string;
}

export async function createUser(api: Api, siteId = api.t.homeSiteId, userid = uniq('user')): Promise<UserFixture> {
  const password = `pw-${randomUUID()}`;
  const r = await api.post(`/sites/${siteId}/users`, {
    userid,
    firstName: 'First',
    lastName: 'Last',
    emailaddress: `${userid}@example.test`,
    password,
  });
  if (r.status !== 200) throw new Error(`create user failed: ${r.status} ${r.text}`);
  return { id: r.body.data.id, name: userid, userid, password };
}

/** Users created a few at a time (password hashing is deliberately slow). */
export async function createUsers(api: Api, n: number, prefix = uniq('u')): Promise<UserFixture[]> {
  const out: UserFixture[] = [];
  for (let i = 0; i < n; i += 8) {
    const batch = Array.from({ length: Math.min(8, n - i) }, (_, j) => createUser(api, undefined, `${prefix}-${String(i + j).padStart(3, '0')}`));
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

/** A non-admin user of the tenant, logged in. */
export async function ordinaryUser(api: Api): Promise<UserFixture & { token: string }> {
  const u = await createUser(api);
  return { ...u, token: await api.h.login(api.t, u.userid, u.password) };
}

/** A tenant with its admin logged in. */
export async function adminApi(h: Harness): Promise<Api> {
  const t = await h.tenant();
  return new Api(h, t, await h.login(t));
}

/** Tenant A's administrator, tenant B's administrator, and an ordinary user of tenant A, on one app. */
export interface TwoTenants {
  h: Harness;
  A: Api;
  B: Api;
  plain: UserFixture & { token: string };
}

export async function twoTenants(): Promise<TwoTenants> {
  const h = await Harness.start();
  const A = await adminApi(h);
  return { h, A, B: await adminApi(h), plain: await ordinaryUser(A) };
}

/** A released form template whose fields are `keys` (text boxes unless `types` says; those in `required` required), made through /graphql. */
export async function formTemplateWith(
  api: Api, keys: string[], required: string[] = [], types: Record<string, number> = {}, name = uniq('form'),
): Promise<{ id: string; name: string; revisionId: string }> {
  const made = await api.gql('mutation ($name: String) { createFormTemplate(input: { name: $name }) { id } }', { name });
  const id = made.body.data.createFormTemplate.id as string;
  for (const key of keys) {
    const r = await api.gql(
      'mutation ($id: String!, $key: String, $req: Boolean, $type: Int) { addFormTemplateField(id: $id, input: { name: $key, required: $req, fieldType: $type }) { id } }',
      { id, key, req: required.includes(key), type: types[key] ?? 1 },
    );
    expect(r.body.errors).toBeUndefined();
  }
  expect((await api.put(`/formtemplates/${id}/release`)).status).toBe(200);
  return (await api.get(`/formtemplates/${id}`)).body.data[0];
}

/**
 * A multipart body as the Node client sends it: its other parts, then the file part (`fileUpload`
 * unless `partName` says otherwise), declared as `type` (none: the client's Blob, which has none).
 */
export async function multipart(parts: Record<string, string>, file: string | Uint8Array | null, fileName = 'file', partName = 'fileUpload', type?: string) {
  const form = new FormData();
  for (const [k, v] of Object.entries(parts)) form.append(k, v);
  if (file !== null) form.append(partName, new Blob([typeof file === 'string' ? file : new Uint8Array(file)], type ? { type } : {}), fileName);
  const req = new Request('http://x/', { method: 'POST', body: form });
  return { raw: new Uint8Array(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
}

/**
 * Two tenants' administrators and an ordinary user of the first on an app whose scripts run on a
 * real script server, the app also on a real socket (`origin`) so that scripts can call it back.
 */
export async function withScriptServer(scriptTimeoutSeconds = 2): Promise<{ peer: TestScriptServer; h: Harness; A: Api; B: Api; U: Api; origin: string; stop(): Promise<void> }> {
  const peer = await startScriptServer();
  const h = await Harness.start({ scriptServerUrl: peer.url, scriptTimeoutSeconds });
  const [A, B] = [await adminApi(h), await adminApi(h)];
  const U = A.as((await ordinaryUser(A)).token);
  const server = http.createServer(h.app.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // On a real socket, its own address is that socket's, as server.ts sets it: scripts call it back there.
  h.services.ownUrl = origin;
  const stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await h.stop();
    await peer.close();
  };
  return { peer, h, A, B, U, origin, stop };
}

type Statement = { text: string; values: unknown[] };

/**
 * The reply of `request`, sent while another transaction holds rows it needs: `hold` runs its
 * statement (a check-out, a delete) on a connection of its own, left uncommitted; once the request
 * waits on that connection (pg_blocking_pids names it), `then` runs in the same transaction (the
 * rest of a change that locked first), the held change commits and the request goes on. Waits on
 * other connections (another test file shares the database) do not count, and a request that never
 * waits on the holder fails the test rather than passing untested.
 */
export async function whileHeld(h: Harness, hold: Statement, request: () => Promise<Reply>, then?: Statement): Promise<Reply> {
  const other = await h.services.reads.connect();
  try {
    const holder = (await other.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    await other.query('begin');
    await other.query(hold.text, hold.values);
    const reply = request();
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await h.services.reads.query('select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [holder]);
      if (rows[0].n > 0) break;
      if (Date.now() > deadline) {
        await other.query('rollback');
        await reply.catch(() => undefined);
        throw new Error('whileHeld: the request never waited on the held transaction');
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    if (then) await other.query(then.text, then.values);
    await other.query('commit');
    return await reply;
  } finally {
    other.release();
  }
}

/**
 * `race` answers exactly what `unknown` (the same request naming UNKNOWN_ID instead of `id`)
 * answers: status and every error's code and message, `id` in place of UNKNOWN_ID.
 */
export function expectAsUnknown(race: Reply, unknown: Reply, id: string) {
  const errors = (r: Reply) => (r.body.meta?.errors ?? r.body.errors ?? []).map((e: { code?: string; message: string; extensions?: { code?: string } }) => ({ code: e.code ?? e.extensions?.code, message: e.message }));
  // REST refuses with a 4xx; /graphql answers an execution error 200 under application/json, its code in the error.
  if (unknown.body.meta) expect(unknown.status).toBeGreaterThanOrEqual(400);
  expect(errors(unknown)).not.toEqual([]);
  const expected = JSON.parse(JSON.stringify(errors(unknown)).split(UNKNOWN_ID).join(id));
  expect({ status: race.status, errors: errors(race) }).toEqual({ status: unknown.status, errors: expected });
}
