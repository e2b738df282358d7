/**
 * The users routes of the route table over HTTP: reads, paging and projection, the current-user
 * forms, supervisors, web tokens, getjwt, creation (JSON and form bodies), updates, password and
 * userid changes, deletion, the site-scoped user routes, and who may do what.
 */
import { randomUUID } from 'node:crypto';
import { BASE, Harness, TEST_ADDRESSES, type Reply, type TestTenant } from '../harness.js';
import { expectError, USER_KEYS, whileHeld } from './support.js';

const ZERO = '00000000-0000-0000-0000-000000000000';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let h: Harness;
let t: TestTenant;
let admin: string;
/** Every password this file sends: none may come back in any response. */
const secrets = new Set<string>();

beforeAll(async () => {
  h = await Harness.start({ trustedProxies: [TEST_ADDRESSES, '10.0.0.0/8'] });
  t = await h.tenant();
  secrets.add(t.password);
  admin = await h.login(t);
});
afterAll(() => h.stop());

/** No key named like a password (the *Expires/*NeverExpires flags aside) and no hash or sent password in the text. */
function expectNoSecrets(r: Reply) {
  const walk = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    for (const [k, child] of Object.entries(v)) {
      expect(k).not.toMatch(/^(password|passwordhash|password_hash|hash|secret.*|oldpassword|newpassword)$/i);
      walk(child);
    }
  };
  walk(r.body);
  expect(r.text).not.toMatch(/scrypt\$|\$argon2/);
  for (const s of secrets) expect(r.text).not.toContain(s);
}

async function call(method: string, path: string, o: Parameters<Harness['request']>[2] = {}): Promise<Reply> {
  const r = await h.request(method, path, o);
  expectNoSecrets(r);
  expect(r.body?.meta?.status).toBe(r.status);
  return r;
}

const R = () => t.root;
const uniq = (p = 'u') => `${p}${randomUUID().slice(0, 8)}`;

interface NewUser {
  id: string;
  userid: string;
  password: string;
}

async function makeUser(extra: Record<string, unknown> = {}, siteId = t.homeSiteId): Promise<NewUser> {
  const userid = uniq();
  const password = `pw-${randomUUID()}`;
  secrets.add(password);
  const r = await call('POST', `${R()}/users?siteId=${siteId}`, {
    token: admin,
    body: { userid, firstName: 'First', lastName: 'Last', emailaddress: `${userid}@example.com`, password, ...extra },
  });
  expect(r.status).toBe(200);
  return { id: r.body.data.id, userid, password };
}

