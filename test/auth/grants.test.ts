/**
 * The grants' security rules under races, on accounts that may not log in and against spellings:
 * of concurrent uses of one refresh token exactly one gets a token and the reuse revokes the
 * family, the winner's new token included; a disabled or expired account answers any password as
 * a wrong one, and counts it; a lock-out counts every spelling that finds the user as one name
 * (the user is found with PostgreSQL's lower(), so the lock key's name is lower-cased there too,
 * not by JavaScript, which turns U+0130 İ into "i" and a combining dot, a name of its own).
 */
import { randomBytes } from 'node:crypto';
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

/** A password login, from `from` when given (a lock-out test's own address, so no counter is shared). */
function login(username: string, password: string, from?: string): Promise<Reply> {
  return h.request('POST', '/oauth/token', { ...form({ grant_type: 'password', client_id: api.t.clientId, client_secret: api.t.clientSecret, username, password }), from });
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

describe('lock-out keys', () => {
  /** Each test from an address of its own, so that none shares a counter with another. */
  const newAddress = () => `2001:db8:7e57::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

  const suffix = () => randomBytes(3).toString('hex').replace(/[a-f]/g, '7');
  /** "mİke": the database lower-cases U+0130 to "i", so it finds "mike". */
  const dotted = (name: string) => name.replace(/i/g, 'İ');

  test.each([
    ['mike', (n: string) => n],
    ['mİke', dotted],
  ])('locked out as %s, every spelling that finds the user is locked out too, the right password included', async (_, lockWith) => {
    const u = await createUser(api, undefined, `mikie-${suffix()}`);
    const from = newAddress();
    expect((await login(dotted(u.userid), u.password, from)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await login(lockWith(u.userid), 'wrong', from)).status).toBe(400);
    expect((await login(lockWith(u.userid), 'wrong', from)).status).toBe(429);
    for (const name of [u.userid, dotted(u.userid), u.userid.toUpperCase(), u.userid[0].toUpperCase() + u.userid.slice(1), `M${dotted(u.userid).slice(1)}`]) {
      for (const password of ['wrong', u.password]) {
        const r = await login(name, password, from);
        expect({ name, status: r.status }).toEqual({ name, status: 429 });
        expect(r.body.access_token).toBeUndefined();
      }
    }
  });

  test('spellings of a name no user has share one counter as well', async () => {
    const name = `nobody-mikie-${suffix()}`;
    const from = newAddress();
    const spellings = [name, dotted(name), name.toUpperCase(), name];
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await login(spellings[i % spellings.length], 'wrong', from)).status);
    expect(statuses).toEqual([400, 400, 400, 400, 429, 429]);
  });
});
