/**
 * Sessions end with their account: disabling, deleting and a password change refuse the user's
 * tokens on the next request (REST and /graphql, reads and writes), renewals included; a renewal
 * never goes past the login's session; a rehash at login is not a password change. The check
 * costs the hot path no statement of its own.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { Harness, type Reply } from '../harness.js';
import { adminApi, createUser, ordinaryUser, UNKNOWN_ID, whileHeld, ZERO_GUID, type Api } from './support.js';

let h: Harness;
let admin: Api;

beforeAll(async () => {
  h = await Harness.start();
  admin = await adminApi(h);
});
afterAll(() => h.stop());

/** An ended session's token is refused as any other (RFC 6750 3): the challenge says so. */
const expectChallenge = (r: Reply) => expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="quire", error="invalid_token", error_description=".*session has ended/);

function expectEnded(r: Reply) {
  expect(r.status).toBe(401);
  expectChallenge(r);
  expect(r.body.meta.errors[0]).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/session has ended/) });
  expect(r.body.data).toBeUndefined();
}

async function graphql(token: string, query: string) {
  return h.request('POST', '/graphql', { token, body: { query } });
}

/** Every kind of request the token could make: a read with rows, one without, a renewal, a write, /graphql. */
async function expectAllRefused(user: { id: string; token: string }) {
  const as = admin.as(user.token);
  expectEnded(await as.get('/users/me'));
  expectEnded(await as.get('/sites'));
  expectEnded(await as.get(`/sites/${UNKNOWN_ID}`));
  expectEnded(await as.get('/users/getjwt'));
  expectEnded(await as.put(`/users/${user.id}`, { newPassword: 'x-Another-1!', oldPassword: 'whatever' }));
  // Whatever else it got wrong: arguments refused before the operation runs are told the session ended first.
  for (const path of ['/sites/not-a-guid', '/sites?limit=-1', '/users?limit=1&limit=2']) expectEnded(await as.get(path));
  expectEnded(await as.put('/documents/not-a-guid/status', { checkIn: 2 }));
  const g = await graphql(user.token, '{ me { id } }');
  // A 401 under application/json too, where other execution errors are a 200: the token is what failed.
  expect(g.status).toBe(401);
  expectChallenge(g);
  expect(g.body.data?.me ?? null).toBeNull();
  expect(g.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
}

async function refreshToken(userid: string, password: string) {
  const r = await h.request('POST', '/oauth/token', {
    raw: new URLSearchParams({ grant_type: 'password', client_id: admin.t.clientId, client_secret: admin.t.clientSecret, username: userid, password }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(r.status).toBe(200);
  return r.body.refresh_token as string;
}

async function refresh(token: string) {
  return h.request('POST', '/oauth/token', {
    raw: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

test('a live session reads as before', async () => {
  const u = await ordinaryUser(admin);
  const me = await admin.as(u.token).get('/users/me');
  expect(me.status).toBe(200);
  expect(me.body.data.id).toBe(u.id);
  expect((await admin.as(u.token).get(`/sites/${UNKNOWN_ID}`)).status).toBe(404);
});

test('disabling a user ends their sessions at once, refresh tokens included; enabling again does not revive them', async () => {
  const u = await ordinaryUser(admin);
  const refreshing = await refreshToken(u.userid, u.password);
  expect((await admin.put(`/users/${u.id}`, { enabled: false })).status).toBe(200);
  await expectAllRefused(u);
  expect((await admin.put(`/users/${u.id}`, { enabled: true })).status).toBe(200);
  await expectAllRefused(u);
  expect((await refresh(refreshing)).status).toBe(400);
  // A new login works.
  expect((await admin.as(await h.login(admin.t, u.userid, u.password)).get('/users/me')).status).toBe(200);
});

test('deleting a user ends their sessions', async () => {
  const u = await ordinaryUser(admin);
  expect((await admin.del(`/users/${u.id}`)).status).toBe(200);
  await expectAllRefused(u);
});

test("a password change ends the user's sessions and renewals, not the administrator's who made it", async () => {
  const u = await ordinaryUser(admin);
  const refreshing = await refreshToken(u.userid, u.password);
  const renewed = await admin.as(u.token).get('/users/getjwt');
  expect(renewed.status).toBe(200);
  const r = await admin.put(`/users/${u.id}/password`, { newPassword: 'New-Passw0rd-1' });
  expect(r.status).toBe(200);
  await expectAllRefused(u);
  await expectAllRefused({ id: u.id, token: renewed.body.data.token });
  expect((await refresh(refreshing)).status).toBe(400);
  expect((await admin.get('/users/me')).status).toBe(200);
  expect((await admin.as(await h.login(admin.t, u.userid, 'New-Passw0rd-1')).get('/users/me')).status).toBe(200);
});

test('a renewal racing a password reset or disable waits for it and is refused: the user row is taken before the token, in the order the change takes them', async () => {
  const u = await ordinaryUser(admin);
  const refreshing = await refreshToken(u.userid, u.password);
  // What PUT users/{id}/password and a disable do, in their order: the user's row, then their tokens.
  // The renewal had marked its token and waited for the user's row to insert the next: the revoke
  // waited for the token, and PostgreSQL broke the deadlock after a second (the renewal's 409, or the change's).
  const r = await whileHeld(
    h,
    { text: 'select 1 from app_user where tenant_id = $1 and id = $2 for update', values: [admin.t.tenantId, u.id] },
    () => refresh(refreshing),
    { text: 'update refresh_token set revoked_at = now() where tenant_id = $1 and user_id = $2 and revoked_at is null', values: [admin.t.tenantId, u.id] },
  );
  expect([r.status, r.body.error]).toEqual([400, 'invalid_grant']);
  const live = await h.services.reads.query('select count(*)::int as n from refresh_token where tenant_id = $1 and user_id = $2 and revoked_at is null', [admin.t.tenantId, u.id]);
  expect(live.rows[0].n).toBe(0);
});

describe("the user's account deleted while their request runs: what the request would answer after the delete", () => {
  const holdUser = (id: string) => ({ text: 'select 1 from app_user where tenant_id = $1 and id = $2 for update', values: [admin.t.tenantId, id] });
  const deleteUser = (id: string) => ({ text: 'delete from app_user where tenant_id = $1 and id = $2', values: [admin.t.tenantId, id] });

  test('a login: invalid_grant (it was a 404 invalid_request, "the user referred to was not found")', async () => {
    const u = await createUser(admin);
    // The login has read the user and checked the password; its refresh token's key waits for the user's row.
    const r = await whileHeld(
      h,
      holdUser(u.id),
      () => h.request('POST', '/oauth/token', {
        raw: new URLSearchParams({ grant_type: 'password', client_id: admin.t.clientId, client_secret: admin.t.clientSecret, username: u.userid, password: u.password }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      deleteUser(u.id),
    );
    expect([r.status, r.body.error, r.body.error_description]).toEqual([400, 'invalid_grant', 'Invalid username or password.']);
  });

  test('a read of a document, which counts the user opening it: 401, the session ended (it was a 404 for a document that is there)', async () => {
    const u = await ordinaryUser(admin);
    const folder = (await admin.post('/folders', { name: `Gone-${u.userid}` })).body.data;
    const doc = (await admin.post('/documents', { folderId: folder.id, name: 'read' })).body.data;
    expectEnded(await whileHeld(h, holdUser(u.id), () => admin.as(u.token).get(`/documents/${doc.id}`), deleteUser(u.id)));
    expect((await admin.get(`/documents/${doc.id}`)).status).toBe(200);
  });

  /** An ordinary user with the Publisher role on a folder of their own, and a document in it. */
  async function publisher() {
    const u = await ordinaryUser(admin);
    const folder = (await admin.post('/folders', { name: `Gone-${u.userid}` })).body.data;
    expect((await admin.put(`/folders/${folder.id}/securitymembers/${u.id}`, { securityRole: 2 })).status).toBe(200);
    const doc = (await admin.post('/documents', { folderId: folder.id, name: 'held' })).body.data;
    return { u, folder, doc, as: admin.as(u.token) };
  }

  test('a check-out, waiting for the document: 401, the session ended (it was a 404 for a document that is there, or the role the delete took)', async () => {
    const { u, doc, as } = await publisher();
    const holdDoc = { text: 'select 1 from document where tenant_id = $1 and id = $2 for update', values: [admin.t.tenantId, doc.documentId] };
    expectEnded(await whileHeld(h, holdDoc, () => as.put(`/documents/${doc.documentId}/status`, { checkIn: 1 }), deleteUser(u.id)));
    expect((await admin.get(`/documents/${doc.documentId}`)).body.data).toMatchObject({ checkInStatus: 0, checkedOutById: ZERO_GUID });
  });

  test('a saved search made on /graphql, waiting for its folder: UNAUTHORIZED (it was the foreign key\'s "record referred to was not found")', async () => {
    const { u, folder } = await publisher();
    const holdFolder = { text: 'select 1 from folder where tenant_id = $1 and id = $2 for update', values: [admin.t.tenantId, folder.id] };
    const name = `never-${u.userid}`;
    const g = await whileHeld(h, holdFolder, () => graphql(u.token, `mutation { createSavedSearch(input: { name: "${name}", folderId: "${folder.id}" }) { id } }`), deleteUser(u.id));
    expect([g.status, g.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)]).toEqual([401, ['UNAUTHORIZED']]);
    expectChallenge(g);
    const { rows } = await h.services.reads.query('select count(*)::int as n from saved_search where tenant_id = $1 and name = $2', [admin.t.tenantId, name]);
    expect(rows[0].n).toBe(0);
  });

  test('writes racing the delete of their account, 20 rounds: each done before it (200) or refused after it (401), never a 403 or 404; nothing of theirs left', async () => {
    for (let round = 0; round < 20; round++) {
      const { u, folder, doc, as } = await publisher();
      const [deleted, ...writes] = await Promise.all([
        admin.del(`/users/${u.id}`),
        as.put(`/documents/${doc.documentId}/status`, { checkIn: 1 }),
        as.post('/savedsearches', { name: `mine-${round}`, folderId: folder.id }),
        as.post('/documents', { folderId: folder.id, name: `made-${round}` }),
      ]);
      expect(deleted.status).toBe(200);
      for (const w of writes) {
        if (w.status === 200) continue;
        expectEnded(w);
      }
      const { rows } = await h.services.reads.query(
        `select (select count(*)::int from saved_search where tenant_id = $1 and owner_id = $2) as searches,
                (select count(*)::int from document where tenant_id = $1 and checked_out_by_id = $2) as held`,
        [admin.t.tenantId, u.id],
      );
      expect(rows[0]).toEqual({ searches: 0, held: 0 });
    }
  }, 60_000);
});

test('a user changing their own password ends their other sessions', async () => {
  const u = await ordinaryUser(admin);
  const other = await h.login(admin.t, u.userid, u.password);
  const r = await admin.as(u.token).put(`/users/${u.id}`, { oldPassword: u.password, newPassword: 'Mine-Passw0rd-2' });
  expect(r.status).toBe(200);
  await expectAllRefused({ id: u.id, token: other });
});

test('a write with an ended session changes nothing', async () => {
  const u = await createUser(admin);
  const token = await h.login(admin.t, u.userid, u.password);
  // Promoted, then disabled: the token would have admin rights if the session outlived the account.
  const admins = (await admin.get('/groups?q=name eq \'Administrators\'')).body.data[0].id;
  expect((await admin.put(`/groups/${admins}/users/${u.id}`)).status).toBe(201);
  expect((await admin.put(`/users/${u.id}`, { enabled: false })).status).toBe(200);
  const name = `never-${randomBytes(4).toString('hex')}`;
  expectEnded(await admin.as(token).post('/sites', { name }));
  const g = await graphql(token, `mutation { createSite(input: { name: "${name}" }) { id } }`);
  expect(g.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
  expect((await admin.get(`/sites?q=name eq '${name}'`)).body.data).toEqual([]);
});

test('a renewal never goes past the session its login allowed', async () => {
  const ring = h.services.keys;
  const now = Math.floor(Date.now() / 1000);
  const sign = (sxp: number) =>
    new SignJWT({ tid: admin.t.tenantId, cid: admin.t.clientId, sep: 0, sxp })
      .setProtectedHeader({ alg: 'EdDSA', kid: ring.current.kid })
      .setIssuer(h.services.jwt.issuer)
      .setAudience(h.services.jwt.audience)
      .setSubject(admin.t.adminId)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(ring.current.key);
  const soon = now + 120;
  const renewed = await admin.as(await sign(soon)).get('/users/getjwt');
  expect(renewed.status).toBe(200);
  expect(Date.parse(renewed.body.data.expires)).toBeLessThanOrEqual(soon * 1000);
  expectEnded(await admin.as(await sign(now - 1)).get('/users/getjwt'));
});

test('a refresh keeps the end of its login: rotation never extends a session', async () => {
  const u = await createUser(admin);
  let token = await refreshToken(u.userid, u.password);
  for (let i = 0; i < 3; i++) {
    const r = await refresh(token);
    expect(r.status).toBe(200);
    token = r.body.refresh_token;
  }
  const ends = await h.orm.em.getConnection().execute<{ n: string }[]>(
    'select count(distinct expires_at) as n from refresh_token where tenant_id = ? and user_id = ?',
    [admin.t.tenantId, u.id],
  );
  expect(Number(ends[0].n)).toBe(1);
});

test('a password hashed with older parameters is rehashed at login, and the sessions stay', async () => {
  const u = await createUser(admin);
  const before = await h.login(admin.t, u.userid, u.password);
  // Store the same password the way the earlier release did (scrypt, N=2^14), as a migration left it.
  const salt = randomBytes(16);
  const key = scryptSync(u.password, salt, 32, { N: 16384, r: 8, p: 1 });
  const old = `scrypt$16384$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
  await h.orm.em.getConnection().transactional(async (tx) => {
    await h.orm.em.getConnection().execute(`set local quire.password_rehash = 'on'`, [], 'run', tx);
    await h.orm.em.getConnection().execute('update app_user set password_hash = ? where id = ?', [old, u.id], 'run', tx);
  });
  expect((await admin.as(before).get('/users/me')).status).toBe(200);
  await h.login(admin.t, u.userid, u.password);
  const [row] = await h.orm.em.getConnection().execute<{ password_hash: string }[]>('select password_hash from app_user where id = ?', [u.id]);
  expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
  expect((await admin.as(before).get('/users/me')).status).toBe(200);
  // And the new hash verifies.
  await h.login(admin.t, u.userid, u.password);
});

test('the check costs a by-id read no statement of its own; a read that finds nothing asks once', async () => {
  const site = (await admin.get('/sites')).body.data[0].id;
  const found = await h.countQueries(() => admin.get(`/sites/${site}`));
  expect(found.result.status).toBe(200);
  expect(found.statements).toHaveLength(1);
  expect(found.statements[0]).toMatch(/session_epoch/);
  const missing = await h.countQueries(() => admin.get(`/sites/${UNKNOWN_ID}`));
  expect(missing.result.status).toBe(404);
  expect(missing.statements).toHaveLength(2);
});