function form(fields: Record<string, string>): { raw: string; headers: Record<string, string> } {
  return { raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}

async function tokenFor(u: NewUser) {
  return h.login(t, u.userid, u.password);
}

async function passwordGrant(username: string, password: string) {
  return h.request('POST', '/oauth/token', form({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username, password }));
}

function expectUser(u: Record<string, unknown>) {
  expect(u.dataType).toBe('User');
  expect(u.href).toBe(`~/users/${u.id}`);
  expect(u.id).toMatch(GUID);
  for (const k of ['name', 'userid', 'firstName', 'middleInitial', 'lastName', 'emailAddress', 'lastIpAddress']) expect(typeof u[k]).toBe('string');
  for (const k of ['enabled', 'userIdNeverExpires', 'passwordNeverExpires']) expect(typeof u[k]).toBe('boolean');
  expect(u.siteId).toMatch(GUID);
}


async function graphql(token: string, query: string, variables: Record<string, unknown>) {
  const r = await h.request('POST', '/graphql', { token, body: { query, variables } });
  expect(r.status).toBe(200);
  expect(r.body.errors).toBeUndefined();
  return r.body.data;
}

describe('GET /users', () => {
  test('lists the users of the tenant as User records without secrets', async () => {
    const u = await makeUser();
    const r = await call('GET', `${R()}/users`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ status: 200, statusMsg: 'OK', method: 'GET' });
    expect(Array.isArray(r.body.data)).toBe(true);
    r.body.data.forEach(expectUser);
    const ids = r.body.data.map((x: { id: string }) => x.id);
    expect(ids).toContain(t.adminId);
    expect(ids).toContain(u.id);
  });

  test('q filters, with + and %20 both spaces', async () => {
    const u = await makeUser();
    for (const q of [`userid+eq+'${u.userid}'`, `userid%20eq%20'${u.userid}'`, encodeURIComponent(`[userid] eq '${u.userid.toUpperCase()}'`)]) {
      const r = await call('GET', `${R()}/users?q=${q}`, { token: admin });
      expect(r.status).toBe(200);
      expect(r.body.data.map((x: { id: string }) => x.id)).toEqual([u.id]);
    }
    const none = await call('GET', `${R()}/users?q=${encodeURIComponent("userid eq 'nobody-at-all'")}`, { token: admin });
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });

  test('q on every field a User shows (expand=data), href included, finds it by the value shown', async () => {
    const u = await makeUser();
    const { dataType: _, ...shown } = (await call('GET', `${R()}/users/${u.id}?expand=data`, { token: admin })).body.data;
    expect(Object.keys(shown)).toContain('href');
    for (const [key, value] of Object.entries(shown)) {
      const literal = value === null || typeof value === 'boolean' ? String(value) : `'${value}'`;
      const r = await call('GET', `${R()}/users?q=${encodeURIComponent(`[${key}] eq ${literal} and id eq '${u.id}'`)}`, { token: admin });
      expect([key, r.status, r.body.data?.map((x: { id: string }) => x.id)]).toEqual([key, 200, [u.id]]);
    }
  });

  test('a like wildcard sent as a raw % before two hex digits is a 400 naming that escape as sent and asking for %25', async () => {
    const u = await makeUser();
    const hint = 'send a literal % (such as a like wildcard) as %25, and other text escaped as its UTF-8 bytes.';
    // What a client that does not escape q sends: `%ad` is the byte 0xAD, no UTF-8 character.
    const raw = await call('GET', `${R()}/users?q=userid like '%ad%'`, { token: admin });
    expectError(raw, 400, `The request query string has percent-escapes that are not valid UTF-8, such as '%ad': ${hint}`);
    // The escape where decoding fails, after any that decode: Latin-1, a sequence cut short, one after a whole character.
    for (const [escaped, named] of [['%E9t%E9', '%E9'], ['%C3%28', '%C3'], ['x%e2%82', '%e2'], ['%C3%A9%FF', '%FF']]) {
      expectError(await call('GET', `${R()}/users?q=${encodeURIComponent("userid eq '")}${escaped}'`, { token: admin }), 400, `such as '${named}': ${hint}`);
    }
    // Sent as %25, the wildcard works.
    const ok = await call('GET', `${R()}/users?q=${encodeURIComponent(`userid like '%${u.userid.slice(1)}%'`)}`, { token: admin });
    expect(ok.body.data.map((x: { id: string }) => x.id)).toEqual([u.id]);
  });

  test('a q that does not parse, or names an unknown field, is a 400', async () => {
    expectError(await call('GET', `${R()}/users?q=${encodeURIComponent("userid eq 'x")}`, { token: admin }), 400);
    const unknown = await call('GET', `${R()}/users?q=${encodeURIComponent("passwordHash eq 'x'")}`, { token: admin });
    expectError(unknown, 400, "Invalid q: unknown field 'passwordHash' at position 1");
    // The known fields as a record spells them (firstName, passwordNeverExpires), href last.
    const record = (await call('GET', `${R()}/users?expand=data&limit=1`, { token: admin })).body.data[0];
    const known = Object.keys(record).filter((k) => k !== 'href' && k !== 'dataType');
    expect(known).toEqual(expect.arrayContaining(['firstName', 'passwordNeverExpires', 'isVaultAccess']));
    expect(unknown.body.meta.errors[0].developerMessage).toContain(`Known fields: ${[...known, 'href', 'dataType'].join(', ')}.`);
  });

  test('fields= keeps href, dataType and the named fields only', async () => {
    const r = await call('GET', `${R()}/users?fields=id,userid`, { token: admin });
    expect(r.status).toBe(200);
    for (const u of r.body.data) expect(Object.keys(u).sort()).toEqual(['dataType', 'href', 'id', 'userid']);
    const spaced = await call('GET', `${R()}/users?fields=${encodeURIComponent('id, firstName')}`, { token: admin });
    for (const u of spaced.body.data) expect(Object.keys(u).sort()).toEqual(['dataType', 'firstName', 'href', 'id']);
  });

  test('limit and offset page through the users in userid order', async () => {
    const t2 = await h.tenant();
    const tok = await h.login(t2);
    for (let i = 0; i < 4; i++) {
      const r = await call('POST', `${t2.root}/users?siteId=${t2.homeSiteId}`, {
        token: tok,
        body: { userid: `p${i}`, firstName: 'F', lastName: 'L', emailaddress: `p${i}@x.test`, password: 'pw' },
      });
      expect(r.status).toBe(200);
    }
    const all = (await call('GET', `${t2.root}/users`, { token: tok })).body.data.map((u: { userid: string }) => u.userid);
    expect(all).toEqual(['admin', 'p0', 'p1', 'p2', 'p3']);
    const p1 = await call('GET', `${t2.root}/users?limit=2`, { token: tok });
    expect(p1.body.data.map((u: { userid: string }) => u.userid)).toEqual(['admin', 'p0']);
    const p2 = await call('GET', `${t2.root}/users?limit=2&offset=2`, { token: tok });
    expect(p2.body.data.map((u: { userid: string }) => u.userid)).toEqual(['p1', 'p2']);
    const p3 = await call('GET', `${t2.root}/users?limit=2&offset=4`, { token: tok });
    expect(p3.body.data.map((u: { userid: string }) => u.userid)).toEqual(['p3']);
    const past = await call('GET', `${t2.root}/users?offset=50`, { token: tok });
    expect(past.body.data).toEqual([]);
    // The .NET client appends empty q and fields and expand=true to every call.
    const dotnet = await call('GET', `${t2.root}/users?q=&fields=&expand=true&limit=2&offset=0`, { token: tok });
    expect(dotnet.status).toBe(200);
    expect(dotnet.body.data).toHaveLength(2);
  });

  test('carries pagination (the .NET client reads it through GetPagedResult): totalRecords and links that page through', async () => {
    const t2 = await h.tenant();
    const tok = await h.login(t2);
    for (let i = 0; i < 4; i++) {
      const r = await call('POST', `${t2.root}/users`, { token: tok, body: { userid: `n${i}`, firstName: 'F', lastName: 'L', emailaddress: `n${i}@x.test`, password: 'pw' } });
      expect(r.status).toBe(200);
    }
    const whole = await call('GET', `${t2.root}/users`, { token: tok });
    const url = (qs: string) => `${BASE}${t2.root}/users${qs}`;
    expect(whole.body.pagination).toEqual({
      dataType: 'PagedData',
      href: url(''),
      first: url('?limit=200&offset=0'),
      last: url('?limit=200&offset=0'),
      next: '',
      previous: '',
      limit: 200,
      totalRecords: 5,
    });
    const userids = (r: Reply) => r.body.data.map((u: { userid: string }) => u.userid);
    const middle = await call('GET', `${t2.root}/users?limit=2&offset=2`, { token: tok });
    expect(userids(middle)).toEqual(['n1', 'n2']);
    expect(middle.body.pagination).toMatchObject({ limit: 2, totalRecords: 5, first: url('?limit=2&offset=0'), last: url('?limit=2&offset=4') });
    const follow = (link: string) => call('GET', link.slice(BASE.length), { token: tok });
    expect(userids(await follow(middle.body.pagination.next))).toEqual(['n3']);
    expect(userids(await follow(middle.body.pagination.previous))).toEqual(['admin', 'n0']);
    expect((await follow(middle.body.pagination.next)).body.pagination.next).toBe('');
    // q counts in totalRecords and stays in the links.
    const filtered = await call('GET', `${t2.root}/users?q=${encodeURIComponent("userid like 'n%'")}&limit=3`, { token: tok });
    expect(filtered.body.pagination.totalRecords).toBe(4);
    expect(userids(await follow(filtered.body.pagination.next))).toEqual(['n3']);
  });

  describe('enabled, as the .NET client sends it', () => {
    let t3: TestTenant;
    let tok: string;
    beforeAll(async () => {
      t3 = await h.tenant();
      tok = await h.login(t3);
      for (const [userid, enabled] of [['on1', true], ['off1', false], ['on2', true], ['off2', false]] as const) {
        const r = await call('POST', `${t3.root}/users`, { token: tok, body: { userid, firstName: 'F', lastName: 'L', emailaddress: `${userid}@x.test`, password: 'pw', enabled } });
        expect(r.status).toBe(200);
      }
    });
    const list = (qs: string) => call('GET', `${t3.root}/users${qs}`, { token: tok });
    const userids = (r: Reply) => r.body.data.map((u: { userid: string }) => u.userid);

    test('not sent (GetUsers) or empty: the enabled users only; true the same', async () => {
      for (const qs of ['', '?enabled=', '?enabled=true', '?enabled=TRUE', '?q=&fields=&expand=true&limit=200&offset=0']) {
        const r = await list(qs);
        expect([qs, userids(r)]).toEqual([qs, ['admin', 'on1', 'on2']]);
        expect(r.body.pagination.totalRecords).toBe(3);
      }
    });

    test('false (GetDisabledUsers): the disabled ones; all (GetAllEnabledAndDisabledUsers), in any case: everyone', async () => {
      expect(userids(await list('?enabled=false'))).toEqual(['off1', 'off2']);
      expect(userids(await list('?enabled=False'))).toEqual(['off1', 'off2']);
      for (const qs of ['?enabled=all', '?enabled=ALL', '?enabled=All']) {
        const r = await list(qs);
        expect([qs, userids(r)]).toEqual([qs, ['admin', 'off1', 'on1', 'off2', 'on2'].sort()]);
        expect(r.body.pagination.totalRecords).toBe(5);
      }
    });

    test('it goes with q and paging, and the links keep it', async () => {
      const r = await list(`?enabled=all&q=${encodeURIComponent("userid like 'o%'")}&limit=3`);
      expect(userids(r)).toEqual(['off1', 'off2', 'on1']);
      expect(r.body.pagination.totalRecords).toBe(4);
      const next = await call('GET', r.body.pagination.next.slice(BASE.length), { token: tok });
      expect(userids(next)).toEqual(['on2']);
      expect(userids(await list(`?enabled=false&q=${encodeURIComponent("userid eq 'off2'")}`))).toEqual(['off2']);
      // A q on enabled alone sees only the users the default lets through.
      expect(userids(await list(`?q=${encodeURIComponent('enabled eq false')}`))).toEqual([]);
    });

    test('any other value is a 400 naming the allowed ones', async () => {
      for (const v of ['yes', '1', 'disabled', 'true,false']) {
        expectError(await list(`?enabled=${encodeURIComponent(v)}`), 400, `The value of 'enabled' must be true, false or all (any case), got '${v}'.`);
      }
    });

    test('GraphQL takes the same argument', async () => {
      const q = `query ($e: String) { users(enabled: $e) { totalRecords items { userid } } }`;
      expect(await graphql(tok, q, {})).toEqual({ users: { totalRecords: 3, items: ['admin', 'on1', 'on2'].map((userid) => ({ userid })) } });
      expect((await graphql(tok, q, { e: 'false' })).users.totalRecords).toBe(2);
      expect((await graphql(tok, q, { e: 'all' })).users.totalRecords).toBe(5);
      const bad = await h.request('POST', '/graphql', { token: tok, body: { query: q, variables: { e: 'maybe' } } });
      expect(bad.body.errors[0]).toMatchObject({ message: "The value of 'enabled' must be true, false or all (any case), got 'maybe'.", extensions: { code: 'BAD_REQUEST' } });
    });
  });

  describe('isVaultAccess, the account owner\'s flag: set by SetUserAsAccountOwner, listed by GetAccountOwnersList', () => {
    let t4: TestTenant;
    let tok: string;
    /** Users by userid, each made through POST users. */
    const made = new Map<string, string>();
    beforeAll(async () => {
      t4 = await h.tenant();
      tok = await h.login(t4);
      for (const [userid, enabled] of [['p1', true], ['p2', true], ['p3', true], ['p4', false]] as const) {
        const r = await call('POST', `${t4.root}/users`, { token: tok, body: { userid, firstName: 'F', lastName: 'L', emailaddress: `${userid}@x.test`, password: 'pw', enabled } });
        expect(r.status).toBe(200);
        made.set(userid, r.body.data.id);
      }
    });
    const list = (qs: string) => call('GET', `${t4.root}/users${qs}`, { token: tok });
    const userids = (r: Reply) => r.body.data.map((u: { userid: string }) => u.userid);
    const owners = async () => userids(await list('?isVaultAccess=true&enabled=all'));
    const put = (path: string, body: unknown) => call('PUT', `${t4.root}${path}`, { token: tok, ...(typeof body === 'string' ? form(Object.fromEntries(new URLSearchParams(body))) : { body }) });

    test('no one is an owner until an administrator says so; false lists everyone else', async () => {
      expect(await owners()).toEqual([]);
      expect(userids(await list('?isVaultAccess=false'))).toEqual(['admin', 'p1', 'p2', 'p3']);
    });

    test('PUT users/{id} with true (SetUserAsAccountOwner) lists the user as an owner; false (RemoveUserFromAccountOwner) takes them off', async () => {
      const set = await put(`/users/${made.get('p1')}`, { isVaultAccess: true });
      expect(set.status).toBe(200);
      expect(await owners()).toEqual(['p1']);
      expect(userids(await list('?isVaultAccess=false'))).toEqual(['admin', 'p2', 'p3']);
      // A change of something else leaves it as it is.
      await put(`/users/${made.get('p1')}`, { firstName: 'Still' });
      expect(await owners()).toEqual(['p1']);
      expect((await put(`/users/${made.get('p1')}`, { isVaultAccess: false })).status).toBe(200);
      expect(await owners()).toEqual([]);
      expect(userids(await list('?isVaultAccess=false'))).toEqual(['admin', 'p1', 'p2', 'p3']);
    });

    test('every path that changes a user sets it, with the spellings of the other booleans; so does a create', async () => {
      const p2 = made.get('p2')!;
      const p3 = made.get('p3')!;
      const steps: [string, unknown, string[]][] = [
        [`/sites/${t4.homeSiteId}/users/${p2}`, { isVaultAccess: true }, ['p2']],
        [`/users/${p3}`, 'isvaultaccess=True', ['p2', 'p3']],
        [`/users/${p2}`, 'IsVaultAccess=0', ['p3']],
        [`/users/${p2}`, { isVaultAccess: 1 }, ['p2', 'p3']],
        [`/sites/${t4.homeSiteId}/users/${p2}`, 'isVaultAccess=FALSE', ['p3']],
        [`/users/${p3}`, { IsVaultAccess: 'false' }, []],
      ];
      for (const [path, body, expected] of steps) {
        const r = await put(path, body);
        expect([path, body, r.status]).toEqual([path, body, 200]);
        expect([path, body, await owners()]).toEqual([path, body, expected]);
      }
      const gql = `mutation ($id: UUID!, $v: Boolean) { updateUser(id: $id, input: { isVaultAccess: $v }) { isVaultAccess } }`;
      expect(await graphql(tok, gql, { id: p3, v: true })).toEqual({ updateUser: { isVaultAccess: true } });
      expect(await owners()).toEqual(['p3']);
      expect(await graphql(tok, gql, { id: p3, v: false })).toEqual({ updateUser: { isVaultAccess: false } });
      const created = await call('POST', `${t4.root}/users`, { token: tok, body: { userid: 'p5', firstName: 'F', lastName: 'L', emailaddress: 'p5@x.test', password: 'pw', isVaultAccess: true } });
      expect(created.status).toBe(200);
      expect(await owners()).toEqual(['p5']);
      expect((await call('DELETE', `${t4.root}/users/${created.body.data.id}`, { token: tok })).status).toBe(200);
      expectError(await put(`/users/${p2}`, { isVaultAccess: 'maybe' }), 400);
      expect(await owners()).toEqual([]);
    });

    test('it goes with enabled, q (which takes the field too) and paging; empty counts as not sent; GraphQL takes the same argument', async () => {
      for (const id of [made.get('p1'), made.get('p3'), made.get('p4')]) expect((await put(`/users/${id}`, { isVaultAccess: true })).status).toBe(200);
      try {
        expect(userids(await list('?isVaultAccess=true'))).toEqual(['p1', 'p3']);
        expect(userids(await list('?isVaultAccess=TRUE&enabled=false'))).toEqual(['p4']);
        expect(userids(await list('?isvaultaccess=1&enabled=all'))).toEqual(['p1', 'p3', 'p4']);
        expect(userids(await list('?isVaultAccess=false&enabled=all'))).toEqual(['admin', 'p2']);
        expect(userids(await list(`?isVaultAccess=true&q=${encodeURIComponent("userid ne 'p1'")}`))).toEqual(['p3']);
        expect(userids(await list(`?q=${encodeURIComponent('isVaultAccess eq true')}`))).toEqual(['p1', 'p3']);
        const paged = await list('?isVaultAccess=true&enabled=all&limit=2');
        expect(userids(paged)).toEqual(['p1', 'p3']);
        expect(paged.body.pagination.totalRecords).toBe(3);
        expect(userids(await call('GET', paged.body.pagination.next.slice(BASE.length), { token: tok }))).toEqual(['p4']);
        expect(userids(await list('?isVaultAccess='))).toEqual(['admin', 'p1', 'p2', 'p3']);
        const q = `query ($v: Boolean, $e: String) { users(isVaultAccess: $v, enabled: $e) { totalRecords items { userid isVaultAccess } } }`;
        expect(await graphql(tok, q, { v: true })).toEqual({ users: { totalRecords: 2, items: [{ userid: 'p1', isVaultAccess: true }, { userid: 'p3', isVaultAccess: true }] } });
        expect((await graphql(tok, q, { v: false, e: 'all' })).users.totalRecords).toBe(2);
        expect((await graphql(tok, q, {})).users.totalRecords).toBe(4);
      } finally {
        for (const id of [made.get('p1'), made.get('p3'), made.get('p4')]) await put(`/users/${id}`, { isVaultAccess: false });
      }
    });

    test('a value that is not a boolean is a 400 naming the parameter', async () => {
      for (const v of ['yes', 'all', '2', 'true,false']) {
        expectError(await list(`?isVaultAccess=${encodeURIComponent(v)}`), 400, `The query parameter 'isVaultAccess' must be true or false, got '${v}'.`);
      }
      expectError(await list('?isvaultaccess=maybe'), 400, `The query parameter 'isVaultAccess' must be true or false, got 'maybe'.`);
      const bad = await h.request('POST', '/graphql', { token: tok, body: { query: `query ($v: Boolean) { users(isVaultAccess: $v) { totalRecords } }`, variables: { v: 'yes' } } });
      expect(bad.body.errors[0].message).toMatch(/Boolean/);
    });

    test('/meta lists it as an available field, not a default one: default records keep their keys; fields= and expand=data show it', async () => {
      const meta = await call('GET', `${t4.root}/meta/User`, { token: tok });
      expect(meta.body.data.availableFields).toEqual([...USER_KEYS.slice(2), 'isVaultAccess']);
      expect(meta.body.data.defaultFields).toEqual(USER_KEYS.slice(2));
      const owner = made.get('p2')!;
      await put(`/users/${owner}`, { isVaultAccess: true });
      try {
        const one = await call('GET', `${t4.root}/users/${owner}`, { token: tok });
        expect(Object.keys(one.body.data)).toEqual(USER_KEYS);
        expect(Object.keys((await put(`/users/${owner}`, { firstName: 'F' })).body.data)).toEqual(USER_KEYS);
        expect((await list('?isVaultAccess=true')).body.data.map((u: object) => Object.keys(u))).toEqual([USER_KEYS]);
        expect((await call('GET', `${t4.root}/users/${owner}?fields=isVaultAccess`, { token: tok })).body.data).toEqual({ href: `~/users/${owner}`, dataType: 'User', isVaultAccess: true });
        expect((await call('GET', `${t4.root}/users/${owner}?expand=data`, { token: tok })).body.data).toMatchObject({ enabled: true, isVaultAccess: true });
        expect((await call('GET', `${t4.root}/users/${made.get('p1')}?fields=isvaultaccess`, { token: tok })).body.data.isVaultAccess).toBe(false);
      } finally {
        await put(`/users/${owner}`, { isVaultAccess: false });
      }
    });
  });

  test('expand=data and expanded relations carry no secrets either', async () => {
    for (const qs of ['expand=data', 'expand=groups', 'expand=site', 'expand=supervisors,supervisees', 'fields=password,passwordHash,id']) {
      const r = await call('GET', `${R()}/users?${qs}`, { token: admin });
      expect([qs, r.status]).toEqual([qs, 200]);
    }
    const groups = await call('GET', `${R()}/users/${t.adminId}?expand=groups`, { token: admin });
    expect(groups.body.data.groups.map((g: { name: string }) => g.name)).toEqual(['Administrators']);
    const onlyId = await call('GET', `${R()}/users?fields=password,passwordHash,id`, { token: admin });
    for (const u of onlyId.body.data) expect(Object.keys(u).sort()).toEqual(['dataType', 'href', 'id']);
  });

  test('a login records the caller\'s address (the right-most X-Forwarded-For hop that is no trusted proxy) as lastIpAddress', async () => {
    const u = await makeUser();
    const r = await h.request('POST', '/oauth/token', {
      raw: new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username: u.userid, password: u.password }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.7, 203.0.113.9, 10.0.0.1' },
    });
    expect(r.status).toBe(200);
    expect((await call('GET', `${R()}/users/${u.id}`, { token: admin })).body.data.lastIpAddress).toBe('203.0.113.9');
  });

  test('a negative or non-numeric limit or offset is a 400', async () => {
    for (const qs of ['limit=-1', 'limit=abc', 'offset=-3', 'offset=1.5']) {
      expectError(await call('GET', `${R()}/users?${qs}`, { token: admin }), 400);
    }
  });
});

