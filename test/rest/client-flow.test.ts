/**
 * Replays how the Node client `vv-rest-api-node` drives the API, over real HTTP with fetch: the
 * password grant at {baseUrl}/OAuth/Token, the switch to a JWT from users/getjwt, the five
 * configuration probes, then sites, groups and users calls with its headers (Content-Type:
 * application/json on every call, bodies only on POST/PUT, query strings from URLSearchParams),
 * its proactive refresh (refresh grant, then password grant when that fails) and JWT renewal.
 */
import http from 'node:http';
import type net from 'node:net';
import { randomUUID } from 'node:crypto';
import { Harness, type TestTenant } from '../harness.js';

let h: Harness;
let t: TestTenant;
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  h = await Harness.start();
  t = await h.tenant();
  server = http.createServer(h.app.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await h.stop();
});

interface Session {
  accessToken: string;
  refreshToken: string | null;
  expirationDate: Date;
  tokenType: string;
  isJwt: boolean;
}

/** Every call the client made, to check the transport rules over the whole flow. */
const log: { method: string; url: string; status: number; metaStatus: unknown; contentLength: string | null; chunked: boolean }[] = [];

async function record(method: string, url: string, res: Response): Promise<string> {
  const text = await res.text();
  let metaStatus: unknown;
  try {
    metaStatus = JSON.parse(text)?.meta?.status;
  } catch {
    metaStatus = 'not JSON';
  }
  log.push({ method, url, status: res.status, metaStatus, contentLength: res.headers.get('content-length'), chunked: /chunked/i.test(res.headers.get('transfer-encoding') ?? '') });
  return text;
}

/** The client, reduced to what these routes need; it behaves as lib/http/*.js does. */
class NodeClient {
  session!: Session;
  readonly apiUrl: string;
  readonly authUrl = '/OAuth/Token';
  refreshes = 0;
  relogins = 0;

  constructor(
    readonly tt: TestTenant,
    readonly userId: string,
    readonly password: string,
  ) {
    this.apiUrl = `/api/v1/${tt.customerAlias}/${tt.databaseAlias}`;
  }

