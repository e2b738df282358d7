/**
 * The token endpoint and bearer tokens as the legacy clients use them: every address and body
 * encoding, the three grants, refresh rotation with reuse detection, the OAuth error body,
 * login throttling, and what happens to expired, malformed, foreign and forged tokens.
 */
import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import argon2 from 'argon2';
import { SignJWT, decodeJwt, generateKeyPair } from 'jose';
import { signAccessToken } from '../../src/auth/jwt.js';
import { MAX_AUDIENCE } from '../../src/resolvers/user.js';
import { Harness, type Reply, type TestTenant } from '../harness.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let h: Harness;
let t: TestTenant;

beforeAll(async () => {
  h = await Harness.start();
  t = await h.tenant();
});
afterAll(() => h.stop());

function post(harness: Harness, path: string, fields: Record<string, string>, headers: Record<string, string> = FORM): Promise<Reply> {
  return harness.request('POST', path, { raw: new URLSearchParams(fields).toString(), headers });
}

const passwordFields = (tt: TestTenant, username = tt.adminUserId, password = tt.password) => ({
  grant_type: 'password',
  client_id: tt.clientId,
  client_secret: tt.clientSecret,
  username,
  password,
  scope: 'vault',
});

function expectToken(r: Reply) {
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/application\/json/);
  expect(r.headers.get('cache-control')).toMatch(/no-store/);
  expect(typeof r.body.access_token).toBe('string');
  expect(r.body.access_token.split('.')).toHaveLength(3);
  expect(r.body.token_type).toBe('Bearer');
  expect(Number.isInteger(r.body.expires_in)).toBe(true);
  expect(r.text).toMatch(/"expires_in":\d+[,}]/);
  expect(r.body.expires_in).toBeGreaterThan(0);
  expect(typeof r.body.refresh_token).toBe('string');
  expect(r.body.refresh_token.length).toBeGreaterThan(20);
}

/** A refused login: 400 or 401, an OAuth error body that one client greps, and an honest envelope. */
function expectRefused(r: Reply, error?: string) {
  expect([400, 401]).toContain(r.status);
  expect(r.body.error).toMatch(/invalid|unauthorized|denied/i);
  if (error) expect(r.body.error).toBe(error);
  expect(typeof r.body.error_description).toBe('string');
  expect(r.body.access_token).toBeUndefined();
  expect(r.body.meta?.status).toBe(r.status);
  expect(r.body.meta.errors[0]).toMatchObject({ code: expect.any(String), message: expect.any(String), developerMessage: expect.any(String) });
}

async function whoAmI(token: string, tt: TestTenant = t): Promise<string> {
  const r = await h.request('GET', `${tt.root}/users/me`, { token, headers: { 'content-type': 'application/json' } });
  expect(r.status).toBe(200);
  return r.body.data.id;
}

async function newUser(tt: TestTenant, token: string, harness: Harness = h): Promise<{ id: string; userid: string; password: string }> {
  const userid = `u${randomUUID().slice(0, 8)}`;
  const password = `pw-${randomUUID()}`;
  const r = await harness.request('POST', `${tt.root}/users?siteId=${tt.homeSiteId}`, {
    token,
    body: { userid, firstName: 'F', lastName: 'L', emailaddress: `${userid}@x.test`, password },
  });
  expect(r.status).toBe(200);
  return { id: r.body.data.id, userid, password };
}

describe('token endpoint addresses and encodings', () => {
  test.each(['/oauth/token', '/OAuth/Token', '/OAUTH/TOKEN/'])('POST %s with a form body', async (path) => {
    const r = await post(h, path, passwordFields(t));
    expectToken(r);
    expect(await whoAmI(r.body.access_token)).toBe(t.adminId);
  });

  test('the tenant-scoped address, in any case', async () => {
    for (const root of [t.root, `/API/v1/${t.customerAlias.toUpperCase()}/${t.databaseAlias.toUpperCase()}`]) {
      for (const tail of ['/oauth/token', '/OAuth/Token']) {
        const r = await post(h, `${root}${tail}`, passwordFields(t));
        expectToken(r);
      }
    }
  });

  test('a form body labelled application/json is read as a form', async () => {
    const r = await post(h, '/OAuth/Token', passwordFields(t), { 'content-type': 'application/json' });
    expectToken(r);
    const charset = await post(h, '/oauth/token', passwordFields(t), { 'content-type': 'application/json; charset=utf-8' });
    expectToken(charset);
  });

  test('a form body with no Content-Type at all, and a real JSON object, are read too', async () => {
    expectToken(await h.request('POST', '/oauth/token', { raw: new URLSearchParams(passwordFields(t)).toString() }));
    expectToken(await h.request('POST', '/oauth/token', { body: passwordFields(t) }));
  });

  test('the user name is matched case-insensitively; scope is optional', async () => {
    const { scope: _scope, ...noScope } = passwordFields(t, t.adminUserId.toUpperCase());
    const r = await post(h, '/oauth/token', noScope);
    expectToken(r);
    expect(await whoAmI(r.body.access_token)).toBe(t.adminId);
  });

  test('GET on the token endpoint is a 405 envelope with the OAuth keys, as its other refusals', async () => {
    for (const [method, path] of [['GET', '/oauth/token'], ['PUT', `${t.root}/OAuth/Token`]]) {
      const r = await h.request(method, path);
      expect(r.status).toBe(405);
      expect(r.body.meta.status).toBe(405);
      expect(r.headers.get('allow')).toBe('POST');
      expect(r.headers.get('cache-control')).toMatch(/no-store/);
      expect(r.body).toMatchObject({ error: 'invalid_request', error_description: `${method} is not allowed here; use POST.` });
      expect(r.body.meta.errors[0]).toMatchObject({ code: 'METHOD_NOT_ALLOWED', message: r.body.error_description });
    }
  });
});