describe('GET /users/me and the all-zero GUID', () => {
  // An object, not the spec's one-element array: the Node client's own tests read data.id (docs/decisions.md).
  test('users/me is the caller as an object', async () => {
    const r = await call('GET', `${R()}/users/me`, { token: admin });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.data)).toBe(false);
    expectUser(r.body.data);
    expect(r.body.data).toMatchObject({ id: t.adminId, userid: 'admin' });
  });

  test('users/me answers for an ordinary user too, case-insensitively and with a trailing slash', async () => {
    const u = await makeUser();
    const tok = await tokenFor(u);
    const r = await call('GET', `${R()}/Users/ME/`, { token: tok });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: u.id, userid: u.userid });
  });

  test('GET users/{id} is an object; the all-zero GUID is the caller', async () => {
    const u = await makeUser();
    const byId = await call('GET', `${R()}/users/${u.id}`, { token: admin });
    expect(byId.status).toBe(200);
    expect(Array.isArray(byId.body.data)).toBe(false);
    expectUser(byId.body.data);
    expect(byId.body.data).toMatchObject({ id: u.id, userid: u.userid, name: u.userid, firstName: 'First', lastName: 'Last' });
    const upper = await call('GET', `${R()}/users/${u.id.toUpperCase()}`, { token: admin });
    expect(upper.status).toBe(200);
    expect(upper.body.data.id).toBe(u.id);
    const me = await call('GET', `${R()}/users/${ZERO}`, { token: admin });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(t.adminId);
  });

  test('an unknown id is a 404; an id that is not a GUID is a 400', async () => {
    expectError(await call('GET', `${R()}/users/${randomUUID()}`, { token: admin }), 404);
    expectError(await call('GET', `${R()}/users/not-a-guid`, { token: admin }), 400, /GUID/);
  });
});

describe('GET /users/{id}/groups', () => {
  test('lists the groups the user belongs to', async () => {
    const adminGroups = await call('GET', `${R()}/users/${t.adminId}/groups`, { token: admin });
    expect(adminGroups.status).toBe(200);
    expect(adminGroups.body.data.map((g: { name: string }) => g.name)).toEqual(['Administrators']);
    expect(adminGroups.body.data[0]).toMatchObject({ dataType: 'Group', siteId: t.homeSiteId });

    const u = await makeUser();
    const none = await call('GET', `${R()}/users/${u.id}/groups`, { token: admin });
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);

    const g = await call('POST', `${R()}/groups`, { token: admin, body: { name: uniq('g'), description: 'd', siteId: t.homeSiteId } });
    expect(g.status).toBe(200);
    const put = await call('PUT', `${R()}/groups/${g.body.data.id}/users/${u.id}`, { token: admin, headers: { 'content-type': 'application/json' } });
    expect(put.status).toBe(201);
    const one = await call('GET', `${R()}/users/${u.id}/groups`, { token: admin });
    expect(one.body.data.map((x: { id: string }) => x.id)).toEqual([g.body.data.id]);
    // The caller's own groups through the all-zero GUID, read by the user themselves.
    const own = await call('GET', `${R()}/users/${ZERO}/groups`, { token: await tokenFor(u) });
    expect(own.status).toBe(200);
    expect(own.body.data.map((x: { id: string }) => x.id)).toEqual([g.body.data.id]);
  });

  test('an unknown user is a 404', async () => {
    expectError(await call('GET', `${R()}/users/${randomUUID()}/groups`, { token: admin }), 404);
  });
});

