/**
 * A user's lock-out counts every spelling that finds the user as one name: the user is found with
 * PostgreSQL's lower(), so the lock key's name is lower-cased there too, not by JavaScript (which
 * turns U+0130 İ into "i" and a combining dot, a name of its own).
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

/** Each test from an address of its own, so that none shares a counter with another. */
const newAddress = () => `2001:db8:7e57::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

function login(username: string, password: string, from: string): Promise<Reply> {
  const fields = { grant_type: 'password', client_id: api.t.clientId, client_secret: api.t.clientSecret, username, password };
  return h.request('POST', '/oauth/token', { raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' }, from });
}

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