  /** Form-encoded token request; 400/401/403 mean refused credentials. */
  private async token(claim: Record<string, string>): Promise<{ access_token: string; expires_in: number; refresh_token: string; token_type: string }> {
    const url = baseUrl + this.authUrl;
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(claim) });
    const body = await record('POST', url, res);
    if (res.status !== 200) throw new Error(`Authorization has been refused for current credentials (HTTP ${res.status}): ${body.slice(0, 200)}`);
    const r = JSON.parse(body);
    // setSeconds(getSeconds() + expires_in) needs a number.
    expect(Number.isInteger(r.expires_in)).toBe(true);
    return r;
  }

  private adopt(r: { access_token: string; expires_in: number; refresh_token: string; token_type: string }) {
    const expirationDate = new Date();
    expirationDate.setSeconds(expirationDate.getSeconds() + r.expires_in);
    this.session = { accessToken: r.access_token, refreshToken: r.refresh_token, expirationDate, tokenType: r.token_type, isJwt: false };
  }

  async login() {
    this.adopt(
      await this.token({ grant_type: 'password', client_id: this.tt.clientId, client_secret: this.tt.clientSecret, username: this.userId, password: this.password, scope: 'vault' }),
    );
    expect(this.session.tokenType).toBe('Bearer');
  }

  /** VVClient._convertToJwt: from now on the JWT is the bearer token. */
  async convertToJwt(audience?: string) {
    const r = JSON.parse(await this.get('/users/getjwt', audience ? { audience } : {}));
    if (!r.data?.token) throw new Error('Failed to get JWT: API response missing data.token property');
    this.session.tokenType = 'jwt';
    this.session.accessToken = r.data.token;
    this.session.expirationDate = new Date(r.data.expires);
  }

  async refresh() {
    if (this.session.isJwt) return this.renewJwt();
    this.refreshes++;
    try {
      this.adopt(await this.token({ grant_type: 'refresh_token', refresh_token: this.session.refreshToken ?? '', client_id: this.tt.clientId, client_secret: this.tt.clientSecret }));
    } catch {
      // reacquireSecurityToken: log in again with the password.
      this.relogins++;
      await this.login();
    }
  }

  /** Authorize.__getJwt: GET {baseUrl}{apiUrl}/users/getjwt with only the Authorization header. */
  async renewJwt() {
    const url = `${baseUrl}${this.apiUrl}/users/getjwt`;
    const res = await fetch(url, { method: 'GET', headers: { Authorization: `Bearer ${this.session.accessToken}` } });
    const body = await record('GET', url, res);
    if (res.status !== 200) throw new Error(`Authorization has been refused for current credentials (HTTP ${res.status}): ${body.slice(0, 200)}`);
    const r = JSON.parse(body);
    this.session.accessToken = r.data.token;
    this.session.expirationDate = new Date(r.data.expires);
  }

  /** HttpHelper.doVvClientRequest + __makeRequest. Returns the body text; throws on non-2xx. */
  async call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', resource: string, params: Record<string, string> | unknown[] | null = null, data: unknown = null): Promise<string> {
    if (this.session.expirationDate < new Date(Date.now() + 30_000)) await this.refresh();
    let url = baseUrl + this.apiUrl + resource;
    const qs = params && Object.keys(params).length > 0 ? new URLSearchParams(params as Record<string, string>).toString() : '';
    if (qs) url = `${url}?${qs}`;
    const init: RequestInit = { method, headers: { Authorization: `Bearer ${this.session.accessToken}`, 'Content-Type': 'application/json' } };
    if (data && (method === 'POST' || method === 'PUT')) init.body = JSON.stringify(data);
    const res = await fetch(url, init);
    const text = await record(method, url, res);
    if (!res.ok) {
      const err = new Error(`${res.status} ${text}`) as Error & { status: number };
      err.status = res.status;
      throw err;
    }
    return text;
  }

  get = (resource: string, params: Record<string, string> | unknown[] | null = null) => this.call('GET', resource, params);
  /** The managers return the text; callers JSON.parse it and read meta and data. */
  async json(method: 'GET' | 'POST' | 'PUT' | 'DELETE', resource: string, params: Record<string, string> | unknown[] | null = null, data: unknown = null) {
    const r = JSON.parse(await this.call(method, resource, params, data));
    expect(typeof r.meta.status).toBe('number');
    return r;
  }
}

const ids = (r: { data: { id: string }[] }) => r.data.map((x) => x.id);