describe('supervisors and supervisees', () => {
  const ADD = `mutation($u: UUID!, $s: UUID!) { addUserSupervisor(userId: $u, input: { supervisorId: $s }) { id } }`;

  test('a supervisor set through GraphQL shows on both sides', async () => {
    const worker = await makeUser();
    const boss = await makeUser();
    expect((await call('GET', `${R()}/users/${worker.id}/supervisors`, { token: admin })).body.data).toEqual([]);
    await graphql(admin, ADD, { u: worker.id, s: boss.id });

    const sup = await call('GET', `${R()}/users/${worker.id}/supervisors`, { token: admin });
    expect(sup.status).toBe(200);
    expect(sup.body.data).toHaveLength(1);
    expectUser(sup.body.data[0]);
    expect(sup.body.data[0]).toMatchObject({ id: boss.id, userid: boss.userid });

    const sub = await call('GET', `${R()}/users/${boss.id}/supervisees`, { token: admin });
    expect(sub.status).toBe(200);
    expect(sub.body.data.map((x: { id: string }) => x.id)).toEqual([worker.id]);

    // The reverse directions stay empty.
    expect((await call('GET', `${R()}/users/${boss.id}/supervisors`, { token: admin })).body.data).toEqual([]);
    expect((await call('GET', `${R()}/users/${worker.id}/supervisees`, { token: admin })).body.data).toEqual([]);

    // The all-zero GUID read by the boss themselves.
    const mine = await call('GET', `${R()}/users/${ZERO}/Supervisees`, { token: await tokenFor(boss) });
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((x: { id: string }) => x.id)).toEqual([worker.id]);
  });

  test('racing a delete of the user committed meanwhile: the 404 of an unknown user, not the foreign key\'s', async () => {
    const worker = await makeUser();
    const boss = await makeUser();
    // The delete, committed while addUserSupervisor waits for the user's row.
    const other = { text: 'delete from app_user where tenant_id = $1 and id = $2', values: [t.tenantId, worker.id] };
    const r = await whileHeld(h, other, () => h.request('POST', '/graphql', { token: admin, body: { query: ADD, variables: { u: worker.id, s: boss.id } } }));
    expect(r.body.errors).toEqual([expect.objectContaining({ message: `User '${worker.id}' was not found.`, extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })]);
  });

  test('removeUserSupervisor: the all-zero GUID names the caller, as in addUserSupervisor', async () => {
    const boss = await makeUser();
    const me = (await call('GET', `${R()}/users/me`, { token: admin })).body.data as { id: string };
    await graphql(admin, ADD, { u: ZERO, s: boss.id });
    expect((await call('GET', `${R()}/users/${me.id}/supervisors`, { token: admin })).body.data.map((x: { id: string }) => x.id)).toContain(boss.id);
    const removed = await graphql(admin, `mutation($s: UUID!) { removeUserSupervisor(userId: "${ZERO}", supervisorId: $s) }`, { s: boss.id });
    expect(removed).toEqual({ removeUserSupervisor: true });
    expect((await call('GET', `${R()}/users/${me.id}/supervisors`, { token: admin })).body.data.map((x: { id: string }) => x.id)).not.toContain(boss.id);
  });

  test('supervisors and supervisees are paged and filtered like any user list (limit, offset, q)', async () => {
    const worker = await makeUser();
    const bosses = [await makeUser(), await makeUser()].sort((a, b) => a.userid.localeCompare(b.userid));
    for (const b of bosses) await graphql(admin, ADD, { u: worker.id, s: b.id });
    const ids = async (qs: string) => (await call('GET', `${R()}/users/${worker.id}/supervisors?${qs}`, { token: admin })).body.data.map((x: { id: string }) => x.id);
    expect(await ids('limit=1')).toEqual([bosses[0].id]);
    expect(await ids('limit=1&offset=1')).toEqual([bosses[1].id]);
    expect(await ids(`q=${encodeURIComponent(`userid eq '${bosses[1].userid}'`)}`)).toEqual([bosses[1].id]);
    const sub = await call('GET', `${R()}/users/${bosses[0].id}/supervisees?limit=0`, { token: admin });
    expect(sub.body.data).toEqual([]);
  });

  test('supervisors and supervisees carry pagination, as the .NET client reads them (GetUserSupervisors and GetUserSupervisees through GetPagedResult)', async () => {
    const worker = await makeUser();
    const bosses = [await makeUser(), await makeUser(), await makeUser()].sort((a, b) => a.userid.localeCompare(b.userid));
    for (const b of bosses) await graphql(admin, ADD, { u: worker.id, s: b.id });
    const path = `${R()}/users/${worker.id}/supervisors`;
    const url = (qs: string) => `${BASE}${path}${qs}`;
    // What the client sends with no RequestOptions: limit at its default page size, offset 0.
    const whole = await call('GET', `${path}?q=&fields=&expand=true&limit=200&offset=0`, { token: admin });
    expect(whole.status).toBe(200);
    expect(whole.body.data.map((x: { id: string }) => x.id)).toEqual(bosses.map((b) => b.id));
    expect(whole.body.pagination).toEqual({
      dataType: 'PagedData',
      href: url('?q=&fields=&expand=true&limit=200&offset=0'),
      first: url('?q=&fields=&expand=true&limit=200&offset=0'),
      last: url('?q=&fields=&expand=true&limit=200&offset=0'),
      next: '',
      previous: '',
      limit: 200,
      totalRecords: 3,
    });
    const page = await call('GET', `${path}?limit=2`, { token: admin });
    expect(page.body.data.map((x: { id: string }) => x.id)).toEqual([bosses[0].id, bosses[1].id]);
    expect(page.body.pagination).toMatchObject({ limit: 2, totalRecords: 3, first: url('?limit=2&offset=0'), last: url('?limit=2&offset=2') });
    const next = await call('GET', page.body.pagination.next.slice(BASE.length), { token: admin });
    expect(next.body.data.map((x: { id: string }) => x.id)).toEqual([bosses[2].id]);
    expect(next.body.pagination.next).toBe('');
    const sub = await call('GET', `${R()}/users/${bosses[1].id}/supervisees?limit=1`, { token: admin });
    expect(sub.body.data.map((x: { id: string }) => x.id)).toEqual([worker.id]);
    expect(sub.body.pagination).toMatchObject({ limit: 1, totalRecords: 1, next: '' });
  });

  test('unknown users are 404s', async () => {
    expectError(await call('GET', `${R()}/users/${randomUUID()}/supervisors`, { token: admin }), 404);
    expectError(await call('GET', `${R()}/users/${randomUUID()}/supervisees`, { token: admin }), 404);
  });
});

describe('GET /users/{id}/webToken', () => {
  test('gives a GUID that logs in once as that user, and not twice', async () => {
    const u = await makeUser();
    const r = await call('GET', `${R()}/users/${u.id}/webToken`, { token: admin });
    expect(r.status).toBe(200);
    const webToken = r.body.data.webToken;
    expect(webToken).toMatch(GUID);
    expect(Number.isNaN(new Date(r.body.data.expires).getTime())).toBe(false);

    const first = await passwordGrant(webToken, webToken);
    expect(first.status).toBe(200);
    const me = await call('GET', `${R()}/users/me`, { token: first.body.access_token });
    expect(me.body.data.id).toBe(u.id);

    const second = await passwordGrant(webToken, webToken);
    expect([400, 401]).toContain(second.status);
    expect(second.body.error).toMatch(/invalid|unauthorized|denied/i);
  });

  test('a user may take one for themselves but not for someone else', async () => {
    const u = await makeUser();
    const other = await makeUser();
    const tok = await tokenFor(u);
    const own = await call('GET', `${R()}/users/${ZERO}/webtoken`, { token: tok });
    expect(own.status).toBe(200);
    const login = await passwordGrant(own.body.data.webToken, own.body.data.webToken);
    expect(login.status).toBe(200);
    expectError(await call('GET', `${R()}/users/${other.id}/webToken`, { token: tok }), 403);
  });

  test("webToken is the answer's last key: the PHP client's getUsersToken walks the whole answer and keeps only the last key it meets", async () => {
    const u = await makeUser();
    const r = await call('GET', `${R()}/users/${u.id}/webtoken`, { token: admin });
    expect(Object.keys(r.body)).toEqual(['meta', 'data']);
    expect(Object.keys(r.body.data)).toEqual(['expires', 'webToken']);
  });

  test("u and p (the .NET client's GetWebLoginToken with credentials, which takes a token for a right password) are a 400 that issues nothing", async () => {
    const u = await makeUser();
    // Whatever the password: none is checked (the right one would be echoed in meta.href, which this file's call refuses).
    for (const query of [`u=${u.userid}&p=wrong`, `u=${u.userid}`, 'p=wrong']) {
      const r = await call('GET', `${R()}/Users/${u.id}/webToken/?expiration=2099-01-01T00:00:00.0000000Z&${query}`, { token: admin });
      expectError(r, 400, /^Checking a user name and password here \(u, p\) is not available on this service/);
      expect(r.body.data).toBeUndefined();
    }
  });

  test("the 400's meta.href leaves out p's value (the right password too); the token endpoint's leaves out the secrets sent in its query", async () => {
    const u = await makeUser();
    // `call` checks that no known password is in the answer.
    const r = await call('GET', `${R()}/users/${u.id}/webToken?u=${u.userid}&p=${encodeURIComponent(u.password)}&P=${encodeURIComponent(u.password)}&x=1`, { token: admin });
    expectError(r, 400, /^Checking a user name and password here/);
    expect(r.body.meta.href).toBe(`${BASE}${R()}/users/${u.id}/webToken?u=${u.userid}&p=&P=&x=1`);
    const token = await h.request('POST', '/oauth/token?password=sekrit-pw&client_secret=sekrit-cs&refresh_token=sekrit-rt&x=1', form({ grant_type: 'password' }));
    expect(token.body.meta.href).toBe(`${BASE}/oauth/token?password=&client_secret=&refresh_token=&x=1`);
    expect(token.text).not.toContain('sekrit');
  });

  test('an unknown user is a 404', async () => {
    expectError(await call('GET', `${R()}/users/${randomUUID()}/webToken`, { token: admin }), 404);
  });

  test('used twice at once, a web token logs in at most once', async () => {
    const u = await makeUser();
    const r = await call('GET', `${R()}/users/${u.id}/webToken`, { token: admin });
    const w = r.body.data.webToken;
    const logins = await Promise.all(Array.from({ length: 4 }, () => passwordGrant(w, w)));
    expect(logins.filter((l) => l.status === 200)).toHaveLength(1);
  });

  test('a web token of a user disabled since does not log in', async () => {
    const u = await makeUser();
    const r = await call('GET', `${R()}/users/${u.id}/webToken`, { token: admin });
    expect((await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { enabled: false } })).status).toBe(200);
    const login = await passwordGrant(r.body.data.webToken, r.body.data.webToken);
    expect([400, 401]).toContain(login.status);
    expect(login.body.error).toMatch(/invalid|unauthorized|denied/i);
  });
});

describe('GET /users/getjwt', () => {
  test('returns a JWT with an absolute expiry that works as a bearer token', async () => {
    const u = await makeUser();
    const r = await call('GET', `${R()}/users/getjwt`, { token: await tokenFor(u) });
    expect(r.status).toBe(200);
    const { token, expires } = r.body.data;
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    // Clients compare new Date(expires) with their clock: the string must say which zone it is in.
    expect(expires).toMatch(/(Z|[+-]\d{2}:?\d{2})$/);
    const at = new Date(expires).getTime();
    expect(at).toBeGreaterThan(Date.now() + 60_000);
    expect(at).toBeLessThanOrEqual(Date.now() + h.services.config.accessTokenTtlSeconds * 1000 + 5_000);

    const me = await call('GET', `${R()}/users/me`, { token });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(u.id);
    // Renewing with the JWT itself, as the Node client does.
    const again = await call('GET', `${R()}/users/getjwt?audience=${encodeURIComponent('https://forms.example')}`, { token });
    expect(again.status).toBe(200);
    expect((await call('GET', `${R()}/users/me`, { token: again.body.data.token })).status).toBe(200);
  });

  test('renewal stops once the user is disabled or deleted, as the refresh grant does', async () => {
    const u = await makeUser();
    const tok = await tokenFor(u);
    expect((await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { enabled: false } })).status).toBe(200);
    const disabled = await call('GET', `${R()}/users/getjwt`, { token: tok });
    expect([401, 403]).toContain(disabled.status);
    expectError(disabled, disabled.status);
    expect((await call('DELETE', `${R()}/users/${u.id}`, { token: admin })).status).toBe(200);
    const deleted = await call('GET', `${R()}/users/getjwt`, { token: tok });
    expect([401, 403]).toContain(deleted.status);
    expectError(deleted, deleted.status);
  });
});

