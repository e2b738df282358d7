/**
 * One transaction per mutation, and concurrent changes of the same thing: each ends with one
 * winner and a 404 or 409 (or the loser's own 401/403 when the winner took its rights), never a
 * 500. The Administrators group keeps an enabled member; an API client's owner stays.
 */
import { Harness, type Reply } from '../harness.js';
import { adminApi, Api, createGroup, createUser, createUsers, expectError, uniq, type UserFixture } from './support.js';

let h: Harness;

beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.stop());

const form = (fields: Record<string, string>) => ({
  raw: new URLSearchParams(fields).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

/** The tenant's Administrators group id. */
async function adminGroupOf(api: Api): Promise<string> {
  const r = await api.get(`/groups?q=${encodeURIComponent("name eq 'Administrators'")}`);
  return r.body.data[0].id;
}

async function memberIds(api: Api, groupId: string): Promise<string[]> {
  return (await api.get(`/groups/${groupId}/users`)).body.data.map((u: { id: string }) => u.id).sort();
}

/** Another administrator of the tenant, logged in. */
async function secondAdmin(api: Api, groupId: string): Promise<UserFixture & { api: Api }> {
  const u = await createUser(api);
  expect((await api.put(`/groups/${groupId}/users/${u.id}`)).status).toBe(201);
  return { ...u, api: api.as(await h.login(api.t, u.userid, u.password)) };
}

/** Every answer an envelope with one of `allowed` statuses (never a 5xx). */
function expectOneOf(r: Reply, allowed: number[]) {
  expect(r.body?.meta?.status).toBe(r.status);
  expect({ allowed, status: r.status, text: allowed.includes(r.status) ? '' : r.text }).toEqual({ allowed, status: expect.any(Number), text: '' });
}

test('adding a member while the user is being deleted, 40 rounds at once: 201 or 404, never a 500', async () => {
  const A = await adminApi(h);
  const g = await createGroup(A);
  const users = await createUsers(A, 40);
  const rounds = await Promise.all(users.map((u) => Promise.all([A.put(`/groups/${g.id}/users/${u.id}`), A.del(`/users/${u.id}`)])));
  for (const [add, del] of rounds) {
    expectOneOf(add, [201, 404]);
    expect(del.status).toBe(200);
  }
  // Deleted users leave no membership behind, whichever came first.
  expect(await memberIds(A, g.id)).toEqual([]);
});

test('two administrators removing each other at once leave exactly one, 9 rounds', async () => {
  const A = await adminApi(h);
  const admins = await adminGroupOf(A);
  const other = await secondAdmin(A, admins);
  for (let round = 0; round < 9; round++) {
    const [mine, theirs] = await Promise.all([A.del(`/groups/${admins}/users/${other.id}`), other.api.del(`/groups/${admins}/users/${A.t.adminId}`)]);
    const statuses = [mine.status, theirs.status].sort();
    // One wins; the other is refused as the last one (409), or has already lost its rights (403).
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const left = await memberIds(A, admins);
    expect(left).toHaveLength(1);
    // Whoever is left puts the other back for the next round.
    const winner = left[0] === A.t.adminId ? A : other.api;
    const loser = left[0] === A.t.adminId ? other.id : A.t.adminId;
    expect((await winner.put(`/groups/${admins}/users/${loser}`)).status).toBe(201);
  }
});

test('the last enabled administrator cannot leave: disabled members do not count', async () => {
  const A = await adminApi(h);
  const admins = await adminGroupOf(A);
  const idle = await createUser(A);
  expect((await A.put(`/groups/${admins}/users/${idle.id}`)).status).toBe(201);
  expect((await A.put(`/users/${idle.id}`, { enabled: false })).status).toBe(200);
  expectError(await A.del(`/groups/${admins}/users/${A.t.adminId}`), 409, /at least one member whose account is enabled/);
  expect(await memberIds(A, admins)).toEqual([A.t.adminId, idle.id].sort());
  // With another enabled member, leaving is fine.
  expect((await A.put(`/users/${idle.id}`, { enabled: true })).status).toBe(200);
  expect((await A.del(`/groups/${admins}/users/${A.t.adminId}`)).status).toBe(200);
});

test('two administrators disabling each other at once leave one enabled, 5 rounds', async () => {
  let A = await adminApi(h);
  const admins = await adminGroupOf(A);
  const other = await secondAdmin(A, admins);
  for (let round = 0; round < 5; round++) {
    const [mine, theirs] = await Promise.all([A.put(`/users/${other.id}`, { enabled: false }), other.api.put(`/users/${A.t.adminId}`, { enabled: false })]);
    const statuses = [mine.status, theirs.status].sort();
    // The loser is refused as the last one (409), or its session or rights ended first (401/403).
    expect(statuses[0]).toBe(200);
    expect([401, 403, 409]).toContain(statuses[1]);
    const enabled = await h.services.reads.query(
      `select u.id from group_member m join app_user u on u.tenant_id = m.tenant_id and u.id = m.user_id where m.tenant_id = $1 and m.group_id = $2 and u.enabled`,
      [A.t.tenantId, admins],
    );
    expect(enabled.rowCount).toBe(1);
    // The one left enables the other again, who logs in afresh (disabling ended its sessions).
    const aWon = enabled.rows[0].id === A.t.adminId;
    const winner = aWon ? A : other.api;
    expect((await winner.put(`/users/${aWon ? other.id : A.t.adminId}`, { enabled: true })).status).toBe(200);
    if (aWon) other.api = A.as(await h.login(A.t, other.userid, other.password));
    else A = A.as(await h.login(A.t));
  }
});

test('two administrators deleting each other at once leave one, and the Administrators group is never empty', async () => {
  const A = await adminApi(h);
  const admins = await adminGroupOf(A);
  const x = await secondAdmin(A, admins);
  const y = await secondAdmin(A, admins);
  // The tenant's first admin owns the API client: out of the group, x and y are its only administrators.
  expect((await x.api.del(`/groups/${admins}/users/${A.t.adminId}`)).status).toBe(200);
  const [xy, yx] = await Promise.all([x.api.del(`/users/${y.id}`), y.api.del(`/users/${x.id}`)]);
  const statuses = [xy.status, yx.status].sort();
  expect(statuses[0]).toBe(200);
  expect([401, 403, 409]).toContain(statuses[1]);
  expect(await memberIds(A, admins)).toHaveLength(1);
});

test('deleting the user who owns the API client is a 409 naming the client, and the client keeps working', async () => {
  const A = await adminApi(h);
  const other = await secondAdmin(A, await adminGroupOf(A));
  expectError(await other.api.del(`/users/${A.t.adminId}`), 409, new RegExp(`API client 'default' \\(${A.t.clientId}\\)`));
  expect((await A.get(`/users/${A.t.adminId}`)).status).toBe(200);
  const grant = await h.request('POST', '/oauth/token', form({ grant_type: 'client_credentials', client_id: A.t.clientId, client_secret: A.t.clientSecret }));
  expect(grant.status).toBe(200);
});

test('a mutation that fails part-way changes nothing: a password with a taken userid keeps the old password and sessions', async () => {
  const A = await adminApi(h);
  const u = await createUser(A);
  const taken = await createUser(A);
  const login = await h.request('POST', '/oauth/token', form({ grant_type: 'password', client_id: A.t.clientId, client_secret: A.t.clientSecret, username: u.userid, password: u.password }));
  expect(login.status).toBe(200);
  expectError(await A.put(`/users/${u.id}`, { password: `pw-${uniq('n')}`, userid: taken.userid }), 409, /already exists/);
  // The password change and the refresh tokens' revocation were rolled back with the failure.
  const refresh = await h.request('POST', '/oauth/token', form({ grant_type: 'refresh_token', refresh_token: login.body.refresh_token }));
  expect(refresh.status).toBe(200);
  expect(await h.login(A.t, u.userid, u.password)).toBeTruthy();
});

test('deleting a site while a user moves into it: 200 or 409 for the delete, never a 500, 10 rounds', async () => {
  const A = await adminApi(h);
  const u = await createUser(A);
  for (let round = 0; round < 10; round++) {
    const site = await A.post('/sites', { name: uniq('s'), description: 'd' });
    const [move, del] = await Promise.all([
      A.put('/sites/changeusersite', { userId: u.id, newSiteId: site.body.data.id }),
      A.del(`/sites/${site.body.data.id}`),
    ]);
    expectOneOf(del, [200, 409]);
    expectOneOf(move, [200, 400, 404]);
    // Both cannot have succeeded: the user is never left in a deleted site.
    expect(move.status === 200 && del.status === 200).toBe(false);
    if (move.status === 200) expect((await A.put('/sites/changeusersite', { userId: u.id, newSiteId: A.t.homeSiteId })).status).toBe(200);
  }
});