describe('grants', () => {
  test('password logs in an ordinary user as that user', async () => {
    const admin = await h.login(t);
    const u = await newUser(t, admin);
    const r = await post(h, '/oauth/token', passwordFields(t, u.userid, u.password));
    expectToken(r);
    expect(await whoAmI(r.body.access_token)).toBe(u.id);
  });

  test('client_credentials with the key pair in client_id/client_secret acts as the client\'s user', async () => {
    const r = await post(h, '/oauth/token', { grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret });
    expectToken(r);
    expect(await whoAmI(r.body.access_token)).toBe(t.adminId);
  });

  test('client_credentials as the .NET client sends it: username=clientId, password=secret', async () => {
    const alone = await post(h, '/OAuth/Token', { grant_type: 'client_credentials', username: t.clientId, password: t.clientSecret });
    expectToken(alone);
    expect(await whoAmI(alone.body.access_token)).toBe(t.adminId);
    const both = await post(h, `${t.root}/oauth/token`, {
      grant_type: 'client_credentials',
      client_id: t.clientId,
      client_secret: t.clientSecret,
      username: t.clientId,
      password: t.clientSecret,
    });
    expectToken(both);
  });

  test('password with the key pair as username/password works as the client\'s user', async () => {
    const r = await post(h, '/oauth/token', passwordFields(t, t.clientId, t.clientSecret));
    expectToken(r);
    expect(await whoAmI(r.body.access_token)).toBe(t.adminId);
  });

  test('client_credentials with a wrong secret is refused', async () => {
    expectRefused(await post(h, '/oauth/token', { grant_type: 'client_credentials', client_id: t.clientId, client_secret: 'nope' }));
    expectRefused(await post(h, '/oauth/token', { grant_type: 'client_credentials', username: t.clientId, password: 'nope' }));
  });
});

