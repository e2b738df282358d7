/**
 * The grants' security rules under races and on accounts that may not log in: of concurrent uses
 * of one refresh token exactly one gets a token and the reuse revokes the family, the winner's new
 * token included; a disabled or expired account answers any password as a wrong one, and counts it.
 */
import { Harness, type Reply } from '../harness.js';
import { adminApi, createUser, type Api } from '../rest/support.js';

let h: Harness;
let api: Api;

beforeAll(async () => {
  h = await Harness.start({ loginMaxFailures: 5, loginLockSeconds: 60 });
  api = await adminApi(h);
});
afterAll(() => h.stop());

const form = (fields: Record<string, string>) => ({ raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

function login(username: string, password: string): Promise<Reply> {
  return h.request('POST', '/oauth/token', form({ grant_type: 'password', client_id: api.t.clientId, client_secret: api.t.clientSecret, username, password }));
}

const refresh = (token: string) => h.request('POST', '/oauth/token', form({ grant_type: 'refresh_token', refresh_token: token }));

function expectInvalidGrant(r: Reply) {
  expect(r.status).toBe(400);
  expect(r.body.error).toBe('invalid_grant');
  expect(r.body.access_token).toBeUndefined();
}

describe('a refresh token used several times at once', () => {
  test.each([2, 10])('%i at once, five times over: exactly one gets a token, and the reuse leaves no token of the family alive', async (n) => {
    const u = await createUser(api);
    for (let round = 0; round < 5; round++) {
      const first = await login(u.userid, u.password);
      expect(first.status).toBe(200);
      const replies = await Promise.all(Array.from({ length: n }, () => refresh(first.body.refresh_token)));
      const winners = replies.filter((r) => r.status === 200);
      expect(winners).toHaveLength(1);
      for (const r of replies.filter((x) => x.status !== 200)) expectInvalidGrant(r);
      // Someone else held a copy: the holder of the winning token is logged out too and logs in again.
      expectInvalidGrant(await refresh(winners[0].body.refresh_token));
      expectInvalidGrant(await refresh(first.body.refresh_token));
    }
    const again = await login(u.userid, u.password);
    expect(again.status).toBe(200);
    expect((await refresh(again.body.refresh_token)).status).toBe(200);
  });
});

describe('a disabled or expired account', () => {
  /** What a client sees of a refusal: all but the envelope's per-request parts. */
  const seen = (r: Reply) => ({ status: r.status, error: r.body.error, error_description: r.body.error_description, errors: r.body.meta?.errors, token: r.body.access_token });
  const past = new Date(Date.now() - 60_000).toISOString();

  test.each([
    ['disabled', { enabled: false }, { enabled: true }],
    ['expired', { userIdNeverExpires: false, userIdExpires: past }, { userIdNeverExpires: true }],
  ])('%s: the right password is answered as a wrong one, counts as a failure and resets no count', async (_, close, reopen) => {
    const u = await createUser(api);
    const wrong = seen(await login(u.userid, 'wrong'));
    expect(wrong).toMatchObject({ status: 400, error: 'invalid_grant', error_description: 'Invalid username or password.', token: undefined });
    expect((await api.put(`/users/${u.id}`, close)).status).toBe(200);
    // Failures 2 and 3, with the right password: nothing tells it from a wrong one, and the count goes on.
    for (let i = 0; i < 2; i++) expect(seen(await login(u.userid, u.password))).toEqual(wrong);
    expect(seen(await login(u.userid, 'wrong'))).toEqual(wrong);
    // The fifth failure, the right password again, reaches LOGIN_MAX_FAILURES: the lock starts.
    expect((await login(u.userid, u.password)).status).toBe(429);
    // Opened again, the account is still locked out here: its failures were counted, none was reset.
    expect((await api.put(`/users/${u.id}`, reopen)).status).toBe(200);
    expect((await login(u.userid, u.password)).status).toBe(429);
  });

  test.each([
    ['disabled', { enabled: false }, { enabled: true }],
    ['expired', { userIdNeverExpires: false, userIdExpires: past }, { userIdNeverExpires: true }],
  ])('%s and opened again before the lock: the right password logs in', async (_, close, reopen) => {
    const u = await createUser(api);
    expect((await api.put(`/users/${u.id}`, close)).status).toBe(200);
    expect((await login(u.userid, u.password)).status).toBe(400);
    expect((await api.put(`/users/${u.id}`, reopen)).status).toBe(200);
    expect((await login(u.userid, u.password)).status).toBe(200);
  });
});
