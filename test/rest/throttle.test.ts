/**
 * Login throttling counted in the database: concurrent guesses are counted one by one, a user is
 * locked out per source address (someone elsewhere who knows the username cannot lock its owner
 * out), and every source address and API client has its own failure budget.
 */
import { randomBytes } from 'node:crypto';
import { Harness, TEST_ADDRESSES, type Reply, type TestTenant } from '../harness.js';
import { adminApi, createUser } from './support.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Requests arrive through a trusted proxy, which names each test's own source address in X-Forwarded-For. */
const BEHIND_PROXY = { trustedProxies: [TEST_ADDRESSES] };

/** A documentation address (RFC 3849) per call, so tests never share a counter. */
const newAddress = () => `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

function token(h: Harness, fields: Record<string, string>, address: string): Promise<Reply> {
  return h.request('POST', '/oauth/token', { raw: new URLSearchParams(fields).toString(), headers: { ...FORM, 'x-forwarded-for': address } });
}

const login = (t: TestTenant, username: string, password: string) => ({
  grant_type: 'password',
  client_id: t.clientId,
  client_secret: t.clientSecret,
  username,
  password,
});

function expectLocked(r: Reply) {
  expect(r.status).toBe(429);
  expect(r.body.meta.errors[0].code).toBe('TOO_MANY_REQUESTS');
  expect(Date.parse(r.body.meta.retryTime)).toBeGreaterThan(Date.now());
  expect(r.body.access_token).toBeUndefined();
}

describe('per user and address', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ loginMaxFailures: 5, loginLockSeconds: 60, ...BEHIND_PROXY });
  });
  afterAll(() => h.stop());

  test('100 concurrent wrong passwords: at most LOGIN_MAX_FAILURES are checked, the rest and then the right one are 429', async () => {
    const api = await adminApi(h);
    const u = await createUser(api);
    const from = newAddress();
    const answers = await Promise.all(Array.from({ length: 100 }, () => token(h, login(api.t, u.userid, 'wrong'), from)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s !== 400 && s !== 429)).toEqual([]);
    expectLocked(await token(h, login(api.t, u.userid, u.password), from));
    // The owner, somewhere else, still logs in: knowing the username is not enough to lock them out.
    expect((await token(h, login(api.t, u.userid, u.password), newAddress())).status).toBe(200);
  });

  test("an administrator's password reset lifts the lock", async () => {
    const api = await adminApi(h);
    const u = await createUser(api);
    const from = newAddress();
    for (let i = 0; i < 5; i++) await token(h, login(api.t, u.userid, 'wrong'), from);
    expectLocked(await token(h, login(api.t, u.userid, u.password), from));
    expect((await api.put(`/users/${u.id}/password`, { newPassword: 'Reset-Passw0rd-9' })).status).toBe(200);
    expect((await token(h, login(api.t, u.userid, 'Reset-Passw0rd-9'), from)).status).toBe(200);
  });
});

describe('per source address', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ tokenMaxFailuresPerAddress: 10, ...BEHIND_PROXY });
  });
  afterAll(() => h.stop());

  test('failures of any kind from one address lock that address out, before any password is checked; other addresses go on', async () => {
    const api = await adminApi(h);
    const from = newAddress();
    const bogus = { grant_type: 'password', client_id: '0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f', client_secret: 'x', username: 'a', password: 'b' };
    const answers = await Promise.all(Array.from({ length: 30 }, () => token(h, bogus, from)));
    expect(answers.filter((r) => r.status === 401).length).toBeLessThanOrEqual(10);
    expect(answers.filter((r) => r.status !== 401 && r.status !== 429)).toEqual([]);
    expectLocked(await token(h, login(api.t, api.t.adminUserId, api.t.password), from));
    expect((await token(h, login(api.t, api.t.adminUserId, api.t.password), newAddress())).status).toBe(200);
  });

  test('failed HTTP Basic client authentication (a wrong secret, a malformed header) counts against the address as a body one does', async () => {
    const api = await adminApi(h);
    const from = newAddress();
    const wrong = `Basic ${Buffer.from(`${api.t.clientId}:wrong`).toString('base64')}`;
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        h.request('POST', '/oauth/token', { raw: 'grant_type=client_credentials', headers: { ...FORM, 'x-forwarded-for': from, authorization: i % 2 ? wrong : 'Basic !!' } }),
      ),
    );
    const refused = answers.filter((r) => r.status === 401);
    expect(refused.length).toBeLessThanOrEqual(10);
    expect(refused.map((r) => r.headers.get('www-authenticate'))).toEqual(refused.map(() => 'Basic realm="quire"'));
    expect(answers.filter((r) => r.status !== 401 && r.status !== 429)).toEqual([]);
    expectLocked(await token(h, login(api.t, api.t.adminUserId, api.t.password), from));
  });

  test('successes do not count against the address', async () => {
    const api = await adminApi(h);
    const from = newAddress();
    for (let i = 0; i < 15; i++) expect((await token(h, login(api.t, api.t.adminUserId, api.t.password), from)).status).toBe(200);
  });
});

describe('per API client', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ tokenMaxFailuresPerClient: 6, loginMaxFailures: 100, ...BEHIND_PROXY });
  });
  afterAll(() => h.stop());

  test("wrong passwords through one client, from many addresses, lock that client out; another tenant's client goes on", async () => {
    const api = await adminApi(h);
    const other = await adminApi(h);
    for (let i = 0; i < 6; i++) await token(h, login(api.t, api.t.adminUserId, 'wrong'), newAddress());
    expectLocked(await token(h, login(api.t, api.t.adminUserId, api.t.password), newAddress()));
    expect((await token(h, login(other.t, other.t.adminUserId, other.t.password), newAddress())).status).toBe(200);
  });
});