describe('HTTP Basic client authentication (RFC 6749 2.3.1)', () => {
  /** The client's pair as RFC 6749 2.3.1 sends it: each part form-urlencoded, then base64. */
  const basic = (id: string, secret: string, scheme = 'Basic') =>
    `${scheme} ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  const withBasic = (authorization: string) => ({ ...FORM, authorization });
  const user = () => ({ grant_type: 'password', username: t.adminUserId, password: t.password });

  function expectBasicChallenge(r: Reply) {
    expectRefused(r, 'invalid_client');
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Basic realm="quire"');
  }

  test('a password grant authenticates the client with the Authorization header, at either address, any case of the scheme', async () => {
    for (const [path, scheme] of [['/oauth/token', 'Basic'], [`${t.root}/oauth/token`, 'basic']]) {
      const r = await post(h, path, user(), withBasic(basic(t.clientId, t.clientSecret, scheme)));
      expectToken(r);
      expect(await whoAmI(r.body.access_token)).toBe(t.adminId);
    }
  });

  test('client_credentials and refresh_token take the client from the Authorization header too', async () => {
    const cc = await post(h, '/oauth/token', { grant_type: 'client_credentials' }, withBasic(basic(t.clientId, t.clientSecret)));
    expectToken(cc);
    expect(await whoAmI(cc.body.access_token)).toBe(t.adminId);
    const rotated = await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: cc.body.refresh_token }, withBasic(basic(t.clientId, t.clientSecret)));
    expectToken(rotated);
    expect(await whoAmI(rotated.body.access_token)).toBe(t.adminId);
    // A wrong secret in the header refuses the refresh as the client's failure, with the Basic challenge.
    expectBasicChallenge(await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token }, withBasic(basic(t.clientId, 'wrong'))));
  });

  test('the header and a client_secret in the body, or a client_id of another client, are a 400 invalid_request; the same client_id beside it is taken', async () => {
    const header = withBasic(basic(t.clientId, t.clientSecret));
    for (const extra of [{ client_id: t.clientId, client_secret: t.clientSecret }, { client_secret: t.clientSecret }] as Record<string, string>[]) {
      const r = await post(h, '/oauth/token', { ...user(), ...extra }, header);
      expectRefused(r, 'invalid_request');
      expect(r.status).toBe(400);
      expect(r.body.error_description).toMatch(/use one method/);
    }
    const other = await post(h, '/oauth/token', { ...user(), client_id: randomUUID() }, header);
    expectRefused(other, 'invalid_request');
    expect(other.body.error_description).toMatch(/not the client the Authorization header authenticates/);
    // Many OAuth libraries name the client in the body beside Basic, in whichever case they keep its GUID.
    expectToken(await post(h, '/oauth/token', { ...user(), client_id: t.clientId }, header));
    expectToken(await post(h, '/oauth/token', { ...user(), client_id: t.clientId.toUpperCase() }, header));
  });

  test('a wrong secret or unknown client in the header is a 401 invalid_client with WWW-Authenticate: Basic; in the body it names no scheme', async () => {
    expectBasicChallenge(await post(h, '/oauth/token', user(), withBasic(basic(t.clientId, 'wrong'))));
    expectBasicChallenge(await post(h, '/oauth/token', user(), withBasic(basic(randomUUID(), t.clientSecret))));
    expectBasicChallenge(await post(h, '/oauth/token', { grant_type: 'client_credentials' }, withBasic(basic(t.clientId, ''))));
    const body = await post(h, '/oauth/token', { ...passwordFields(t), client_secret: 'wrong' });
    expect([body.status, body.body.error, body.headers.get('www-authenticate')]).toEqual([401, 'invalid_client', null]);
  });

  test('a malformed Basic header is a 401 invalid_client with the challenge, saying what is wrong', async () => {
    const b64 = (text: string) => Buffer.from(text, 'latin1').toString('base64');
    const cases: [string, RegExp][] = [
      ['Basic', /not base64/],
      ['Basic !!!not-base64', /not base64/],
      [`Basic ${b64('no-colon-here')}`, /no colon/],
      [`Basic ${b64('\xff\xfe:x')}`, /not UTF-8/],
      [`Basic ${b64(`%zz:${t.clientSecret}`)}`, /percent-escape/],
      [`Basic ${b64(`${t.clientId}:`)}`, /client_secret is empty/],
      [`Basic ${b64(':')}`, /client_id is empty/],
    ];
    for (const [header, why] of cases) {
      const r = await post(h, '/oauth/token', user(), withBasic(header));
      expectBasicChallenge(r);
      expect([header, r.body.error_description]).toEqual([header, expect.stringMatching(why)]);
    }
  });

  test('another scheme on the token endpoint is not client authentication: ignored, as before', async () => {
    expectToken(await post(h, '/oauth/token', passwordFields(t), withBasic('Bearer not-a-token')));
    const r = await post(h, '/oauth/token', user(), withBasic('Bearer not-a-token'));
    expect([r.status, r.body.error, r.headers.get('www-authenticate')]).toEqual([401, 'invalid_client', null]);
  });
});

describe('refresh_token', () => {
  test('rotates: the new token works; reusing the old fails and revokes the family', async () => {
    const first = await post(h, '/oauth/token', passwordFields(t));
    expectToken(first);
    const r1 = first.body.refresh_token;

    const second = await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: r1, client_id: t.clientId, client_secret: t.clientSecret });
    expectToken(second);
    expect(second.body.refresh_token).not.toBe(r1);
    expect(second.body.access_token).not.toBe(first.body.access_token);
    expect(await whoAmI(second.body.access_token)).toBe(t.adminId);
    const r2 = second.body.refresh_token;

    const third = await post(h, '/OAuth/Token', { grant_type: 'refresh_token', refresh_token: r2, client_id: t.clientId, client_secret: t.clientSecret });
    expectToken(third);
    const r3 = third.body.refresh_token;

    // r1 comes back: a copy is loose, so the whole family dies, r3 included.
    const reuse = await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: r1, client_id: t.clientId, client_secret: t.clientSecret });
    expectRefused(reuse, 'invalid_grant');
    const after = await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: r3, client_id: t.clientId, client_secret: t.clientSecret });
    expectRefused(after, 'invalid_grant');

    // Another login starts a new family that is unaffected.
    const fresh = await post(h, '/oauth/token', passwordFields(t));
    expectToken(fresh);
    expectToken(await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: fresh.body.refresh_token }));
  });

  test('works on the tenant-scoped address, with an audience, and without the client pair', async () => {
    const first = await post(h, '/oauth/token', passwordFields(t));
    const scoped = await post(h, `${t.root}/OAuth/Token`, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: t.clientId,
      client_secret: t.clientSecret,
      audience: 'https://forms.example',
    });
    expectToken(scoped);
    const bare = await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: scoped.body.refresh_token });
    expectToken(bare);
  });

  test('refuses a wrong client secret, another client, garbage, and another tenant\'s address', async () => {
    const other = await h.tenant();
    const first = await post(h, '/oauth/token', passwordFields(t));
    const rt = first.body.refresh_token;
    expectRefused(await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: rt, client_id: t.clientId, client_secret: 'wrong' }));
    // A secret sent without its client_id is checked against the token's client, not ignored.
    for (const id of [{}, { client_id: '' }] as Record<string, string>[]) {
      const r = await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: rt, ...id, client_secret: 'wrong' });
      expectRefused(r, 'invalid_client');
      expect(r.status).toBe(401);
    }
    // An empty secret in the Basic header is a failed authentication, as on the password grant, not a refresh without one.
    for (const pair of [`${t.clientId}:`, ':']) {
      const r = await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: rt }, { ...FORM, authorization: `Basic ${Buffer.from(pair).toString('base64')}` });
      expect([pair, r.status, r.body.error]).toEqual([pair, 401, 'invalid_client']);
    }
    expectRefused(await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: rt, client_id: other.clientId, client_secret: other.clientSecret }));
    expectRefused(await post(h, `${other.root}/oauth/token`, { grant_type: 'refresh_token', refresh_token: rt }));
    for (const junk of ['', 'abc', `${t.tenantId}.nope`, `${randomUUID()}.x`, '..', 'null']) {
      expectRefused(await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: junk }), junk ? 'invalid_grant' : undefined);
    }
    // The refusals above did not use up the token.
    expectToken(await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: rt, client_secret: t.clientSecret }));
  });

  test('of the same refresh token sent four times at once exactly one use wins', async () => {
    const first = await post(h, '/oauth/token', passwordFields(t));
    const rt = first.body.refresh_token;
    const replies = await Promise.all(Array.from({ length: 4 }, () => post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: rt })));
    const ok = replies.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    expectToken(ok[0]);
    for (const r of replies.filter((x) => x.status !== 200)) expectRefused(r, 'invalid_grant');
  });

  test("a refresh in its session's last second is refused as an ended session (400 invalid_grant), not as a bad client (401), and uses nothing up", async () => {
    const admin = await h.login(t);
    const u = await newUser(t, admin);
    const login = await post(h, '/oauth/token', passwordFields(t, u.userid, u.password));
    expectToken(login);
    // Early in a second, the session is made to end at its last millisecond: the refresh token has
    // not expired when it comes, but an access token, counted in whole seconds, would end as made.
    while (Date.now() % 1000 > 100) await new Promise((r) => setTimeout(r, 5));
    const end = new Date(Math.floor(Date.now() / 1000) * 1000 + 999);
    await h.services.reads.query('update refresh_token set expires_at = $1 where tenant_id = $2 and user_id = $3', [end, t.tenantId, u.id]);
    const r = await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: login.body.refresh_token });
    expectRefused(r, 'invalid_grant');
    expect(r.status).toBe(400);
    const unused = await h.services.reads.query('select count(*)::int as n from refresh_token where tenant_id = $1 and user_id = $2 and used_at is null and revoked_at is null', [t.tenantId, u.id]);
    expect(unused.rows[0].n).toBe(1);
  });

  test('a disabled user cannot refresh', async () => {
    const admin = await h.login(t);
    const u = await newUser(t, admin);
    const login = await post(h, '/oauth/token', passwordFields(t, u.userid, u.password));
    expectToken(login);
    expect((await h.request('PUT', `${t.root}/users/${u.id}`, { token: admin, body: { enabled: false } })).status).toBe(200);
    expectRefused(await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: login.body.refresh_token }), 'invalid_grant');
  });
});

describe('account expiry (userIdExpires)', () => {
  const expire = (admin: string, id: string, body: Record<string, unknown>) => h.request('PUT', `${t.root}/users/${id}`, { token: admin, body });
  const past = new Date(Date.now() - 60_000).toISOString();
  const future = new Date(Date.now() + 86_400_000).toISOString();

  test('past its userIdExpires an account takes no login and no refresh; userIdNeverExpires or a later date lets it in', async () => {
    const admin = await h.login(t);
    const u = await newUser(t, admin);
    const before = await post(h, '/oauth/token', passwordFields(t, u.userid, u.password));
    expectToken(before);
    expect((await expire(admin, u.id, { userIdNeverExpires: false, userIdExpires: past })).status).toBe(200);
    // Answered as a wrong password is (test/auth/grants.test.ts): the refusal confirms no password.
    const refused = await post(h, '/oauth/token', passwordFields(t, u.userid, u.password));
    expectRefused(refused, 'invalid_grant');
    expect(refused.body.error_description).toBe('Invalid username or password.');
    expectRefused(await post(h, '/oauth/token', { grant_type: 'refresh_token', refresh_token: before.body.refresh_token }), 'invalid_grant');
    // Not expiring at all, or expiring later: logins work again.
    expect((await expire(admin, u.id, { userIdNeverExpires: true })).status).toBe(200);
    expectToken(await post(h, '/oauth/token', passwordFields(t, u.userid, u.password)));
    expect((await expire(admin, u.id, { userIdNeverExpires: false, userIdExpires: future })).status).toBe(200);
    expectToken(await post(h, '/oauth/token', passwordFields(t, u.userid, u.password)));
  });

  test('a new account expires only when told: userIdNeverExpires is true by default', async () => {
    const admin = await h.login(t);
    const u = await newUser(t, admin);
    expect((await expire(admin, u.id, { userIdExpires: past })).status).toBe(200);
    expectToken(await post(h, '/oauth/token', passwordFields(t, u.userid, u.password)));
  });
});

describe('bad credentials', () => {
  test('a wrong password, an unknown user, and a missing one are refused with an OAuth body', async () => {
    expectRefused(await post(h, '/oauth/token', passwordFields(t, t.adminUserId, 'wrong')), 'invalid_grant');
    expectRefused(await post(h, '/oauth/token', passwordFields(t, 'nobody-here', 'wrong')), 'invalid_grant');
    const { password: _p, ...noPassword } = passwordFields(t);
    expectRefused(await post(h, '/oauth/token', noPassword));
    const { username: _u, ...noUser } = passwordFields(t);
    expectRefused(await post(h, '/oauth/token', noUser));
  });

  test('a wrong client secret, an unknown or malformed client id, and a missing client are refused', async () => {
    expectRefused(await post(h, '/oauth/token', { ...passwordFields(t), client_secret: 'wrong' }));
    expectRefused(await post(h, '/oauth/token', { ...passwordFields(t), client_id: randomUUID() }));
    expectRefused(await post(h, '/oauth/token', { ...passwordFields(t), client_id: 'not-a-guid' }));
    const { client_id: _c, client_secret: _s, ...noClient } = passwordFields(t);
    expectRefused(await post(h, '/oauth/token', noClient));
  });

  test('a missing or unknown grant_type is a 400 with the OAuth error for it', async () => {
    const { grant_type: _g, ...noGrant } = passwordFields(t);
    const cases: [Reply, string][] = [
      [await post(h, '/oauth/token', noGrant), 'invalid_request'],
      [await h.request('POST', '/oauth/token', { raw: '', headers: FORM }), 'invalid_request'],
      [await post(h, '/oauth/token', { ...passwordFields(t), grant_type: 'implicit' }), 'unsupported_grant_type'],
    ];
    for (const [r, error] of cases) {
      expect(r.status).toBe(400);
      expect(r.body.error).toBe(error);
      expect(typeof r.body.error_description).toBe('string');
      expect(r.body.meta.status).toBe(400);
      expect(r.body.access_token).toBeUndefined();
    }
  });

  test('token parameters sent in the query string are an invalid_request saying they go in the body (not "grant_type is required"); the body wins where it has them', async () => {
    const query = new URLSearchParams(passwordFields(t)).toString();
    for (const path of [`/oauth/token?${query}`, `/oauth/token?GRANT_TYPE=password`]) {
      const r = await h.request('POST', path, { raw: '', headers: FORM });
      expectRefused(r, 'invalid_request');
      expect([r.status, r.body.error_description]).toEqual([400, 'Send the token parameters (grant_type and the rest) in the request body, form-encoded, not in the query string.']);
    }
    expect((await h.request('POST', '/oauth/token?unrelated=1', { raw: '', headers: FORM })).body.error_description).toBe('grant_type is required.');
    expect((await h.request('POST', `/oauth/token?${query}`, { raw: query, headers: FORM })).status).toBe(200);
  });

  test('a body that starts as JSON but does not parse, or is no object, is an invalid_request saying so (not "grant_type is required")', async () => {
    for (const [raw, message] of [
      ['{', /^The request body is not valid JSON: /],
      [JSON.stringify(passwordFields(t)).slice(0, -1), /^The request body is not valid JSON: /],
      ['[1]', /must be form-encoded \(or a JSON object/],
      [`[${JSON.stringify(passwordFields(t))}]`, /must be form-encoded \(or a JSON object/],
    ] as const) {
      for (const headers of [{ 'content-type': 'application/json' }, FORM]) {
        const r = await h.request('POST', '/oauth/token', { raw, headers });
        expectRefused(r, 'invalid_request');
        expect([raw, r.status, r.body.error_description]).toEqual([raw, 400, expect.stringMatching(message)]);
      }
    }
  });

  test('a credential that is not one text value is an invalid_request naming it and what it is; a number is taken as its text; a JSON key sent twice is refused', async () => {
    const json = (fields: Record<string, unknown>) => h.request('POST', '/oauth/token', { body: { ...passwordFields(t), ...fields } });
    for (const [r, message] of [
      [await json({ client_id: [t.clientId, t.clientId] }), "The parameter 'client_id' must be one text value, not a JSON array."],
      [await json({ client_secret: undefined, Client_Secret: { secret: t.clientSecret } }), "The parameter 'Client_Secret' must be one text value, not a JSON object."],
      [await json({ password: [t.password] }), "The parameter 'password' must be one text value, not a JSON array."],
      [await h.request('POST', '/oauth/token', { raw: `${new URLSearchParams(passwordFields(t))}&username=${t.adminUserId}`, headers: FORM }), "The parameter 'username' must be one text value, not sent more than once."],
      [await h.request('POST', '/oauth/token', { raw: `${new URLSearchParams(passwordFields(t))}&Username=${t.adminUserId}`, headers: FORM }), "The parameter 'username' must be one text value, not sent more than once (as 'username' and 'Username')."],
      [await json({ Password: 'not it' }), "The parameter 'password' must be one text value, not sent more than once (as 'password' and 'Password')."],
      [await json({ password: 9007199254740993 }), /^The field 'password' takes text: send this value as a string/],
      [await h.request('POST', '/oauth/token', { raw: `{"grant_type":"password","client_id":"${t.clientId}","client_secret":"${t.clientSecret}","username":"admin","password":1e400}`, headers: { 'content-type': 'application/json' } }), /^The field 'password' takes text/],
    ] as const) {
      expectRefused(r, 'invalid_request');
      if (typeof message === 'string') expect(r.body.error_description).toBe(message);
      else expect(r.body.error_description).toMatch(message);
    }
    // Other keys are not read: a scope list is no refusal.
    expectToken(await json({ scope: ['vault', 'x'] }));
    // A JSON key sent twice, as a form key sent twice (JSON.parse kept the last): a parameter the
    // grants read, or any other key, at any depth. The same key in two objects is none.
    const raw = (tail: string) => h.request('POST', '/oauth/token', { raw: `${JSON.stringify(passwordFields(t)).slice(0, -1)},${tail}}`, headers: { 'content-type': 'application/json' } });
    for (const [r, message] of [
      [await raw(`"password":"not it"`), "The parameter 'password' must be one text value, not sent more than once."],
      [await raw(`"scope":"a"`), "The key 'scope' was sent 2 times in the request body: send it once, with one value."],
      [await raw(`"audience":[{"x":1},{"x":1,"x":2}]`), "The key 'audience[1].x' was sent 2 times in the request body: send it once, with one value."],
    ] as const) {
      expectRefused(r, 'invalid_request');
      expect(r.body.error_description).toBe(message);
    }
    expectToken(await raw(`"audience":[{"x":1},{"x":2}]`));
    expectRefused(await json({ password: 12345 }), 'invalid_grant');
  });

  test('a username, password or client secret longer than any account\'s is refused before anything is hashed; one at the limit logs in', async () => {
    // The app runs in this process: its argon2 is this one.
    const verify = jest.spyOn(argon2, 'verify');
    const hash = jest.spyOn(argon2, 'hash');
    const hashes = () => verify.mock.calls.length + hash.mock.calls.length;
    const admin = await h.login(t);
    const atLimit = `p${'w'.repeat(255)}`;
    const userid = `u${randomUUID().replace(/-/g, '')}`.padEnd(128, 'x');
    expect((await h.request('POST', `${t.root}/users?siteId=${t.homeSiteId}`, { token: admin, body: { userid, firstName: 'F', lastName: 'L', emailaddress: 'l@x.test', password: atLimit } })).status).toBe(200);
    expectToken(await post(h, '/oauth/token', passwordFields(t, userid, atLimit)));
    for (const [fields, message] of [
      [passwordFields(t, userid, `${atLimit}x`), 'password is longer than 256 characters, more than any account\'s can be.'],
      [passwordFields(t, `${userid}x`, atLimit), 'username is longer than 128 characters, more than any account\'s can be.'],
      [{ ...passwordFields(t), client_secret: 's'.repeat(257) }, 'client_secret is longer than 256 characters, more than any account\'s can be.'],
      [{ grant_type: 'client_credentials', username: t.clientId, password: 's'.repeat(257) }, 'password is longer than 256 characters, more than any account\'s can be.'],
      [passwordFields(t, userid, 'x'.repeat(60 * 1024)), 'password is longer than 256 characters, more than any account\'s can be.'],
    ] as const) {
      const hashed = hashes();
      const r = await post(h, '/oauth/token', fields);
      expectRefused(r, 'invalid_request');
      expect(r.body.error_description).toBe(message);
      // Cheap: no argon2 hash (about 25 ms each, hundreds for a megabyte) stands behind the answer.
      expect(hashes()).toBe(hashed);
    }
    // A megabyte is over the token endpoint's body limit: refused unread, nothing hashed either.
    const hashed = hashes();
    const megabyte = await post(h, '/oauth/token', passwordFields(t, userid, 'x'.repeat(1024 * 1024)));
    expect([megabyte.status, megabyte.body.error]).toEqual([413, 'invalid_request']);
    expect(hashes()).toBe(hashed);
    // It counts: the login at the limit verified a password.
    expect(verify).toHaveBeenCalled();
    verify.mockRestore();
    hash.mockRestore();
  });

  test('every error of the endpoint carries the OAuth keys: text that is not UTF-8, NUL in the path or query', async () => {
    const bad = Buffer.concat([Buffer.from(`${new URLSearchParams(passwordFields(t))}&x=`), Buffer.from([0xff])]);
    for (const [r, message] of [
      [await h.request('POST', '/oauth/token', { raw: new Uint8Array(bad), headers: FORM }), /request body is not valid UTF-8/],
      [await h.request('POST', '/oauth/token', { raw: `${new URLSearchParams(passwordFields(t))}`.replace('password=', 'password=%FF'), headers: FORM }), /value of 'password' has percent-escapes that are not valid UTF-8/],
      [await post(h, `/api/v1/${t.customerAlias}%00/${t.databaseAlias}/oauth/token`, passwordFields(t)), /must not contain NUL/],
      [await post(h, '/oauth/token?scope=%00', passwordFields(t)), /must not contain NUL/],
      [await post(h, '/oauth/token?scope=%FF', passwordFields(t)), /not valid UTF-8/],
    ] as const) {
      expectRefused(r, 'invalid_request');
      expect(r.status).toBe(400);
      expect(r.body.error_description).toMatch(message);
      expect(r.body.meta.errors[0].message).toBe(r.body.error_description);
    }
  });

  test('a client of tenant A on tenant B\'s address, and on an unknown tenant\'s, fails alike', async () => {
    const b = await h.tenant();
    const onB = await post(h, `${b.root}/oauth/token`, passwordFields(t));
    expectRefused(onB);
    const cc = await post(h, `${b.root}/oauth/token`, { grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret });
    expectRefused(cc);
    const nowhere = await post(h, `/api/v1/no-such-customer/no-such-db/oauth/token`, passwordFields(t));
    expectRefused(nowhere);
    expect(nowhere.status).toBe(onB.status);
    expect(nowhere.body.error).toBe(onB.body.error);
  });
});

describe('login throttling', () => {
  let hl: Harness;
  let tl: TestTenant;
  beforeAll(async () => {
    hl = await Harness.start({ loginMaxFailures: 3, loginLockSeconds: 60 });
    tl = await hl.tenant();
  });
  afterAll(() => hl.stop());

  test('after LOGIN_MAX_FAILURES wrong passwords the next attempt is a 429 with retryTime, even with the right password', async () => {
    const admin = await hl.login(tl);
    const u = await newUser(tl, admin, hl);
    for (let i = 0; i < 2; i++) expectRefused(await post(hl, '/oauth/token', passwordFields(tl, u.userid, 'wrong')), 'invalid_grant');
    // The failure that reaches the limit answers 429 itself: the lock starts with it.
    const third = await post(hl, '/oauth/token', passwordFields(tl, u.userid, 'wrong'));
    expect(third.status).toBe(429);
    expect(third.body.meta.errors[0].code).toBe('TOO_MANY_REQUESTS');
    for (const password of ['wrong', u.password]) {
      const r = await post(hl, '/oauth/token', passwordFields(tl, u.userid, password));
      expect(r.status).toBe(429);
      expect(r.body.meta.status).toBe(429);
      expect(r.body.meta.errors[0]).toMatchObject({ code: expect.any(String), message: expect.any(String), developerMessage: expect.any(String) });
      expect(r.body.access_token).toBeUndefined();
      const retry = Date.parse(r.body.meta.retryTime);
      expect(Number.isNaN(retry)).toBe(false);
      expect(r.body.meta.retryTime).toMatch(/(Z|[+-]\d{2}:?\d{2})$/);
      expect(retry).toBeGreaterThan(Date.now());
      expect(retry).toBeLessThanOrEqual(Date.now() + 61_000);
    }
    // The lock is per user: the administrator still logs in.
    expectToken(await post(hl, '/oauth/token', passwordFields(tl)));
  });

  test('a user name that no user has locks as one that does, so the lock-out tells nobody which names exist; any case is one name', async () => {
    const admin = await hl.login(tl);
    const u = await newUser(tl, admin, hl);
    const answers = async (name: string) => {
      const out: number[] = [];
      for (let i = 0; i < 4; i++) out.push((await post(hl, '/oauth/token', passwordFields(tl, i % 2 ? name.toUpperCase() : name, 'wrong'))).status);
      return out;
    };
    const known = await answers(u.userid);
    expect(await answers(`nobody-${u.userid}`)).toEqual(known);
    expect(known).toEqual([400, 400, 429, 429]);
  });

  test('a successful login resets the count', async () => {
    const admin = await hl.login(tl);
    const u = await newUser(tl, admin, hl);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2; i++) expectRefused(await post(hl, '/oauth/token', passwordFields(tl, u.userid, 'wrong')));
      expectToken(await post(hl, '/oauth/token', passwordFields(tl, u.userid, u.password)));
    }
  });

  test('the lock ends after LOGIN_LOCK_SECONDS', async () => {
    const hs = await Harness.start({ loginMaxFailures: 2, loginLockSeconds: 1 });
    try {
      const ts = await hs.tenant();
      const admin = await hs.login(ts);
      const u = await newUser(ts, admin, hs);
      for (let i = 0; i < 2; i++) await post(hs, '/oauth/token', passwordFields(ts, u.userid, 'wrong'));
      const locked = await post(hs, '/oauth/token', passwordFields(ts, u.userid, u.password));
      expect(locked.status).toBe(429);
      const wait = Date.parse(locked.body.meta.retryTime) - Date.now();
      await new Promise((r) => setTimeout(r, Math.max(0, wait) + 100));
      expectToken(await post(hs, '/oauth/token', passwordFields(ts, u.userid, u.password)));
    } finally {
      await hs.stop();
    }
  });
});

describe('bearer tokens', () => {
  const claims = () => ({ userId: t.adminId, tenantId: t.tenantId, clientId: t.clientId, sessionEpoch: 0, sessionExpires: Math.floor(Date.now() / 1000) + 3600 });

  function expect401(r: Reply) {
    expect(r.status).toBe(401);
    expect(r.body.meta.status).toBe(401);
    expect(r.body).not.toHaveProperty('data');
    expect(r.body.meta.errors[0]).toMatchObject({ code: 'UNAUTHORIZED', message: expect.any(String), developerMessage: expect.any(String) });
    // RFC 9110 11.6.1: every 401 names its scheme.
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="quire"/);
  }

  test("a 401 carries the bearer challenge, with invalid_token and the message when a token was refused, by REST and /graphql (RFC 6750 3)", async () => {
    const bare = 'Bearer realm="quire"';
    const refused = (message: string) => `${bare}, error="invalid_token", error_description="${message}"`;
    const old = (await signAccessToken(h.services.keys, { ...h.services.jwt, ttlSeconds: -120 }, claims())).token;
    const expired = refused('The access token has expired: request a new one.');
    const query = JSON.stringify({ query: '{ me { id } }' });
    const json = { 'content-type': 'application/json' };
    const cases: [string, Promise<Reply>, string][] = [
      ['REST, no token', h.request('GET', `${t.root}/users/me`), bare],
      ['REST, not Bearer', h.request('GET', `${t.root}/users/me`, { headers: { authorization: 'Basic YTpi' } }), bare],
      ['REST, garbage', h.request('GET', `${t.root}/users/me`, { token: 'abc' }), refused('The access token is invalid.')],
      ['REST, expired', h.request('GET', `${t.root}/users/me`, { token: old }), expired],
      ['REST with a body, expired', h.request('POST', `${t.root}/sites`, { token: old, body: { name: 'x' } }), expired],
      ['/graphql POST, no token', h.request('POST', '/graphql', { raw: query, headers: json }), bare],
      ['/graphql POST, expired', h.request('POST', '/graphql', { token: old, raw: query, headers: json }), expired],
      ['/graphql GET, expired', h.request('GET', `/graphql?query=${encodeURIComponent('{ me { id } }')}`, { token: old, headers: { accept: 'application/json' } }), expired],
    ];
    for (const [name, reply, challenge] of cases) {
      const r = await reply;
      expect([name, r.status, r.headers.get('www-authenticate')]).toEqual([name, 401, challenge]);
    }
  });

  test('a token the service signed works', async () => {
    const good = await signAccessToken(h.services.keys, h.services.jwt, claims());
    expect(await whoAmI(good.token)).toBe(t.adminId);
  });

  test('an expired token is a 401 that says so', async () => {
    const old = await signAccessToken(h.services.keys, { ...h.services.jwt, ttlSeconds: -120 }, claims());
    const r = await h.request('GET', `${t.root}/users/me`, { token: old.token });
    expect401(r);
    expect(r.body.meta.errors[0].message).toMatch(/expired/i);
    expect401(await h.request('GET', `${t.root}/users/getjwt`, { token: old.token }));
    // The token is checked before the arguments: a client learns its token expired whatever else it got wrong.
    for (const path of ['/sites/not-a-guid', '/sites?limit=-1', '/users/me?q=x', `/users?limit=1&limit=2`]) {
      const wrong = await h.request('GET', `${t.root}${path}`, { token: old.token });
      expect([path, wrong.status]).toEqual([path, 401]);
      expect(wrong.body.meta.errors[0].message).toMatch(/expired/i);
      expect([path, (await h.request('GET', `${t.root}${path}`)).status]).toEqual([path, 401]);
    }
  });

  test('a token from a harness with a short TTL expires by that TTL', async () => {
    const hs = await Harness.start({ accessTokenTtlSeconds: 60 });
    try {
      const r = await post(hs, '/oauth/token', passwordFields(t));
      expectToken(r);
      expect(r.body.expires_in).toBe(60);
      const jwt = await hs.request('GET', `${t.root}/users/getjwt`, { token: r.body.access_token });
      expect(jwt.status).toBe(200);
      const left = Date.parse(jwt.body.data.expires) - Date.now();
      expect(left).toBeGreaterThan(50_000);
      expect(left).toBeLessThanOrEqual(61_000);
    } finally {
      await hs.stop();
    }
  });

  test('missing and malformed Authorization headers are 401s', async () => {
    expect401(await h.request('GET', `${t.root}/users/me`));
    const good = await h.login(t);
    for (const header of ['Bearer', 'Bearer ', 'Bearer abc', 'Bearer a.b.c', `Basic ${good}`, good, `Bearer ${good}x`, `Bearer ${good.slice(0, -4)}`, 'Bearer ' + 'x'.repeat(5000), `Bearer ${good} extra`]) {
      const r = await h.request('GET', `${t.root}/users/me`, { headers: { authorization: header } });
      expect401(r);
    }
    // The scheme is case-insensitive.
    const lower = await h.request('GET', `${t.root}/users/me`, { headers: { authorization: `bearer ${good}` } });
    expect(lower.status).toBe(200);
  });

  test('a token signed by a different key is a 401, whatever kid it names', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    for (const kid of [h.services.keys.current.kid, randomUUID()]) {
      const forged = await new SignJWT({ tid: t.tenantId, cid: t.clientId, adm: true })
        .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
        .setIssuer(h.services.jwt.issuer)
        .setAudience(h.services.jwt.audience)
        .setSubject(t.adminId)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey);
      expect401(await h.request('GET', `${t.root}/users/me`, { token: forged }));
    }
    // An HMAC token keyed with something public, and an unsigned one.
    const hs = await new SignJWT({ tid: t.tenantId, cid: t.clientId, adm: true })
      .setProtectedHeader({ alg: 'HS256', kid: h.services.keys.current.kid })
      .setIssuer(h.services.jwt.issuer)
      .setAudience(h.services.jwt.audience)
      .setSubject(t.adminId)
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(h.services.keys.current.kid));
    expect401(await h.request('GET', `${t.root}/users/me`, { token: hs }));
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: t.adminId, tid: t.tenantId, cid: t.clientId, adm: true, iss: h.services.jwt.issuer, aud: h.services.jwt.audience, exp: Math.floor(Date.now() / 1000) + 600 })}.`;
    expect401(await h.request('GET', `${t.root}/users/me`, { token: none }));
  });

  test('a token for another issuer or audience, or without its claims, is a 401', async () => {
    const ring = h.services.keys;
    expect401(await h.request('GET', `${t.root}/users/me`, { token: (await signAccessToken(ring, { ...h.services.jwt, issuer: 'someone-else' }, claims())).token }));
    expect401(await h.request('GET', `${t.root}/users/me`, { token: (await signAccessToken(ring, { ...h.services.jwt, audience: 'other-api' }, claims())).token }));
    const noTenant = await new SignJWT({ cid: t.clientId })
      .setProtectedHeader({ alg: 'EdDSA', kid: ring.current.kid })
      .setIssuer(h.services.jwt.issuer)
      .setAudience(h.services.jwt.audience)
      .setSubject(t.adminId)
      .setExpirationTime('10m')
      .sign(ring.current.key);
    expect401(await h.request('GET', `${t.root}/users/me`, { token: noTenant }));
  });

  test('a token of another tenant is a 403 with no data', async () => {
    const other = await h.tenant();
    const foreign = await h.login(other);
    for (const path of ['/users/me', '/users', '/sites', '/groups', `/users/${t.adminId}`, '/users/getjwt', '/configuration/docapi']) {
      const r = await h.request('GET', `${t.root}${path}`, { token: foreign });
      expect([path, r.status]).toEqual([path, 403]);
      expect(r.body.meta.status).toBe(403);
      expect(r.body).not.toHaveProperty('data');
      expect(r.text).not.toMatch(/userid|firstName|Administrators|Home/);
    }
    // Before its arguments are checked, too: a malformed id on another tenant's path is no 400.
    for (const path of ['/sites/not-a-guid', '/groups?offset=x']) {
      expect([path, (await h.request('GET', `${t.root}${path}`, { token: foreign })).status]).toEqual([path, 403]);
    }
    // A tenant that does not exist at all answers the same.
    const r = await h.request('GET', `/api/v1/no-such/tenant/users/me`, { token: foreign });
    expect(r.status).toBe(403);
    expect(r.body).not.toHaveProperty('data');
  });

  test(`getjwt's audience: named in the token beside ours, and a 400 past ${MAX_AUDIENCE} characters (a token too large for a request's headers could never be used)`, async () => {
    const login = await post(h, '/OAuth/Token', passwordFields(t));
    const longest = `https://${'a'.repeat(MAX_AUDIENCE - 13)}.test`;
    const jwt = await h.request('GET', `${t.root}/users/getjwt?audience=${encodeURIComponent(longest)}`, { token: login.body.access_token });
    expect(jwt.status).toBe(200);
    expect(decodeJwt(jwt.body.data.token).aud).toEqual([expect.any(String), longest]);
    expect(await whoAmI(jwt.body.data.token)).toBe(t.adminId);
    const r = await h.request('GET', `${t.root}/users/getjwt?audience=${encodeURIComponent(`${longest}x`)}`, { token: login.body.access_token });
    expect([r.status, r.body.meta.errors[0].message]).toEqual([400, `'audience' is longer than ${MAX_AUDIENCE} characters: it names the service the token is for.`]);
  });

  test('the JWT from getjwt and the access token from a refresh both work as bearer tokens', async () => {
    const login = await post(h, '/OAuth/Token', passwordFields(t));
    const jwt = await h.request('GET', `${t.root}/users/getjwt`, { token: login.body.access_token });
    expect(jwt.status).toBe(200);
    expect(await whoAmI(jwt.body.data.token)).toBe(t.adminId);
    const refreshed = await post(h, '/OAuth/Token', { grant_type: 'refresh_token', refresh_token: login.body.refresh_token, client_id: t.clientId, client_secret: t.clientSecret });
    expectToken(refreshed);
    expect(await whoAmI(refreshed.body.access_token)).toBe(t.adminId);
  });
});