describe('POST /users?siteId=', () => {
  test('creates from JSON with camel-case keys and returns the User object', async () => {
    const userid = uniq();
    const password = `pw-${randomUUID()}`;
    secrets.add(password);
    const r = await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, {
      token: admin,
      body: { userId: userid, firstName: 'Ann', middleInitial: 'Q', lastName: 'Lee', emailAddress: `${userid}@x.test`, password },
    });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.data)).toBe(false);
    expectUser(r.body.data);
    expect(r.body.data).toMatchObject({
      userid,
      name: userid,
      firstName: 'Ann',
      middleInitial: 'Q',
      lastName: 'Lee',
      emailAddress: `${userid}@x.test`,
      siteId: t.homeSiteId,
      enabled: true,
    });
    expect((await passwordGrant(userid, password)).status).toBe(200);
    const read = await call('GET', `${R()}/users/${r.body.data.id}`, { token: admin });
    expect(read.body.data.emailAddress).toBe(`${userid}@x.test`);
  });

  test('a new user takes the expiry dates sent on create', async () => {
    const userid = uniq();
    const password = `pw-${randomUUID()}`;
    secrets.add(password);
    const body = { userid, firstName: 'E', lastName: 'X', emailaddress: `${userid}@x.test`, password, passwordExpires: '2031-02-03T04:05:06', userIdExpires: '2032-03-04T05:06:07.000Z' };
    const r = await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, { token: admin, body });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ passwordExpires: '2031-02-03T04:05:06.000', userIdExpires: '2032-03-04T05:06:07.000' });
  });

  test('creates from a form body with lower-case keys and True/False booleans', async () => {
    const userid = uniq();
    const password = `pw-${randomUUID()}`;
    secrets.add(password);
    const r = await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, {
      token: admin,
      ...form({ userid, firstname: 'Bo', lastname: 'Ek', emailaddress: `${userid}@x.test`, password, enabled: 'False', passwordNeverExpires: 'True', userIdNeverExpires: 'False' }),
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ userid, firstName: 'Bo', lastName: 'Ek', emailAddress: `${userid}@x.test`, enabled: false, passwordNeverExpires: true, userIdNeverExpires: false });
    // A disabled user cannot log in.
    const login = await passwordGrant(userid, password);
    expect([400, 401]).toContain(login.status);
    expect(login.body.error).toMatch(/invalid|unauthorized|denied/i);
  });

  test('a form body labelled application/json is read as a form', async () => {
    const userid = uniq();
    const password = `pw-${randomUUID()}`;
    secrets.add(password);
    const r = await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, {
      token: admin,
      raw: new URLSearchParams({ userid, firstName: 'C', lastName: 'D', emailaddress: 'c@d.test', password, enabled: 'True' }).toString(),
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ userid, enabled: true });
  });

  test('siteId may come in the body, and another site may be named', async () => {
    const site = await call('POST', `${R()}/sites`, { token: admin, body: { name: uniq('s'), description: 'd', siteType: 'Location' } });
    expect(site.status).toBe(200);
    const userid = uniq();
    secrets.add('pw-body-site');
    const r = await call('POST', `${R()}/users`, {
      token: admin,
      body: { siteId: site.body.data.id, userid, firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-body-site' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.siteId).toBe(site.body.data.id);
    // In the query (or the path) and the body: the same site (any case) is one; two are a 400, and no user is made.
    secrets.add('pw-two-sites');
    const both = (path: string, siteId: string) => call('POST', `${R()}${path}`, { token: admin, body: { siteId, userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-two-sites' } });
    expect((await both(`/users?siteId=${site.body.data.id}`, site.body.data.id.toUpperCase())).body.data.siteId).toBe(site.body.data.id);
    const before = (await call('GET', `${R()}/users?limit=2000`, { token: admin })).body.data.length;
    expectError(await both(`/users?siteId=${t.homeSiteId}`, site.body.data.id), 400, `The siteId in the query ('${t.homeSiteId}') and in the body ('${site.body.data.id}') differ: send one of them, or the same in both.`);
    expectError(await both(`/sites/${t.homeSiteId}/users`, site.body.data.id), 400, `The siteId in the path ('${t.homeSiteId}') and in the body ('${site.body.data.id}') differ`);
    expect((await call('GET', `${R()}/users?limit=2000`, { token: admin })).body.data.length).toBe(before);
  });

  test.each(['userid', 'firstName', 'lastName', 'emailaddress', 'password'])('a missing %s is a 400 naming it', async (field) => {
    const body: Record<string, string> = { userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-missing' };
    secrets.add('pw-missing');
    delete body[field];
    const r = await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, { token: admin, body });
    expectError(r, 400, `The mandatory field '${field}' is missing.`);
  });

  test('a blank userid or password is a 400 saying so', async () => {
    secrets.add('pw-blank');
    const base = { userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-blank' };
    for (const userid of ['   ', '']) {
      expectError(await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, { token: admin, body: { ...base, userid } }), 400, "The field 'userid' must not be blank.");
    }
    expectError(await call('POST', `${R()}/users`, { token: admin, body: { ...base, password: '' } }), 400, "The field 'password' must not be blank.");
    expectError(await call('POST', `${R()}/users`, { token: admin, body: { ...base, userid: null } }), 400, "The mandatory field 'userid' is missing.");
  });

  test('empty firstName, middleInitial, lastName and emailAddress are taken as sent (the spec\'s unset value; the seeded administrator has emailAddress \'\'), on both create routes', async () => {
    secrets.add('pw-empty');
    const empty = { firstName: '', middleInitial: '', lastName: '', emailAddress: '', password: 'pw-empty' };
    const seeded = await call('GET', `${R()}/users/${t.adminId}`, { token: admin });
    expect(seeded.body.data.emailAddress).toBe('');
    for (const path of ['/users', `/sites/${t.homeSiteId}/users`]) {
      const userid = uniq();
      const r = await call('POST', `${R()}${path}`, { token: admin, body: { userid, ...empty } });
      expect([path, r.status]).toEqual([path, 200]);
      expect(r.body.data).toMatchObject({ userid, firstName: '', middleInitial: '', lastName: '', emailAddress: '' });
    }
    const formed = await call('POST', `${R()}/users`, { token: admin, ...form({ userid: uniq(), firstname: '', lastname: '', emailaddress: '', password: 'pw-empty' }) });
    expect(formed.status).toBe(200);
    expect(formed.body.data).toMatchObject({ firstName: '', lastName: '', emailAddress: '' });
  });

  test('control characters in the userid or a first, middle or last name are a 400 naming the field, on create and update; nothing changes', async () => {
    secrets.add('pw-ctl');
    const base = () => ({ userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-ctl' });
    for (const [field, value] of [['userid', 'u\u001b[2J'], ['userid', 'two\nlines'], ['firstName', 'Ann\tMarie'], ['lastName', 'Lee\r\nX-Injected: 1'], ['middleInitial', '\u0007']]) {
      const body = { ...base(), [field]: value };
      expectError(await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, { token: admin, body }), 400, `The field '${field}' may not contain control characters.`);
      const q = encodeURIComponent(`userid eq '${body.userid}'`);
      expect((await call('GET', `${R()}/users?q=${q}`, { token: admin })).body.data).toEqual([]);
    }
    const u = await makeUser();
    for (const body of [{ firstName: 'a\nb' }, { lastName: '\u001b' }, { middleInitial: '\t' }, { userid: `${u.userid}\n` + 'x' }]) {
      expectError(await call('PUT', `${R()}/users/${u.id}`, { token: admin, body }), 400, 'control characters');
    }
    expectError(await call('PUT', `${R()}/users/${u.id}/userId`, { token: admin, body: { userId: 'new\u0001id' } }), 400, "'userid' may not contain control characters");
    expect((await call('GET', `${R()}/users/${u.id}`, { token: admin })).body.data).toMatchObject({ userid: u.userid, firstName: 'First', lastName: 'Last', middleInitial: '' });
    // Names are otherwise kept as sent, spaces included.
    expect((await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { firstName: ' Ann ' } })).body.data.firstName).toBe(' Ann ');
  });

  test('a name stored before DEL and the C1 controls were refused (U+0091 here) is kept when an update resends it unchanged; a new value holding one is a 400', async () => {
    // Curly quotes of Windows-1252 text read as Latin-1: the API refuses them now, so the row is changed in SQL.
    const u = await makeUser();
    await h.services.reads.query('update app_user set first_name = $1 where tenant_id = $2 and id = $3', ['D\u0091Arcy', t.tenantId, u.id]);
    // The site route takes the keys of a creation, which clients resend whole.
    const body = { userid: u.userid, firstName: 'D\u0091Arcy', lastName: 'Laster', emailaddress: `${u.userid}@example.com` };
    const same = await call('PUT', `${R()}/sites/${t.homeSiteId}/users/${u.id}`, { token: admin, body });
    expect([same.status, same.body.data?.firstName, same.body.data?.lastName]).toEqual([200, 'D\u0091Arcy', 'Laster']);
    expectError(await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { firstName: 'D\u0091Arcie' } }), 400, "The field 'firstName' may not contain control characters.");
    expectError(await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { lastName: 'L\u0091' } }), 400, "'lastName' may not contain control characters");
    expect((await call('GET', `${R()}/users/${u.id}`, { token: admin })).body.data).toMatchObject({ firstName: 'D\u0091Arcy', lastName: 'Laster' });
  });

  test('a duplicate userid, in any case, is a 409', async () => {
    const u = await makeUser();
    secrets.add('pw-dup');
    const r = await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, {
      token: admin,
      body: { userid: u.userid.toUpperCase(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-dup' },
    });
    expectError(r, 409, /already exists/i);
    const admin2 = await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, {
      token: admin,
      body: { userid: 'ADMIN', firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-dup' },
    });
    expectError(admin2, 409);
  });

  test('an unknown or malformed siteId is a 400', async () => {
    secrets.add('pw-site');
    const body = { userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-site' };
    expectError(await call('POST', `${R()}/users?siteId=${randomUUID()}`, { token: admin, body }), 400, /site/i);
    expectError(await call('POST', `${R()}/users?siteId=nope`, { token: admin, body }), 400, /siteId/);
    // Nothing was created by the failed attempts.
    const q = encodeURIComponent(`userid eq '${body.userid}'`);
    expect((await call('GET', `${R()}/users?q=${q}`, { token: admin })).body.data).toEqual([]);
  });

  test('without a siteId the user goes to the Home site, as the clients expect', async () => {
    secrets.add('pw-home');
    const body = { userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-home' };
    const r = await call('POST', `${R()}/users`, { token: admin, body });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ userid: body.userid, siteId: t.homeSiteId });
    expect((await call('GET', `${R()}/users/${r.body.data.id}`, { token: admin })).body.data.siteId).toBe(t.homeSiteId);
  });

  test('a field of the wrong type is a 400, not a 500; a number for a text field is taken as its text', async () => {
    secrets.add('pw-types');
    const base = () => ({ userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-types' });
    for (const bad of [{ enabled: 'maybe' }, { firstName: { a: 1 } }, { lastName: ['a', { b: 1 }] }, { passwordExpires: 'yesterday' }, { siteId: 7 }, { passwordNeverExpires: 2 }]) {
      const r = await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, { token: admin, body: { ...base(), ...bad } });
      expect([JSON.stringify(bad), r.status]).toEqual([JSON.stringify(bad), 400]);
      expectError(r, 400);
    }
    const numeric = await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, { token: admin, body: { ...base(), firstName: 42, enabled: 1 } });
    expect(numeric.status).toBe(200);
    expect(numeric.body.data).toMatchObject({ firstName: '42', enabled: true });
  });
});