describe('the Node client against a tenant', () => {
  let c: NodeClient;

  test('logs in at {baseUrl}/OAuth/Token and switches to the JWT from users/getjwt', async () => {
    c = new NodeClient(t, t.adminUserId, t.password);
    await c.login();
    expect(c.session.refreshToken).toEqual(expect.any(String));
    expect(c.session.expirationDate.getTime()).toBeGreaterThan(Date.now() + 60_000);
    const oauthToken = c.session.accessToken;
    await c.convertToJwt();
    expect(c.session.tokenType).toBe('jwt');
    expect(c.session.accessToken).not.toBe(oauthToken);
    // The client parses data.expires with new Date and compares it with its clock.
    expect(Number.isNaN(c.session.expirationDate.getTime())).toBe(false);
    const left = c.session.expirationDate.getTime() - Date.now();
    expect(left).toBeGreaterThan(30_000);
    expect(left).toBeLessThanOrEqual(h.services.config.accessTokenTtlSeconds * 1000 + 5_000);
  });

  test('probes the five configuration endpoints and is told nothing is enabled', async () => {
    const names = ['docapi', 'formsapi', 'objectsapi', 'studioapi', 'notificationapi'];
    const replies = await Promise.all(names.map((n) => c.json('GET', `/configuration/${n}`)));
    for (const r of replies) {
      expect(r.meta.status).toBe(200);
      expect(r.data.isEnabled).toBe(false);
    }
  });

  let siteId: string;
  let siteGroupId: string;
  let groupId: string;
  let userId: string;

  test('sites: list, create (Location), update, read, list and create its groups', async () => {
    const list = await c.json('GET', '/sites', {});
    expect(list.data.map((s: { name: string }) => s.name)).toContain('Home');
    expect(list.data[0]).toMatchObject({ dataType: 'Site', href: expect.stringMatching(/^~\/sites\//) });

    const name = `Branch ${randomUUID().slice(0, 6)}`;
    const created = await c.json('POST', '/sites', {}, { name, description: 'A branch office', siteType: 'Location' });
    expect(created.meta.status).toBe(200);
    expect(Array.isArray(created.data)).toBe(false);
    expect(created.data).toMatchObject({ dataType: 'Site', name, description: 'A branch office', siteType: 'Location' });
    siteId = created.data.id;

    const put = await c.json('PUT', `/sites/${siteId}`, {}, { name: `${name} renamed`, description: 'moved' });
    expect(put.data).toMatchObject({ id: siteId, name: `${name} renamed`, description: 'moved' });

    const byId = await c.json('GET', `/sites/${siteId}`, {});
    expect(byId.data).toHaveLength(1);
    expect(byId.data[0].name).toBe(`${name} renamed`);

    const q = await c.json('GET', '/sites', { q: `name eq '${name} renamed'` });
    expect(ids(q)).toEqual([siteId]);

    expect((await c.json('GET', `/sites/${siteId}/groups`, {})).data).toEqual([]);
    const sg = await c.json('POST', `/sites/${siteId}/groups`, {}, { name: `Team ${randomUUID().slice(0, 6)}`, description: 'site team' });
    expect(sg.meta.status).toBe(200);
    expect(sg.data).toMatchObject({ dataType: 'Group', siteId });
    siteGroupId = sg.data.id;
    expect(ids(await c.json('GET', `/sites/${siteId}/groups`, {}))).toEqual([siteGroupId]);
    const sgPut = await c.json('PUT', `/sites/${siteId}/groups/${siteGroupId}`, {}, { name: sg.data.name, description: 'renamed team' });
    expect(sgPut.data).toMatchObject({ id: siteGroupId, description: 'renamed team' });
  });

  test('groups: list, create, read, add a member with PUT and no body (201), list members, remove', async () => {
    const before = await c.json('GET', '/groups', {});
    expect(before.data.map((g: { name: string }) => g.name)).toContain('Administrators');

    const name = `Reviewers ${randomUUID().slice(0, 6)}`;
    const created = await c.json('POST', '/groups', {}, { siteId, name, description: 'They review' });
    expect(created.meta.status).toBe(200);
    expect(created.data).toMatchObject({ dataType: 'Group', name, description: 'They review', siteId });
    groupId = created.data.id;

    const byId = await c.json('GET', `/groups/${groupId}`, {});
    expect(byId.data).toHaveLength(1);
    expect(byId.data[0]).toMatchObject({ id: groupId, name });

    const me = await c.json('GET', '/users/me', []);
    const adminId = me.data.id;
    const add = await c.json('PUT', `/groups/${groupId}/users/${adminId}`, {}, null);
    expect(add.meta.status).toBe(201);
    expect(add.data).toEqual([expect.objectContaining({ dataType: 'NotifyUser' })]);
    expect(log[log.length - 1].status).toBe(201);

    const members = await c.json('GET', `/groups/${groupId}/users`, {});
    expect(ids(members)).toEqual([adminId]);
    expect(members.pagination).toMatchObject({ dataType: 'PagedData', totalRecords: 1 });
    const one = await c.json('GET', `/groups/${groupId}/users/${adminId}`, {});
    expect(one.data[0].id).toBe(adminId);

    const removed = await c.json('DELETE', `/groups/${groupId}/users/${adminId}`, {});
    expect(removed.meta.status).toBe(200);
    expect((await c.json('GET', `/groups/${groupId}/users`, {})).data).toEqual([]);
    // Not a member any more: 404, which the client sees as a thrown error with the envelope.
    await expect(c.call('DELETE', `/groups/${groupId}/users/${adminId}`, {})).rejects.toMatchObject({ status: 404 });

    const upd = await c.json('PUT', `/groups/${groupId}`, {}, { description: 'They still review' });
    expect(upd.data).toMatchObject({ id: groupId, name, description: 'They still review' });
  });

  test('users: list with q, me, by id, groups, create in a site, move between sites', async () => {
    const all = await c.json('GET', '/users', {});
    expect(all.data.length).toBeGreaterThan(0);
    const q = await c.json('GET', '/users', { q: `userid eq '${t.adminUserId}'` });
    expect(q.data).toHaveLength(1);
    const adminId = q.data[0].id;

    const me = await c.json('GET', '/users/me', []);
    expect(me.data).toMatchObject({ id: adminId, dataType: 'User', userid: t.adminUserId });

    const byId = await c.json('GET', `/users/${adminId}`, {});
    expect(byId.data.id).toBe(adminId);

    const groups = await c.json('GET', `/users/${adminId}/groups`, {});
    expect(groups.data.map((g: { name: string }) => g.name)).toContain('Administrators');

    // usersManager.postUsers: POST sites/{id}/users with the documented camel-case keys.
    const newUserId = `flow${randomUUID().slice(0, 6)}`;
    const created = await c.json('POST', `/sites/${siteId}/users`, {}, {
      userId: newUserId,
      emailAddress: `${newUserId}@example.com`,
      firstName: 'Flow',
      lastName: 'User',
      password: 'Flow-pass-1',
      mustChangePassword: false,
      sendEmail: false,
      passwordNeverExpires: true,
    });
    expect(created.data).toMatchObject({ userid: newUserId, emailAddress: `${newUserId}@example.com`, siteId });
    userId = created.data.id;
    expect(ids(await c.json('GET', `/sites/${siteId}/users`, {}))).toContain(userId);

    const put = await c.json('PUT', `/sites/${siteId}/users/${userId}`, {}, { firstName: 'Flowed' });
    expect(put.data).toMatchObject({ id: userId, firstName: 'Flowed' });

    const renamed = await c.json('PUT', `/users/${userId}/userId`, [], { userId: `${newUserId}x` });
    expect(renamed.data.userid).toBe(`${newUserId}x`);

    const webToken = await c.json('GET', `/users/${userId}/webToken`, []);
    expect(webToken.data.webToken).toMatch(/^[0-9a-f-]{36}$/i);

    // sitesManager.changeUserSite / changeGroupSite, with their own key spellings.
    const moved = await c.json('PUT', '/sites/changeusersite', null, { UserId: userId, NewSiteId: t.homeSiteId });
    expect(moved.data).toMatchObject({ id: userId, siteId: t.homeSiteId });
    const movedGroup = await c.json('PUT', '/sites/changegroupsite', {}, { groupId, newsiteid: t.homeSiteId });
    expect(movedGroup.data).toMatchObject({ id: groupId, siteId: t.homeSiteId });

    // The group added through the client is among the user's groups once joined.
    expect((await c.json('PUT', `/groups/${groupId}/users/${userId}`, {}, null)).meta.status).toBe(201);
    expect(ids(await c.json('GET', `/users/${userId}/groups`, {}))).toEqual([groupId]);
  });

  test('refreshes proactively with the refresh grant; the OAuth access token is accepted as bearer', async () => {
    // Under 30 s left: the next call refreshes first.
    c.session.expirationDate = new Date(Date.now() + 10_000);
    const jwt = c.session.accessToken;
    const me = await c.json('GET', '/users/me', []);
    expect(c.refreshes).toBe(1);
    expect(c.relogins).toBe(0);
    expect(c.session.accessToken).not.toBe(jwt);
    expect(me.data.userid).toBe(t.adminUserId);
    const lastTwo = log.slice(-2);
    expect(lastTwo[0]).toMatchObject({ method: 'POST', status: 200 });
    expect(lastTwo[0].url).toBe(`${baseUrl}/OAuth/Token`);
    expect(lastTwo[1]).toMatchObject({ method: 'GET', status: 200 });
    // And again: rotation hands out a refresh token that works next time too.
    c.session.expirationDate = new Date();
    expect((await c.json('GET', '/groups', {})).meta.status).toBe(200);
    expect(c.refreshes).toBe(2);
    expect(c.relogins).toBe(0);
  });

  test('when the refresh token is refused it logs in again with the password', async () => {
    c.session.refreshToken = `${t.tenantId}.not-a-real-refresh-token`;
    c.session.expirationDate = new Date();
    const r = await c.json('GET', '/sites', {});
    expect(r.meta.status).toBe(200);
    expect(c.relogins).toBe(1);
  });

  test('a JWT-only session renews itself through users/getjwt', async () => {
    const jc = new NodeClient(t, t.adminUserId, t.password);
    await jc.login();
    await jc.convertToJwt('https://forms.example');
    // Authorize.getVaultApiFromJwt: a session that holds only the JWT.
    jc.session.isJwt = true;
    jc.session.refreshToken = null;
    jc.session.expirationDate = new Date(Date.now() + 5_000);
    const old = jc.session.accessToken;
    const r = await jc.json('GET', '/users/me', []);
    expect(r.data.userid).toBe(t.adminUserId);
    expect(jc.session.accessToken).not.toBe(old);
    expect(jc.session.expirationDate.getTime()).toBeGreaterThan(Date.now() + 30_000);
  });

  test('cleans up: deletes the user, the groups and the site', async () => {
    expect((await c.json('DELETE', `/users/${userId}`, {})).meta.status).toBe(200);
    expect((await c.json('DELETE', `/groups/${groupId}`, {})).meta.status).toBe(200);
    await expect(c.call('GET', `/groups/${groupId}`, {})).rejects.toMatchObject({ status: 404 });
    const del = await c.json('DELETE', `/sites/${siteId}`, {});
    expect(del.meta.status).toBe(200);
    await expect(c.call('GET', `/sites/${siteId}`, {})).rejects.toMatchObject({ status: 404 });
  });

  test('an ordinary user runs the same login and read flow', async () => {
    const admin = new NodeClient(t, t.adminUserId, t.password);
    await admin.login();
    const userid = `plain${randomUUID().slice(0, 6)}`;
    await admin.json('POST', `/sites/${t.homeSiteId}/users`, {}, { userId: userid, emailAddress: `${userid}@x.test`, firstName: 'P', lastName: 'U', password: 'Plain-pass-1' });
    const u = new NodeClient(t, userid, 'Plain-pass-1');
    await u.login();
    await u.convertToJwt();
    for (const n of ['docapi', 'formsapi', 'objectsapi', 'studioapi', 'notificationapi']) expect((await u.json('GET', `/configuration/${n}`)).data.isEnabled).toBe(false);
    const me = await u.json('GET', '/users/me', []);
    expect(me.data.userid).toBe(userid);
    expect((await u.json('GET', `/users/${me.data.id}/groups`, {})).data).toEqual([]);
    await expect(u.call('POST', '/sites', {}, { name: 'nope', description: 'nope' })).rejects.toMatchObject({ status: 403 });
  });

  test('every reply in the flow was JSON with a Content-Length, never chunked, and status == meta.status', () => {
    expect(log.length).toBeGreaterThan(40);
    for (const e of log) {
      expect([e.method, e.url, e.chunked]).toEqual([e.method, e.url, false]);
      expect([e.method, e.url, Number(e.contentLength) > 0]).toEqual([e.method, e.url, true]);
      // Token successes are plain OAuth bodies; everything else is the envelope.
      const tokenSuccess = e.url.endsWith('/OAuth/Token') && e.status === 200;
      expect([e.method, e.url, tokenSuccess ? e.status : e.metaStatus]).toEqual([e.method, e.url, e.status]);
    }
  });
});