describe('PUT /users/{id}', () => {
  test('changes only the keys sent', async () => {
    const u = await makeUser({ middleInitial: 'M' });
    const r = await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { firstName: 'Changed' } });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body.data)).toBe(false);
    expect(r.body.data).toMatchObject({ id: u.id, firstName: 'Changed', lastName: 'Last', middleInitial: 'M', userid: u.userid, enabled: true });
    const read = await call('GET', `${R()}/users/${u.id}`, { token: admin });
    expect(read.body.data).toMatchObject({ firstName: 'Changed', lastName: 'Last', emailAddress: `${u.userid}@example.com` });
    // The password still works: an update without a password leaves it alone.
    expect((await passwordGrant(u.userid, u.password)).status).toBe(200);
  });

  test("an administrator's siteId moves the user, as on PUT sites/{id}/users/{userId} (it was answered 200 and ignored)", async () => {
    const u = await makeUser();
    const site = await call('POST', `${R()}/sites`, { token: admin, body: { name: `moved-${u.userid}`, description: '' } });
    const r = await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { siteId: site.body.data.id, firstName: 'Moved' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ siteId: site.body.data.id, firstName: 'Moved' });
    expect((await call('GET', `${R()}/users/${u.id}`, { token: admin })).body.data.siteId).toBe(site.body.data.id);
  });

  test('a blank userid is a 400, as on PUT users/{id}/userId; nothing changes', async () => {
    const u = await makeUser();
    for (const userid of ['', '   ']) {
      const r = await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { userid, firstName: 'Not this' } });
      expect(r.status).toBe(400);
      expect(r.body.meta.errors[0].message).toBe("The field 'userid' must not be blank.");
    }
    expect((await call('GET', `${R()}/users/${u.id}`, { token: admin })).body.data).toMatchObject({ userid: u.userid, firstName: 'First' });
  });

  test('accepts form bodies with lower-case keys and False; a disabled user cannot log in', async () => {
    const u = await makeUser();
    const r = await call('PUT', `${R()}/users/${u.id}`, { token: admin, ...form({ lastname: 'Formed', emailaddress: 'new@x.test', enabled: 'False' }) });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ lastName: 'Formed', emailAddress: 'new@x.test', enabled: false });
    const login = await passwordGrant(u.userid, u.password);
    expect([400, 401]).toContain(login.status);
    const back = await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { enabled: true } });
    expect(back.body.data.enabled).toBe(true);
    expect((await passwordGrant(u.userid, u.password)).status).toBe(200);
  });

  test('an administrator may set the password through PUT users/{id}', async () => {
    const u = await makeUser();
    const next = `pw-${randomUUID()}`;
    secrets.add(next);
    expect((await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { password: next } })).status).toBe(200);
    expect((await passwordGrant(u.userid, next)).status).toBe(200);
    expect((await passwordGrant(u.userid, u.password)).status).not.toBe(200);
  });

  test('an administrator changing their own password through PUT users/{id} proves the old one, like everyone', async () => {
    const own = await h.tenant();
    secrets.add(own.password);
    const token = await h.login(own);
    const next = `pw-${randomUUID()}`;
    secrets.add(next);
    const put = (body: Record<string, unknown>) => call('PUT', `${own.root}/users/${own.adminId}`, { token, body });
    expectError(await put({ password: next }), 400, /oldPassword/);
    expectError(await put({ password: next, oldPassword: 'wrong' }), 403, /old password/);
    expectError(await put({ password: next, firstName: 'X' }), 400, /oldPassword/);
    expectError(await call('PUT', `${own.root}/sites/${own.homeSiteId}/users/${own.adminId}`, { token, body: { password: next } }), 400, /oldPassword/);
    // Nothing changed: the old password still logs in, the new one does not.
    expect(await h.login(own)).toBeTruthy();
    expect((await h.request('GET', `${own.root}/users/me`, { token })).body.data.firstName).toBe('Admin');
    expect((await put({ password: next, oldPassword: own.password })).status).toBe(200);
    expect(await h.login(own, own.adminUserId, next)).toBeTruthy();
  });

  test('a password of spaces only is no password on all three routes: a 400, and the old one still logs in', async () => {
    const u = await makeUser();
    secrets.add('   ');
    const body = { userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: '   ' };
    expectError(await call('POST', `${R()}/users?siteId=${t.homeSiteId}`, { token: admin, body }), 400, /password/);
    expectError(await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { password: '   ' } }), 400, /password/);
    expectError(await call('PUT', `${R()}/users/${u.id}`, { token: admin, ...form({ password: '\t ' }) }), 400, /password/);
    expectError(await call('PUT', `${R()}/users/${u.id}/password`, { token: admin, body: { newPassword: '   ' } }), 400, /newPassword/);
    // A user's own change (newPassword through PUT users/{id}, as the Node client sends it) too.
    const tok = await tokenFor(u);
    expectError(await call('PUT', `${R()}/users/${u.id}`, { token: tok, body: { newPassword: '  ', oldPassword: u.password } }), 400, /newPassword/);
    expect((await passwordGrant(u.userid, '   ')).status).not.toBe(200);
    expect((await passwordGrant(u.userid, u.password)).status).toBe(200);
    // Spaces around a real password are kept as sent.
    const spaced = ` pw-${randomUUID()} `;
    secrets.add(spaced);
    expect((await call('PUT', `${R()}/users/${u.id}`, { token: admin, body: { password: spaced } })).status).toBe(200);
    expect((await passwordGrant(u.userid, spaced)).status).toBe(200);
  });

  test('an unknown id is a 404; an administrator cannot disable themselves', async () => {
    expectError(await call('PUT', `${R()}/users/${randomUUID()}`, { token: admin, body: { firstName: 'x' } }), 404);
    expectError(await call('PUT', `${R()}/users/${t.adminId}`, { token: admin, body: { enabled: false } }), 400);
  });
});

describe('PUT /users/{id}/password', () => {
  test('users change their own password with the old one; the new logs in, the old no longer', async () => {
    const u = await makeUser();
    const tok = await tokenFor(u);
    const next = `pw-${randomUUID()}`;
    secrets.add(next);
    const r = await call('PUT', `${R()}/users/${u.id}/password`, { token: tok, body: { oldPassword: u.password, newPassword: next } });
    expect(r.status).toBe(200);
    expect(r.body.data.id).toBe(u.id);
    expect((await passwordGrant(u.userid, next)).status).toBe(200);
    const old = await passwordGrant(u.userid, u.password);
    expect([400, 401]).toContain(old.status);
    expect(old.body.error).toMatch(/invalid|unauthorized|denied/i);
  });

  test('changes at once with the same old password: one wins, the rest are told their session ended with it (the password they proved no longer holds); the winner\'s logs in', async () => {
    const u = await makeUser();
    const tok = await tokenFor(u);
    const next = Array.from({ length: 5 }, () => `pw-${randomUUID()}`);
    next.forEach((p) => secrets.add(p));
    const answers = await Promise.all(next.map((newPassword) => call('PUT', `${R()}/users/${u.id}/password`, { token: tok, body: { oldPassword: u.password, newPassword } })));
    const won = answers.flatMap((r, i) => (r.status === 200 ? [next[i]] : []));
    expect(won).toHaveLength(1);
    // Each waited for the winner's change, which ended the token's session: what the token gets after it.
    for (const r of answers.filter((a) => a.status !== 200)) expectError(r, 401, /session has ended/);
    expect((await passwordGrant(u.userid, won[0])).status).toBe(200);
  });

  test('the all-zero GUID and a form body work for the caller', async () => {
    const u = await makeUser();
    const tok = await tokenFor(u);
    const next = `pw-${randomUUID()}`;
    secrets.add(next);
    const r = await call('PUT', `${R()}/users/${ZERO}/Password`, { token: tok, ...form({ oldPassword: u.password, newPassword: next }) });
    expect(r.status).toBe(200);
    expect((await passwordGrant(u.userid, next)).status).toBe(200);
  });

  test('a self-change without, or with a wrong, old password is refused', async () => {
    const u = await makeUser();
    const tok = await tokenFor(u);
    secrets.add('pw-never-set');
    expectError(await call('PUT', `${R()}/users/${u.id}/password`, { token: tok, body: { newPassword: 'pw-never-set' } }), 400, /oldPassword/);
    const wrong = await call('PUT', `${R()}/users/${u.id}/password`, { token: tok, body: { oldPassword: 'not-it', newPassword: 'pw-never-set' } });
    expect([400, 401, 403]).toContain(wrong.status);
    expectError(wrong, wrong.status);
    expectError(await call('PUT', `${R()}/users/${u.id}/password`, { token: tok, body: { oldPassword: u.password } }), 400, /newPassword/);
    expect((await passwordGrant(u.userid, u.password)).status).toBe(200);
  });

  test('an administrator sets another user\'s password without the old one', async () => {
    const u = await makeUser();
    const next = `pw-${randomUUID()}`;
    secrets.add(next);
    const r = await call('PUT', `${R()}/users/${u.id}/password`, { token: admin, body: { newPassword: next } });
    expect(r.status).toBe(200);
    expect((await passwordGrant(u.userid, next)).status).toBe(200);
    expect([400, 401]).toContain((await passwordGrant(u.userid, u.password)).status);
  });

  test('an ordinary user cannot change someone else\'s password', async () => {
    const u = await makeUser();
    const other = await makeUser();
    secrets.add('pw-hijack');
    const tok = await tokenFor(u);
    expectError(await call('PUT', `${R()}/users/${other.id}/password`, { token: tok, body: { oldPassword: other.password, newPassword: 'pw-hijack' } }), 403);
    expectError(await call('PUT', `${R()}/users/${t.adminId}/password`, { token: tok, body: { newPassword: 'pw-hijack' } }), 403);
    expect((await passwordGrant(other.userid, other.password)).status).toBe(200);
    expect((await passwordGrant(other.userid, 'pw-hijack')).status).not.toBe(200);
  });

  test('an unknown user is a 404', async () => {
    secrets.add('pw-ghost');
    expectError(await call('PUT', `${R()}/users/${randomUUID()}/password`, { token: admin, body: { newPassword: 'pw-ghost' } }), 404);
  });
});

describe('PUT /users/{id}/userId', () => {
  test('renames the login; the new name logs in, the old no longer', async () => {
    const u = await makeUser();
    const renamed = uniq('r');
    const r = await call('PUT', `${R()}/users/${u.id}/userId`, { token: admin, body: { userId: renamed } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: u.id, userid: renamed });
    expect((await passwordGrant(renamed, u.password)).status).toBe(200);
    expect((await passwordGrant(u.userid, u.password)).status).not.toBe(200);
    const q = encodeURIComponent(`userid eq '${renamed}'`);
    expect((await call('GET', `${R()}/users?q=${q}`, { token: admin })).body.data.map((x: { id: string }) => x.id)).toEqual([u.id]);
  });

  test('a taken userid is a 409; a missing one is a 400; an unknown user a 404', async () => {
    const u = await makeUser();
    const other = await makeUser();
    expectError(await call('PUT', `${R()}/users/${u.id}/userid`, { token: admin, body: { userId: other.userid.toUpperCase() } }), 409);
    expectError(await call('PUT', `${R()}/users/${u.id}/userid`, { token: admin, body: {} }), 400, /userId/);
    expectError(await call('PUT', `${R()}/users/${randomUUID()}/userid`, { token: admin, body: { userId: uniq() } }), 404);
    // A change of case only of one's own name is allowed.
    const same = await call('PUT', `${R()}/users/${u.id}/userid`, { token: admin, ...form({ userId: u.userid.toUpperCase() }) });
    expect(same.status).toBe(200);
    expect(same.body.data.userid).toBe(u.userid.toUpperCase());
    expect((await passwordGrant(u.userid, u.password)).status).toBe(200);
  });
});

test("the .NET client's users/DefaultCustomer, users/AccountOwner and users/Invites: 404 saying they are not served and why, not a 400 about a GUID", async () => {
  for (const [method, path, why] of [
    ['GET', '/Users/DefaultCustomer', 'a user here belongs to one customer and database'],
    ['GET', '/Users/AccountOwner', 'no one user is the account owner here; GET users?isVaultAccess=true lists the account owners'],
    ['GET', '/Users/Invites', 'there are no invitations here'],
    ['POST', '/Users/Invites', 'there are no invitations here'],
  ]) {
    const r = await call(method, `${R()}${path}`, { token: admin, ...(method === 'POST' ? { body: { users: [], message: 'hi' } } : {}) });
    expectError(r, 404, `${method} users/${path.split('/')[2]} is not served: ${why}`);
    expect(r.text).not.toMatch(/GUID|UUID/);
  }
});

describe('DELETE /users/{id}', () => {
  test('deletes the user: envelope without data, then 404, and no more logins', async () => {
    const u = await makeUser();
    const r = await call('DELETE', `${R()}/users/${u.id}`, { token: admin, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    expect(r.body).not.toHaveProperty('data');
    expectError(await call('GET', `${R()}/users/${u.id}`, { token: admin }), 404);
    expect((await passwordGrant(u.userid, u.password)).status).not.toBe(200);
    expectError(await call('DELETE', `${R()}/users/${u.id}`, { token: admin }), 404);
  });

  test('a user in groups and with supervisors can be deleted', async () => {
    const u = await makeUser();
    const boss = await makeUser();
    await graphql(admin, `mutation($u: UUID!, $s: UUID!) { addUserSupervisor(userId: $u, input: { supervisorId: $s }) { id } }`, { u: u.id, s: boss.id });
    const g = await call('POST', `${R()}/groups`, { token: admin, body: { name: uniq('g'), description: 'd' } });
    expect((await call('PUT', `${R()}/groups/${g.body.data.id}/users/${u.id}`, { token: admin })).status).toBe(201);
    const r = await call('DELETE', `${R()}/users/${u.id}`, { token: admin });
    expect(r.status).toBe(200);
    expect((await call('GET', `${R()}/users/${boss.id}/supervisees`, { token: admin })).body.data).toEqual([]);
    expect((await call('GET', `${R()}/groups/${g.body.data.id}/users`, { token: admin })).body.data).toEqual([]);
  });

  test('administrators cannot delete themselves', async () => {
    expectError(await call('DELETE', `${R()}/users/${t.adminId}`, { token: admin }), 400);
    expectError(await call('DELETE', `${R()}/users/${ZERO}`, { token: admin }), 400);
  });
});

describe('site-scoped user routes', () => {
  let siteId: string;
  beforeAll(async () => {
    const s = await call('POST', `${R()}/sites`, { token: admin, body: { name: uniq('site'), description: 'users here', siteType: 'Location' } });
    expect(s.status).toBe(200);
    siteId = s.body.data.id;
  });

  test('POST /sites/{id}/users creates a user in that site', async () => {
    const userid = uniq();
    secrets.add('pw-site-user');
    const r = await call('POST', `${R()}/sites/${siteId}/users`, {
      token: admin,
      body: { name: userid, userid, firstName: 'S', lastName: 'U', emailaddress: 's@u.test', password: 'pw-site-user' },
    });
    expect(r.status).toBe(200);
    expectUser(r.body.data);
    expect(r.body.data).toMatchObject({ userid, name: userid, siteId });

    const list = await call('GET', `${R()}/sites/${siteId}/users`, { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.data.map((u: { id: string }) => u.id)).toContain(r.body.data.id);
    expect(list.body.data.every((u: { siteId: string }) => u.siteId === siteId)).toBe(true);

    const one = await call('GET', `${R()}/sites/${siteId}/users/${r.body.data.id}`, { token: admin });
    expect(one.status).toBe(200);
    expect(one.body.data).toHaveLength(1);
    expect(one.body.data[0].id).toBe(r.body.data.id);

    // The user is not in Home.
    expectError(await call('GET', `${R()}/sites/${t.homeSiteId}/users/${r.body.data.id}`, { token: admin }), 404);
    const home = await call('GET', `${R()}/sites/${t.homeSiteId}/users`, { token: admin });
    expect(home.body.data.map((u: { id: string }) => u.id)).not.toContain(r.body.data.id);
    expect(home.body.data.map((u: { id: string }) => u.id)).toContain(t.adminId);
  });

  test('GET /sites/{id}/users takes q', async () => {
    const u = await makeUser({}, siteId);
    const r = await call('GET', `${R()}/sites/${siteId}/users?q=userid+eq+'${u.userid}'`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: { id: string }) => x.id)).toEqual([u.id]);
  });

  test('PUT /sites/{id}/users/{userId} updates partially', async () => {
    const u = await makeUser({}, siteId);
    const r = await call('PUT', `${R()}/sites/${siteId}/users/${u.id}`, { token: admin, body: { lastName: 'Sited' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: u.id, lastName: 'Sited', firstName: 'First', siteId });
    expectError(await call('PUT', `${R()}/sites/${t.homeSiteId}/users/${u.id}`, { token: admin, body: { lastName: 'x' } }), 404);
  });

  test('PUT /sites/{id}/users/{userId} takes newPassword as PUT users/{id} does (it was dropped without a word)', async () => {
    const u = await makeUser({}, siteId);
    const next = `pw-${randomUUID()}`;
    secrets.add(next);
    expect((await call('PUT', `${R()}/sites/${siteId}/users/${u.id}`, { token: admin, body: { newPassword: next } })).status).toBe(200);
    expect((await passwordGrant(u.userid, next)).status).toBe(200);
    expect((await passwordGrant(u.userid, u.password)).status).not.toBe(200);
  });

  test('validation and unknown ids', async () => {
    secrets.add('pw-sv');
    expectError(
      await call('POST', `${R()}/sites/${siteId}/users`, { token: admin, body: { userid: uniq(), firstName: 'F', emailaddress: 'e@x.test', password: 'pw-sv' } }),
      400,
      /lastName/,
    );
    const ghost = randomUUID();
    const unknownSite = await call('POST', `${R()}/sites/${ghost}/users`, {
      token: admin,
      body: { userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-sv' },
    });
    expect([400, 404]).toContain(unknownSite.status);
    expectError(unknownSite, unknownSite.status);
    expectError(await call('GET', `${R()}/sites/${ghost}/users`, { token: admin }), 404);
    expectError(await call('GET', `${R()}/sites/${siteId}/users/${randomUUID()}`, { token: admin }), 404);
    expectError(await call('PUT', `${R()}/sites/${siteId}/users/${randomUUID()}`, { token: admin, body: { lastName: 'x' } }), 404);
  });
});

describe('an ordinary user', () => {
  let u: NewUser;
  let other: NewUser;
  let tok: string;
  beforeAll(async () => {
    u = await makeUser();
    other = await makeUser();
    tok = await tokenFor(u);
  });

  test('may read users', async () => {
    for (const path of [`/users`, `/users/me`, `/users/${other.id}`, `/users/${ZERO}`, `/users/${other.id}/groups`, `/users/${other.id}/supervisors`, `/users/${other.id}/supervisees`, `/sites/${t.homeSiteId}/users`, `/sites/${t.homeSiteId}/users/${other.id}`, `/users/getjwt`]) {
      const r = await call('GET', `${R()}${path}`, { token: tok });
      expect([path, r.status]).toEqual([path, 200]);
    }
  });

  test('gets 403 on every other write and nothing changes', async () => {
    secrets.add('pw-ordinary');
    const body = { userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e@x.test', password: 'pw-ordinary' };
    const writes: [string, string, unknown][] = [
      ['POST', `/users?siteId=${t.homeSiteId}`, body],
      ['POST', `/sites/${t.homeSiteId}/users`, body],
      ['PUT', `/users/${other.id}`, { firstName: 'Hacked' }],
      ['PUT', `/users/${u.id}`, { enabled: false }],
      ['PUT', `/users/${u.id}`, { firstName: 'Self', userid: uniq() }],
      ['PUT', `/sites/${t.homeSiteId}/users/${other.id}`, { firstName: 'Hacked' }],
      ['PUT', `/users/${other.id}/userId`, { userId: uniq() }],
      ['PUT', `/users/${u.id}/userId`, { userId: uniq() }],
      ['DELETE', `/users/${other.id}`, undefined],
      ['PUT', `/users/${other.id}/password`, { newPassword: 'pw-ordinary' }],
    ];
    for (const [method, path, b] of writes) {
      const r = await call(method, `${R()}${path}`, { token: tok, body: b });
      expect([method, path, r.status]).toEqual([method, path, 403]);
      expectError(r, 403);
    }
    const read = await call('GET', `${R()}/users/${other.id}`, { token: admin });
    expect(read.body.data).toMatchObject({ firstName: 'First', userid: other.userid });
    expect((await call('GET', `${R()}/users/${u.id}`, { token: admin })).body.data).toMatchObject({ firstName: 'First', userid: u.userid });
    const q = encodeURIComponent(`userid eq '${body.userid}'`);
    expect((await call('GET', `${R()}/users?q=${q}`, { token: admin })).body.data).toEqual([]);
  });

  test('changes their own password through PUT users/{id}, as the Node client documents', async () => {
    const me = await makeUser();
    const myToken = await tokenFor(me);
    expectError(await call('PUT', `${R()}/users/${me.id}`, { token: myToken, body: { newPassword: 'pw-new-1' } }), 400, /oldPassword/);
    expect((await call('PUT', `${R()}/users/${me.id}`, { token: myToken, body: { newPassword: 'pw-new-1', oldPassword: me.password } })).status).toBe(200);
    secrets.add('pw-new-1');
    expect((await tokenFor({ ...me, password: 'pw-new-1' })).length).toBeGreaterThan(20);
  });

  test('changes their own first, middle and last name and e-mail address (as the Node client documents), by id, the all-zero GUID or their site\'s route', async () => {
    const me = await makeUser({ middleInitial: 'M' });
    let myToken = await tokenFor(me);
    const put = (path: string, body: Record<string, unknown>) => call('PUT', `${R()}${path}`, { token: myToken, body });
    const byId = await put(`/users/${me.id}`, { firstName: 'Own', lastName: 'Name', emailAddress: 'own@x.test' });
    expect(byId.status).toBe(200);
    expect(byId.body.data).toMatchObject({ id: me.id, firstName: 'Own', middleInitial: 'M', lastName: 'Name', emailAddress: 'own@x.test', userid: me.userid, enabled: true });
    expect((await put(`/users/${ZERO}`, { middleInitial: 'Q', emailaddress: '' })).body.data).toMatchObject({ id: me.id, middleInitial: 'Q', emailAddress: '' });
    // A form body, and the password beside the profile: both change, in one call.
    secrets.add('pw-own-profile');
    const formed = await call('PUT', `${R()}/users/${me.id}`, { token: myToken, ...form({ firstname: 'Formed', newPassword: 'pw-own-profile', oldPassword: me.password }) });
    expect(formed.body.data).toMatchObject({ firstName: 'Formed', lastName: 'Name' });
    // The change ended the session, as every password change does.
    myToken = await tokenFor({ ...me, password: 'pw-own-profile' });
    // The site-scoped route takes the same keys under the same rule.
    const sited = await put(`/sites/${t.homeSiteId}/users/${me.id}`, { lastName: 'Sited' });
    expect(sited.status).toBe(200);
    expect(sited.body.data).toMatchObject({ id: me.id, firstName: 'Formed', lastName: 'Sited', siteId: t.homeSiteId });
    expect((await put(`/sites/${t.homeSiteId}/users/${ZERO}`, { firstName: 'Zero' })).body.data.firstName).toBe('Zero');
    // The profile's own checks still apply.
    expectError(await put(`/users/${me.id}`, { firstName: 'a\nb' }), 400, 'control characters');
    expectError(await put(`/users/${me.id}`, { lastName: 'x'.repeat(129) }), 400, /lastName/);
    expect((await call('GET', `${R()}/users/${me.id}`, { token: admin })).body.data).toMatchObject({ firstName: 'Zero', middleInitial: 'Q', lastName: 'Sited', emailAddress: '' });
  });

  test('anything else of their own account stays an administrator\'s: a 403 naming it, and nothing changes', async () => {
    const me = await makeUser();
    const myToken = await tokenFor(me);
    const site = await call('POST', `${R()}/sites`, { token: admin, body: { name: uniq('s'), description: 'd' } });
    secrets.add('pw-own-admin');
    const refused: [string, Record<string, unknown>, string][] = [
      [`/users/${me.id}`, { enabled: false }, 'enabled'],
      [`/users/${me.id}`, { firstName: 'Own', isVaultAccess: true }, 'isVaultAccess'],
      [`/users/${me.id}`, { firstName: 'Own', siteId: site.body.data.id }, 'siteId'],
      [`/users/${me.id}`, { lastName: 'Own', userid: uniq() }, 'userid'],
      [`/users/${me.id}`, { password: 'pw-own-admin', oldPassword: me.password }, 'password'],
      [`/users/${me.id}`, { emailAddress: 'e@x.test', passwordNeverExpires: false }, 'passwordNeverExpires'],
      [`/users/${ZERO}`, { mustChangePassword: true }, 'mustChangePassword'],
      [`/sites/${t.homeSiteId}/users/${me.id}`, { firstName: 'Own', siteId: site.body.data.id }, 'siteId'],
      [`/sites/${t.homeSiteId}/users/${me.id}`, { enabled: false }, 'enabled'],
      [`/sites/${t.homeSiteId}/users/${ZERO}`, { isVaultAccess: 'true' }, 'isVaultAccess'],
    ];
    for (const [path, body, key] of refused) {
      const r = await call('PUT', `${R()}${path}`, { token: myToken, body });
      expect([path, JSON.stringify(body), r.status]).toEqual([path, JSON.stringify(body), 403]);
      expectError(r, 403, `Only an administrator may change ${key}.`);
    }
    const gql = await h.request('POST', '/graphql', { token: myToken, body: { query: `mutation ($id: UUID!) { updateUser(id: $id, input: { isVaultAccess: true }) { id } }`, variables: { id: me.id } } });
    expect(gql.body.errors[0]).toMatchObject({ message: 'Only an administrator may change isVaultAccess.', extensions: { code: 'FORBIDDEN' } });
    expect((await call('GET', `${R()}/users/${me.id}?expand=data`, { token: admin })).body.data).toMatchObject({ firstName: 'First', lastName: 'Last', userid: me.userid, siteId: t.homeSiteId, enabled: true, passwordNeverExpires: true, isVaultAccess: false });
    expect((await passwordGrant(me.userid, me.password)).status).toBe(200);
  });

  test('a password change ends other sessions: their refresh tokens stop working', async () => {
    const me = await makeUser();
    const login = await passwordGrant(me.userid, me.password);
    expect(login.status).toBe(200);
    const myToken = login.body.access_token;
    secrets.add('pw-new-2');
    const changed = await call('PUT', `${R()}/users/${me.id}/password`, { token: myToken, body: { oldPassword: me.password, newPassword: 'pw-new-2' } });
    expect(changed.status).toBe(200);
    const refresh = await h.request('POST', '/oauth/token', form({ grant_type: 'refresh_token', refresh_token: login.body.refresh_token, client_id: t.clientId, client_secret: t.clientSecret }));
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  test('an administrator removed from Administrators loses admin rights at once, token or not', async () => {
    const a2 = await makeUser();
    const admins = await call('GET', `${R()}/groups?q=${encodeURIComponent("name eq 'Administrators'")}`, { token: admin });
    const adminsId = admins.body.data[0].id;
    expect((await call('PUT', `${R()}/groups/${adminsId}/users/${a2.id}`, { token: admin })).status).toBe(201);
    const tok2 = await tokenFor(a2);
    expect((await call('PUT', `${R()}/users/${other.id}`, { token: tok2, body: { middleInitial: 'A' } })).status).toBe(200);
    expect((await call('DELETE', `${R()}/groups/${adminsId}/users/${a2.id}`, { token: admin })).status).toBe(200);
    expectError(await call('PUT', `${R()}/users/${other.id}`, { token: tok2, body: { middleInitial: 'B' } }), 403);
    expect((await call('GET', `${R()}/users/${other.id}`, { token: admin })).body.data.middleInitial).toBe('A');
  });

  test('adding a supervisor through GraphQL needs an administrator', async () => {
    const r = await h.request('POST', '/graphql', {
      token: tok,
      body: { query: `mutation($u: UUID!, $s: UUID!) { addUserSupervisor(userId: $u, input: { supervisorId: $s }) { id } }`, variables: { u: u.id, s: other.id } },
    });
    expect(r.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await call('GET', `${R()}/users/${u.id}/supervisors`, { token: admin })).body.data).toEqual([]);
  });
});

describe('tenancy', () => {
  test('a token of another tenant gets 403 and no data on every users route', async () => {
    const other = await h.tenant();
    secrets.add(other.password);
    const foreign = await h.login(other);
    const u = await makeUser();
    const routes: [string, string, unknown?][] = [
      ['GET', '/users'],
      ['GET', '/users/me'],
      ['GET', `/users/${u.id}`],
      ['GET', `/users/${other.adminId}`],
      ['GET', `/users/${u.id}/groups`],
      ['GET', `/users/${u.id}/supervisors`],
      ['GET', `/users/${u.id}/supervisees`],
      ['GET', `/users/${u.id}/webToken`],
      ['GET', '/users/getjwt'],
      ['POST', `/users?siteId=${t.homeSiteId}`, { userid: uniq(), firstName: 'F', lastName: 'L', emailaddress: 'e', password: 'p' }],
      ['PUT', `/users/${u.id}`, { firstName: 'x' }],
      ['PUT', `/users/${u.id}/password`, { newPassword: 'x' }],
      ['PUT', `/users/${u.id}/userId`, { userId: 'x' }],
      ['DELETE', `/users/${u.id}`],
      ['GET', `/sites/${t.homeSiteId}/users`],
      ['GET', `/sites/${t.homeSiteId}/users/${u.id}`],
      ['POST', `/sites/${t.homeSiteId}/users`, { userid: uniq() }],
      ['PUT', `/sites/${t.homeSiteId}/users/${u.id}`, { firstName: 'x' }],
    ];
    for (const [method, path, body] of routes) {
      const r = await call(method, `${R()}${path}`, { token: foreign, body });
      expect([method, path, r.status]).toEqual([method, path, 403]);
      expectError(r, 403);
      expect(r.text).not.toContain(u.userid);
    }
    // The user is untouched and still in its tenant only.
    expect((await call('GET', `${R()}/users/${u.id}`, { token: admin })).body.data.firstName).toBe('First');
    expectError(await call('GET', `${other.root}/users/${u.id}`, { token: foreign }), 404);
  });
});
