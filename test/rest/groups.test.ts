/**
 * HTTP-level tests of the Groups routes (rest-api-v1.md "Groups" plus the client-compatibility
 * extras: DELETE /groups/{id} and the membership calls PUT/DELETE /groups/{id}/users[/{userId}]).
 */
import { randomUUID } from 'node:crypto';
import type { Reply } from '../harness.js';
import {
  adminApi,
  Api,
  createGroup,
  createSite,
  createUser,
  createUsers,
  expectAsUnknown,
  expectEnvelope,
  expectError,
  expectGroup,
  expectSite,
  expectExpandedUser,
  expectUser,
  type Fixture,
  keysOf,
  PAGINATION_KEYS,
  pathOf,
  q,
  sorted,
  uniq,
  UNKNOWN_ID,
  type UserFixture,
  whileHeld,
  ZERO_GUID,
} from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

setUpTwoTenants();

const ids = (r: Reply) => r.body.data.map((d: { id: string }) => d.id);
const names = (r: Reply) => r.body.data.map((d: { name: string }) => d.name);
const members = async (api: Api, groupId: string) => ids(await api.get(`/groups/${groupId}/users`));

describe('GET /groups', () => {
  let T: Api;
  let site: Fixture;
  let alpha: Fixture;
  let bravo: Fixture;
  beforeAll(async () => {
    T = await adminApi(h);
    site = await createSite(T, 'Branch');
    alpha = await createGroup(T, { name: 'Alpha', description: 'first group', siteId: site.id });
    bravo = await createGroup(T, { name: 'Bravo', description: 'second group' });
  });

  test('lists every group of the tenant, ordered by name, as exact Group records', async () => {
    const r = await T.get('/groups');
    expectEnvelope(r, 'GET', T.url('/groups'));
    expect(keysOf(r.body)).toEqual(['data', 'meta']);
    expect(names(r)).toEqual(['Administrators', 'Alpha', 'Bravo']);
    r.body.data.forEach(expectGroup);
    expect(r.body.data[1]).toEqual({
      href: `~/groups/${alpha.id}`,
      dataType: 'Group',
      id: alpha.id,
      name: 'Alpha',
      description: 'first group',
      siteId: site.id,
    });
    expect(r.body.data[0].siteId).toBe(T.t.homeSiteId);
    // A group without a site shows the all-zero GUID.
    expect(r.body.data[2].siteId).toBe(ZERO_GUID);
  });

  test.each([
    ["name eq 'ALPHA'", ['Alpha']],
    ["Name eq 'bravo'", ['Bravo']],
    ["[name] eq 'administrators'", ['Administrators']],
    ["name like 'a%'", ['Administrators', 'Alpha']],
    ["name like '%RAV%'", ['Bravo']],
    ["description like '%GROUP'", ['Alpha', 'Bravo']],
    ["name ne 'alpha'", ['Administrators', 'Bravo']],
    ["name eq 'Alpha' or name eq 'Bravo'", ['Alpha', 'Bravo']],
    ["name in ('ALPHA', 'bravo')", ['Alpha', 'Bravo']],
    ["not (name like 'a%')", ['Bravo']],
    // What q compares is what a record shows: a group without a site reads as the all-zero GUID.
    ["siteId eq '00000000-0000-0000-0000-000000000000'", ['Bravo']],
    ["siteId ne '00000000-0000-0000-0000-000000000000'", ['Administrators', 'Alpha']],
    ["name eq 'nothing'", []],
  ])('q=%s filters (case-insensitively)', async (expr, expected) => {
    const path = `/groups?${q(expr)}`;
    const r = await T.get(path);
    expectEnvelope(r, 'GET', T.url(path));
    expect(names(r)).toEqual(expected);
  });

  test('q on siteId and id', async () => {
    expect(names(await T.get(`/groups?${q(`siteId eq '${site.id.toUpperCase()}'`)}`))).toEqual(['Alpha']);
    expect(names(await T.get(`/groups?${q(`id eq '${bravo.id}'`)}`))).toEqual(['Bravo']);
  });

  test('q on href, which every record shows (the spec lists it as a Group field), compares what is shown', async () => {
    const { href } = (await T.get(`/groups/${alpha.id}`)).body.data[0];
    expect(names(await T.get(`/groups?${q(`href eq '${href.toUpperCase()}'`)}`))).toEqual(['Alpha']);
    expect(names(await T.get(`/groups?${q(`[HREF] like '~/groups/%${bravo.id.slice(-12)}'`)}`))).toEqual(['Bravo']);
    expect(names(await T.get(`/groups?${q(`href ne '${href}'`)}`))).toEqual(['Administrators', 'Bravo']);
    expect(ids(await T.get(`/groups/${alpha.id}?${q(`href eq '${href}'`)}`))).toEqual([alpha.id]);
  });

  test('fields= projects case-insensitively and keeps href and dataType', async () => {
    const r = await T.get('/groups?fields=NAME, SiteID');
    expect(r.status).toBe(200);
    expect(r.body.data[1]).toEqual({ href: `~/groups/${alpha.id}`, dataType: 'Group', name: 'Alpha', siteId: site.id });
    for (const g of r.body.data) expect(keysOf(g)).toEqual(['dataType', 'href', 'name', 'siteId']);
  });

  test('limit and offset page through the list', async () => {
    expect(names(await T.get('/groups?limit=2'))).toEqual(['Administrators', 'Alpha']);
    expect(names(await T.get('/groups?limit=1&offset=1'))).toEqual(['Alpha']);
    expect(names(await T.get('/groups?offset=2'))).toEqual(['Bravo']);
    expect(names(await T.get('/groups?offset=9'))).toEqual([]);
    expect(names(await T.get(`/groups?${q("name like '%a%'")}&limit=1&offset=2`))).toEqual(['Bravo']);
  });

  test('expand=users,site adds the members and the site as records', async () => {
    const r = await T.get('/groups?expand=users,site');
    expect(r.status).toBe(200);
    const [admins, a, b] = r.body.data;
    expect(keysOf(admins)).toEqual(sorted(['href', 'dataType', 'id', 'name', 'description', 'siteId', 'users', 'site']));
    expect(admins.users.map((u: { userid: string }) => u.userid)).toEqual(['admin']);
    admins.users.forEach(expectExpandedUser);
    expectSite(admins.site);
    expect(admins.site.id).toBe(T.t.homeSiteId);
    expect(a.users).toEqual([]);
    expect(a.site).toMatchObject({ id: site.id, name: 'Branch' });
    expect(b.site).toBeNull();
    // A relation named again adds nothing (and makes no new variant of the document to keep).
    expect((await T.get('/groups?expand=users,USERS,site,users')).body.data).toEqual(r.body.data);
  });

  test('expand=data (or true) returns all available fields and no relations', async () => {
    for (const v of ['data', 'true']) {
      const r = await T.get(`/groups?expand=${v}`);
      expect(r.status).toBe(200);
      r.body.data.forEach(expectGroup);
    }
  });

  test('expand= of one relation, mixed case, with fields=', async () => {
    const r = await T.get('/groups?expand=Site&fields=name');
    expect(r.status).toBe(200);
    expect(r.body.data[1]).toEqual({
      href: `~/groups/${alpha.id}`,
      dataType: 'Group',
      name: 'Alpha',
      site: expect.objectContaining({ href: `~/sites/${site.id}`, dataType: 'Site', id: site.id }),
    });
  });

  test.each([
    ['q=name%20eq', /^Invalid q/],
    [`q=${encodeURIComponent("nmae eq 'x'")}`, /nmae/],
    [`q=${encodeURIComponent("name eq 'x' and")}`, /^Invalid q/],
    [`q=${encodeURIComponent("siteId eq 'not-a-guid'")}`, /^Invalid q/],
    ['limit=ten', /limit/],
    ['limit=-1', /limit/],
    ['offset=-1', /offset/],
  ])('a bad query string (%s) is a 400', async (qs, message) => {
    expectError(await T.get(`/groups?${qs}`), 400, message);
  });

  test('an unknown field in q lists the known ones as a record spells them (siteId, not siteid), which q takes in any case', async () => {
    const r = await T.get(`/groups?${q('bogus eq 1')}`);
    expectError(r, 400, "Invalid q: unknown field 'bogus' at position 1");
    const record = (await T.get(`/groups/${alpha.id}?expand=data`)).body.data[0];
    const known = Object.keys(record).filter((k) => k !== 'href' && k !== 'dataType');
    expect(known).toEqual(['id', 'name', 'description', 'siteId']);
    expect(r.body.meta.errors[0].developerMessage).toContain(`Known fields: ${[...known, 'href', 'dataType'].join(', ')}.`);
    expect(names(await T.get(`/groups?${q(`SITEID eq '${site.id}' and siteid eq '${site.id}'`)}`))).toEqual(['Alpha']);
  });

  test("a GUID field compared with the text 'null' (what the clients send for an unset setting) is a 400 naming the literal; bare null is IS NULL", async () => {
    const r = await T.get(`/groups?${q("siteId eq 'null'")}`);
    expectError(r, 400, "Invalid q: 'null' is not a GUID (compared with 'siteId') at position 11");
    expect(r.body.meta.errors[0].developerMessage).toMatch(/A GUID has 36 characters/);
    expect((await T.get(`/groups?${q('siteId eq null')}`)).status).toBe(200);
  });
});

describe('POST /groups', () => {
  test('creates a group: 200 with the Group as a single object', async () => {
    const name = uniq('New');
    const r = await A.post('/groups', { name, description: 'made here', siteId: A.t.homeSiteId });
    expectEnvelope(r, 'POST', A.url('/groups'));
    expect(keysOf(r.body)).toEqual(['data', 'meta']);
    expectGroup(r.body.data);
    expect(r.body.data).toMatchObject({ name, description: 'made here', siteId: A.t.homeSiteId });
    expect((await A.get(`/groups/${r.body.data.id}`)).body.data).toEqual([r.body.data]);
  });

  test('without a siteId (or with the all-zero GUID) the group has no site', async () => {
    const r1 = await A.post('/groups', { name: uniq('NoSite'), description: 'd' });
    expect(r1.status).toBe(200);
    expect(r1.body.data.siteId).toBe(ZERO_GUID);
    const r2 = await A.post('/groups', { name: uniq('ZeroSite'), description: 'd', siteId: ZERO_GUID });
    expect(r2.status).toBe(200);
    expect(r2.body.data.siteId).toBe(ZERO_GUID);
  });

  test('keys match case-insensitively; an upper-case siteId is stored lower-case', async () => {
    const name = uniq('Cased');
    const r = await A.post('/groups', { Name: name, DESCRIPTION: 'd', SiteId: A.t.homeSiteId.toUpperCase() });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name, description: 'd', siteId: A.t.homeSiteId });
  });

  test.each([
    [{ description: 'd' }, "The mandatory field 'name' is missing."],
    [{ name: '  ', description: 'd' }, "The field 'name' must not be blank."],
    [{ name: '', description: '' }, "The field 'name' must not be blank."],
    [{ name: 'x' }, "The mandatory field 'description' is missing."],
    [{}, "The mandatory field 'name' is missing."],
  ])('a missing mandatory field or a blank name (%j) is a 400 saying which', async (body, message) => {
    expectError(await A.post('/groups', body), 400, message);
  });

  test('an empty description is taken as sent (the spec shows empty strings for unset values)', async () => {
    const name = uniq('Bare');
    const r = await A.post('/groups', { name, description: '', siteId: A.t.homeSiteId });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name, description: '', siteId: A.t.homeSiteId });
    expect((await A.get(`/groups/${r.body.data.id}`)).body.data[0].description).toBe('');
  });

  test('an unknown siteId is a 400 naming it; a malformed one too', async () => {
    expectError(await A.post('/groups', { name: uniq('g'), description: 'd', siteId: UNKNOWN_ID }), 400, UNKNOWN_ID);
    expectError(await A.post('/groups', { name: uniq('g'), description: 'd', siteId: 'not-a-guid' }), 400, /siteId/);
    expectError(await A.post('/groups', { name: uniq('g'), description: 'd', siteId: 42 }), 400, /siteId/);
  });

  test('a duplicate name, in any case, is a 409', async () => {
    const g = await createGroup(A);
    expectError(await A.post('/groups', { name: g.name, description: 'd' }), 409, /already exists/);
    expectError(await A.post('/groups', { name: g.name.toUpperCase(), description: 'd' }), 409, /already exists/);
    expectError(await A.post('/groups', { name: ` ${g.name.toLowerCase()} `, description: 'd' }), 409);
    expectError(await A.post('/groups', { name: 'ADMINISTRATORS', description: 'd' }), 409);
    expect(names(await A.get(`/groups?${q(`name eq '${g.name}'`)}`))).toEqual([g.name]);
  });

  test('the same name in another tenant is fine', async () => {
    const g = await createGroup(A);
    const r = await B.post('/groups', { name: g.name, description: 'd' });
    expect(r.status).toBe(200);
    expect(r.body.data.id).not.toBe(g.id);
  });

  test('malformed JSON and a non-object body are 400s', async () => {
    const json = { 'content-type': 'application/json' };
    expectError(await A.post('/groups', undefined, { raw: '{"name": ', headers: json }), 400, /JSON/);
    expectError(await A.post('/groups', undefined, { raw: '"just a string"', headers: json }), 400, /object/);
    expectError(await A.post('/groups', undefined, { raw: '[1,2]', headers: json }), 400, /object/);
  });

  test('no token or an invalid token is a 401', async () => {
    expectError(await A.as(undefined).post('/groups', { name: uniq('g'), description: 'd' }), 401);
    expectError(await A.as('garbage').post('/groups', { name: uniq('g'), description: 'd' }), 401);
    expectError(await A.as(undefined).get('/groups'), 401);
    expectError(await A.as('a.b.c').get('/groups'), 401);
  });
});

describe('GET /groups/{id}', () => {
  test('returns a one-element array with the exact Group record', async () => {
    const g = await createGroup(A, { description: 'one group', siteId: A.t.homeSiteId });
    const r = await A.get(`/groups/${g.id}`);
    expectEnvelope(r, 'GET', A.url(`/groups/${g.id}`));
    expect(keysOf(r.body)).toEqual(['data', 'meta']);
    expect(r.body.data).toEqual([
      { href: `~/groups/${g.id}`, dataType: 'Group', id: g.id, name: g.name, description: 'one group', siteId: A.t.homeSiteId },
    ]);
  });

  test('the id matches case-insensitively', async () => {
    const g = await createGroup(A);
    expect(ids(await A.get(`/groups/${g.id.toUpperCase()}`))).toEqual([g.id]);
  });

  test('fields= and expand=site,users apply', async () => {
    const g = await createGroup(A, { siteId: A.t.homeSiteId });
    const u = await createUser(A);
    await A.put(`/groups/${g.id}/users/${u.id}`);
    const r = await A.get(`/groups/${g.id}?fields=NAME&expand=site,USERS`);
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(1);
    const rec = r.body.data[0];
    expect(keysOf(rec)).toEqual(['dataType', 'href', 'name', 'site', 'users']);
    expect(rec.site.id).toBe(A.t.homeSiteId);
    expect(rec.users.map((x: Fixture) => x.id)).toEqual([u.id]);
    expectExpandedUser(rec.users[0]);
  });

  test('q (the spec\'s "query q, fields, expand"): the group when it matches, a 404 when not, a 400 when bad; the member read alike', async () => {
    const g = await createGroup(A, { description: 'matched', siteId: A.t.homeSiteId });
    const u = await createUser(A);
    await A.put(`/groups/${g.id}/users/${u.id}`);
    expect(ids(await A.get(`/groups/${g.id}?${q("description eq 'MATCHED'")}`))).toEqual([g.id]);
    expect(ids(await A.get(`/groups/${g.id}?q=`))).toEqual([g.id]);
    expectError(await A.get(`/groups/${g.id}?${q("description eq 'other'")}`), 404, /does not match the query/);
    expectError(await A.get(`/groups/${g.id}?${q('bogus syntax (')}`), 400);
    expectError(await A.get(`/groups/${g.id}?${q("nosuchfield eq 'x'")}`), 400, /nosuchfield/);
    expect(ids(await A.get(`/groups/${g.id}/users/${u.id}?${q(`userid eq '${u.userid}'`)}`))).toEqual([u.id]);
    expectError(await A.get(`/groups/${g.id}/users/${u.id}?${q("userid eq 'someone else'")}`), 404, /does not match/);
    const gql = await A.gql('query ($id: UUID!, $q: String) { group(id: $id, q: $q) { id } }', { id: g.id, q: "name eq 'nope'" });
    expect(gql.body.errors[0].message).toMatch(/does not match the query/);
  });

  test('an unknown id is a 404; a malformed one a 400 naming the segment', async () => {
    expectError(await A.get(`/groups/${UNKNOWN_ID}`), 404, UNKNOWN_ID);
    expectError(await A.get('/groups/not-a-guid'), 400, /'id'.*GUID/);
    expectError(await A.get('/groups/%E0%A4%A'), 400);
  });
});

describe('PUT /groups/{id}', () => {
  let g: Fixture;
  beforeEach(async () => {
    g = await createGroup(A, { description: 'before', siteId: A.t.homeSiteId });
  });

  test('changes the name only: the description and site stay', async () => {
    const name = uniq('Renamed');
    const r = await A.put(`/groups/${g.id}`, { name });
    expectEnvelope(r, 'PUT', A.url(`/groups/${g.id}`));
    expect(keysOf(r.body)).toEqual(['data', 'meta']);
    expectGroup(r.body.data);
    expect(r.body.data).toEqual({ href: `~/groups/${g.id}`, dataType: 'Group', id: g.id, name, description: 'before', siteId: A.t.homeSiteId });
    expect((await A.get(`/groups/${g.id}`)).body.data).toEqual([r.body.data]);
  });

  test('changes the description only, and both together', async () => {
    expect((await A.put(`/groups/${g.id}`, { description: 'after' })).body.data).toMatchObject({ name: g.name, description: 'after' });
    const name = uniq('Both');
    expect((await A.put(`/groups/${g.id}`, { name, description: '' })).body.data).toMatchObject({ name, description: '' });
  });

  test('renaming to its own name in another case is fine; to a taken name (any case) a 409', async () => {
    const r = await A.put(`/groups/${g.id}`, { name: g.name.toUpperCase() });
    expect(r.status).toBe(200);
    expect(r.body.data.name).toBe(g.name.toUpperCase());
    const other = await createGroup(A);
    expectError(await A.put(`/groups/${g.id}`, { name: other.name.toLowerCase() }), 409, /already exists/);
    expect((await A.get(`/groups/${g.id}`)).body.data[0].name).toBe(g.name.toUpperCase());
  });

  test('a name with control characters is a 400 on create and rename, and nothing changes; the description may hold them', async () => {
    expectError(await A.post('/groups', { name: 'two\nlines', description: 'd' }), 400, "The field 'name' may not contain control characters.");
    expectError(await A.post(`/sites/${A.t.homeSiteId}/groups`, { name: 'esc\u001b', description: 'd' }), 400, 'control characters');
    expectError(await A.put(`/groups/${g.id}`, { name: 'tab\there' }), 400, 'control characters');
    expect((await A.get(`/groups/${g.id}`)).body.data[0].name).toBe(g.name);
    expect((await A.put(`/groups/${g.id}`, { description: 'one\ntwo' })).body.data.description).toBe('one\ntwo');
  });

  test('a name stored before DEL and the C1 controls were refused (U+0093 here) is kept when resent unchanged; a new name holding one is a 400', async () => {
    // The API refuses it now, so the row is changed in SQL.
    const legacy = `\u0093${g.name}\u0094`;
    await h.services.reads.query('update user_group set name = $1 where tenant_id = $2 and id = $3', [legacy, A.t.tenantId, g.id]);
    const same = await A.put(`/groups/${g.id}`, { name: legacy, description: 'after' });
    expect([same.status, same.body.data?.name, same.body.data?.description]).toEqual([200, legacy, 'after']);
    expectError(await A.put(`/groups/${g.id}`, { name: `${legacy}!` }), 400, "The field 'name' may not contain control characters.");
    expect((await A.get(`/groups/${g.id}`)).body.data[0].name).toBe(legacy);
  });

  test('an empty body, a blank name or malformed JSON is a 400', async () => {
    expectError(await A.put(`/groups/${g.id}`, {}), 400, /name, description/);
    expectError(await A.put(`/groups/${g.id}`, { name: '' }), 400, "'name'");
    expectError(await A.put(`/groups/${g.id}`, undefined, { raw: '{nope}', headers: { 'content-type': 'application/json' } }), 400, /JSON/);
  });

  test('an unknown id is a 404; a malformed one a 400', async () => {
    expectError(await A.put(`/groups/${UNKNOWN_ID}`, { name: uniq('x') }), 404);
    expectError(await A.put('/groups/1234', { name: uniq('x') }), 400, /GUID/);
  });

  test('three groups renamed to one name at once, 20 rounds: one wins, the others a 409 naming it; one group of that name', async () => {
    for (let round = 0; round < 20; round++) {
      const name = uniq('Same');
      const groups = [await createGroup(A), await createGroup(A), await createGroup(A)];
      const replies = await Promise.all(groups.map((x) => A.put(`/groups/${x.id}`, { name, description: 'd' })));
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      for (const r of replies.filter((x) => x.status === 409)) expectError(r, 409, `A group named '${name}' already exists.`);
      expect(ids(await A.get(`/groups?${q(`name eq '${name}'`)}`))).toEqual([replies.find((r) => r.status === 200)!.body.data.id]);
    }
  }, 60_000);
});

describe('DELETE /groups/{id}', () => {
  test('deletes the group and its memberships: 200 without data, then 404', async () => {
    const g = await createGroup(A);
    const u = await createUser(A);
    await A.put(`/groups/${g.id}/users/${u.id}`);
    const r = await A.del(`/groups/${g.id}`);
    expectEnvelope(r, 'DELETE', A.url(`/groups/${g.id}`));
    expect(keysOf(r.body)).toEqual(['meta']);
    expectError(await A.get(`/groups/${g.id}`), 404);
    expectError(await A.get(`/groups/${g.id}/users`), 404);
    expect((await A.get(`/users/${u.id}/groups`)).body.data).toEqual([]);
    expectError(await A.del(`/groups/${g.id}`), 404);
  });

  test('an unknown id is a 404; a malformed one a 400', async () => {
    expectError(await A.del(`/groups/${UNKNOWN_ID}`), 404);
    expectError(await A.del('/groups/zzz'), 400, /GUID/);
  });

  test('a delete that waits for another delete of the group finds it gone: a 404, not a second 200', async () => {
    const g = await createGroup(A);
    // The other delete, committed while this one waits for the group's row.
    const other = { text: 'delete from user_group where tenant_id = $1 and id = $2', values: [A.t.tenantId, g.id] };
    expectError(await whileHeld(h, other, () => A.del(`/groups/${g.id}`)), 404, `Group '${g.id}' was not found.`);
  });
});

describe('group membership', () => {
  let g: Fixture;
  let u1: UserFixture;
  let u2: UserFixture;
  let u3: UserFixture;
  beforeAll(async () => {
    [u1, u2, u3] = await createUsers(A, 3);
  });
  beforeEach(async () => {
    g = await createGroup(A);
  });

  test.each([
    ['PUT groups/{id}/users/{userId}', (id: string) => A.put(`/groups/${id}/users/${u1.id}`)],
    ['POST groups/{id}/users', (id: string) => A.post(`/groups/${id}/users`, { userIds: u1.id })],
    ['DELETE groups/{id}/users/{userId}', (id: string) => A.del(`/groups/${id}/users/${u1.id}`)],
    ['DELETE groups/{id}/users?userName=', (id: string) => A.del(`/groups/${id}/users?userName=${u1.userid}`)],
  ])('%s racing a delete of the group committed meanwhile: the 404 of an unknown group, not the foreign key\'s or "not a member"', async (what, send) => {
    if (what.startsWith('DELETE')) await A.put(`/groups/${g.id}/users/${u1.id}`);
    // The delete, committed while the change waits for the group's row.
    const other = { text: 'delete from user_group where tenant_id = $1 and id = $2', values: [A.t.tenantId, g.id] };
    expectError(await whileHeld(h, other, () => send(g.id)), 404, `Group '${g.id}' was not found.`);
  });

  test('a member added while the group is deleted, 20 rounds at once: added before it (201) or the 404 of a group gone; no membership left', async () => {
    const u = await createUser(A);
    for (let round = 0; round < 20; round++) {
      const doomed = await createGroup(A);
      const [added, gone] = await Promise.all([A.put(`/groups/${doomed.id}/users/${u.id}`), A.del(`/groups/${doomed.id}`)]);
      expect(gone.status).toBe(200);
      if (added.status !== 201) expectError(added, 404, `Group '${doomed.id}' was not found.`);
    }
    const { rows } = await h.services.reads.query('select count(*)::int as n from group_member where tenant_id = $1 and user_id = $2', [A.t.tenantId, u.id]);
    expect(rows[0].n).toBe(0);
  });

  test.each([
    ['PUT groups/{id}/users/{userId}', (u: string) => A.put(`/groups/${g.id}/users/${u}`)],
    ['POST groups/{id}/users {userIds}', (u: string) => A.post(`/groups/${g.id}/users`, { userIds: [u1.id, u] })],
    ['PUT groups/{id}/users {userIds}', (u: string) => A.put(`/groups/${g.id}/users`, { userIds: `${u1.id},${u}` })],
  ])('%s racing a delete of a user added, committed meanwhile: the 404 of an unknown user, not the foreign key\'s; no member added', async (_, send) => {
    const u = await createUser(A);
    // The delete, committed while the add waits for the user's row.
    const other = { text: 'delete from app_user where tenant_id = $1 and id = $2', values: [A.t.tenantId, u.id] };
    const r = await whileHeld(h, other, () => send(u.id));
    expectError(r, 404, `User '${u.id}' was not found.`);
    expectAsUnknown(r, await send(UNKNOWN_ID), u.id);
    expect((await A.get(`/groups/${g.id}/users`)).body.data).toEqual([]);
  });

  describe('PUT /groups/{id}/users/{userId}', () => {
    test('adds one member: 201 with [{dataType: NotifyUser, id}]', async () => {
      const r = await A.put(`/groups/${g.id}/users/${u1.id}`);
      expectEnvelope(r, 'PUT', A.url(`/groups/${g.id}/users/${u1.id}`), 201);
      expect(keysOf(r.body)).toEqual(['data', 'meta']);
      expect(r.body.data).toEqual([{ dataType: 'NotifyUser', id: u1.id }]);
      expect(await members(A, g.id)).toEqual([u1.id]);
    });

    test('is idempotent and takes upper-case ids', async () => {
      await A.put(`/groups/${g.id}/users/${u1.id}`);
      const r = await A.put(`/groups/${g.id.toUpperCase()}/users/${u1.id.toUpperCase()}`);
      expect(r.status).toBe(201);
      expect(r.body.data).toEqual([{ dataType: 'NotifyUser', id: u1.id }]);
      expect(await members(A, g.id)).toEqual([u1.id]);
    });

    test('an unknown user or group is a 404; malformed ids 400s', async () => {
      expectError(await A.put(`/groups/${g.id}/users/${UNKNOWN_ID}`), 404, UNKNOWN_ID);
      expectError(await A.put(`/groups/${UNKNOWN_ID}/users/${u1.id}`), 404);
      expectError(await A.put(`/groups/${g.id}/users/bad`), 400, /'userId'/);
      expectError(await A.put(`/groups/bad/users/${u1.id}`), 400, /'groupId'/);
      expect(await members(A, g.id)).toEqual([]);
    });
  });

  describe('POST /groups/{id}/users', () => {
    test('adds the user named by {id}: 200 with NotifyUser elements', async () => {
      const r = await A.post(`/groups/${g.id}/users`, { id: u2.id });
      expectEnvelope(r, 'POST', A.url(`/groups/${g.id}/users`));
      expect(r.body.data).toEqual([{ dataType: 'NotifyUser', id: u2.id }]);
      expect(await members(A, g.id)).toEqual([u2.id]);
    });

    test('adds every user of {userIds: [...]}, ignoring repeats and existing members', async () => {
      await A.put(`/groups/${g.id}/users/${u1.id}`);
      const r = await A.post(`/groups/${g.id}/users`, { userIds: [u1.id, u2.id, u3.id.toUpperCase(), u2.id] });
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual([u1, u2, u3].map((u) => ({ dataType: 'NotifyUser', id: u.id })));
      expect(sorted(await members(A, g.id))).toEqual(sorted([u1.id, u2.id, u3.id]));
    });

    test('a missing id is a 400 naming it; a malformed one a 400; an unknown one a 404 adding nobody', async () => {
      expectError(await A.post(`/groups/${g.id}/users`, {}), 400, "'id'");
      expectError(await A.post(`/groups/${g.id}/users`, { userIds: [] }), 400, "The field 'userIds' names no user.");
      expectError(await A.post(`/groups/${g.id}/users`, { userIds: ' , ' }), 400, "The field 'userIds' names no user.");
      // Both keys: neither is dropped without a word.
      for (const userIds of [u2.id, [], '']) {
        expectError(await A.post(`/groups/${g.id}/users`, { id: u1.id, userIds }), 400, "Send the user to add as 'id', or the users as 'userIds', not both.");
      }
      expectError(await A.post(`/groups/${g.id}/users`, { id: 'not-a-guid' }), 400, /GUID|UUID/);
      expectError(await A.post(`/groups/${g.id}/users`, { userIds: [u1.id, 'nope'] }), 400, /nope/);
      expectError(await A.post(`/groups/${g.id}/users`, { userIds: [u1.id, UNKNOWN_ID] }), 404, UNKNOWN_ID);
      expectError(await A.post(`/groups/${UNKNOWN_ID}/users`, { id: u1.id }), 404);
      expectError(await A.post(`/groups/${g.id}/users`, undefined, { raw: '{', headers: { 'content-type': 'application/json' } }), 400, /JSON/);
      expect(await members(A, g.id)).toEqual([]);
    });
  });

  describe('PUT /groups/{id}/users', () => {
    test('adds the comma-separated {userIds}: 201 with NotifyUser elements', async () => {
      const r = await A.put(`/groups/${g.id}/users`, { userIds: `${u1.id}, ${u3.id}` });
      expectEnvelope(r, 'PUT', A.url(`/groups/${g.id}/users`), 201);
      expect(r.body.data).toEqual([
        { dataType: 'NotifyUser', id: u1.id },
        { dataType: 'NotifyUser', id: u3.id },
      ]);
      expect(sorted(await members(A, g.id))).toEqual(sorted([u1.id, u3.id]));
    });

    test('a form-encoded body with repeated keys works too', async () => {
      const r = await A.put(`/groups/${g.id}/users`, undefined, {
        raw: `userIds=${u1.id}&userIds=${u2.id}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(r.status).toBe(201);
      expect(sorted(await members(A, g.id))).toEqual(sorted([u1.id, u2.id]));
    });

    test('a user id that is not text is shown as JSON in the 400, on REST and /graphql: never [object Object]', async () => {
      for (const [userIds, shown] of [
        [{ a: 1 }, '{"a":1}'],
        [[{ a: 1 }], '{"a":1}'],
        [[u1.id, 42], '42'],
        [[['x'.repeat(100)]], `["${'x'.repeat(62)}`],
      ] as const) {
        expectError(await A.put(`/groups/${g.id}/users`, { userIds }), 400, `User ids must be GUIDs; ${shown} is not one.`);
      }
      const r = await A.gql(`mutation { addGroupUsers(groupId: "${g.id}", input: { userIds: { a: 1 } }) { id } }`);
      expect(r.body.errors[0]).toMatchObject({ message: 'User ids must be GUIDs; {"a":1} is not one.', extensions: { code: 'BAD_REQUEST' } });
      expect(await members(A, g.id)).toEqual([]);
    });

    test('an empty list is a 400; an unknown user a 404', async () => {
      expectError(await A.put(`/groups/${g.id}/users`, { userIds: '' }), 400, 'userIds');
      expectError(await A.put(`/groups/${g.id}/users`, { userIds: ' , ' }), 400, 'userIds');
      expectError(await A.put(`/groups/${g.id}/users`, { userIds: `${u1.id},${UNKNOWN_ID}` }), 404);
      expect(await members(A, g.id)).toEqual([]);
    });

    test('unknown users are named, at most ten of them, and the rest counted: 5000 make a message of a line', async () => {
      const unknown = Array.from({ length: 5000 }, () => randomUUID());
      const many = await A.put(`/groups/${g.id}/users`, { userIds: [u1.id, ...unknown].join(',') });
      expectError(many, 404, `Users ${unknown.slice(0, 10).map((id) => `'${id}'`).join(', ')} and 4990 more were not found.`);
      expect(many.text.length).toBeLessThan(2000);
      const two = await A.put(`/groups/${g.id}/users`, { userIds: `${unknown[0]},${u1.id},${unknown[1]}` });
      expectError(two, 404, `Users '${unknown[0]}', '${unknown[1]}' were not found.`);
      expect(await members(A, g.id)).toEqual([]);
    });
  });

  describe('DELETE /groups/{id}/users/{userId}', () => {
    test('removes a member: 200 without data', async () => {
      await A.post(`/groups/${g.id}/users`, { userIds: [u1.id, u2.id] });
      const r = await A.del(`/groups/${g.id}/users/${u1.id}`);
      expectEnvelope(r, 'DELETE', A.url(`/groups/${g.id}/users/${u1.id}`));
      expect(keysOf(r.body)).toEqual(['meta']);
      expect(await members(A, g.id)).toEqual([u2.id]);
    });

    test('the all-zero GUID names the caller on PUT and DELETE, as on GET', async () => {
      const me = (await A.get('/users/me')).body.data.id as string;
      const put = await A.put(`/groups/${g.id}/users/${ZERO_GUID}`);
      expect([put.status, put.body.data]).toEqual([201, [expect.objectContaining({ id: me })]]);
      expect(await members(A, g.id)).toContain(me);
      expect((await A.get(`/groups/${g.id}/users/${ZERO_GUID}`)).body.data[0].id).toBe(me);
      expect((await A.del(`/groups/${g.id}/users/${ZERO_GUID}`)).status).toBe(200);
      expect(await members(A, g.id)).not.toContain(me);
      expectError(await A.del(`/groups/${g.id}/users/${ZERO_GUID}`), 404, `User '${ZERO_GUID}' is not a member of group`);
    });

    test('a user who is not a member is a 404 (also the second time)', async () => {
      await A.put(`/groups/${g.id}/users/${u1.id}`);
      expectError(await A.del(`/groups/${g.id}/users/${u2.id}`), 404, /not a member/);
      expect((await A.del(`/groups/${g.id}/users/${u1.id.toUpperCase()}`)).status).toBe(200);
      expectError(await A.del(`/groups/${g.id}/users/${u1.id}`), 404, /not a member/);
      expectError(await A.del(`/groups/${g.id}/users/${UNKNOWN_ID}`), 404);
      expectError(await A.del(`/groups/${UNKNOWN_ID}/users/${u1.id}`), 404);
      expectError(await A.del(`/groups/${g.id}/users/nope`), 400, /'userId'/);
    });
  });

  describe('DELETE /groups/{id}/users?userName=', () => {
    test('removes the member with that userid (any case): 200 without data', async () => {
      await A.post(`/groups/${g.id}/users`, { userIds: [u1.id, u2.id] });
      const path = `/groups/${g.id}/users?userName=${encodeURIComponent(u1.userid.toUpperCase())}`;
      const r = await A.del(path);
      expectEnvelope(r, 'DELETE', A.url(path));
      expect(keysOf(r.body)).toEqual(['meta']);
      expect(await members(A, g.id)).toEqual([u2.id]);
    });

    test('the parameter name matches case-insensitively', async () => {
      await A.put(`/groups/${g.id}/users/${u3.id}`);
      expect((await A.del(`/groups/${g.id}/users?username=${u3.userid}`)).status).toBe(200);
      expect(await members(A, g.id)).toEqual([]);
    });

    test('a non-member or unknown userName is a 404; a missing one a 400 naming it', async () => {
      await A.put(`/groups/${g.id}/users/${u1.id}`);
      expectError(await A.del(`/groups/${g.id}/users?userName=${u2.userid}`), 404, /not a member/);
      expectError(await A.del(`/groups/${g.id}/users?userName=nobody-at-all`), 404);
      // Wildcards are not patterns: '%' must not remove anybody.
      expectError(await A.del(`/groups/${g.id}/users?userName=%25`), 404);
      expectError(await A.del(`/groups/${g.id}/users`), 400, 'userName');
      expectError(await A.del(`/groups/${g.id}/users?userName=`), 400, 'userName');
      expect(await members(A, g.id)).toEqual([u1.id]);
    });
  });

  describe('GET /groups/{id}/users/{userId}', () => {
    test('a member: a one-element array of User plus pagination', async () => {
      await A.put(`/groups/${g.id}/users/${u2.id}`);
      const path = `/groups/${g.id}/users/${u2.id}`;
      const r = await A.get(path);
      expectEnvelope(r, 'GET', A.url(path));
      expect(keysOf(r.body)).toEqual(['data', 'meta', 'pagination']);
      expect(r.body.data).toHaveLength(1);
      expectUser(r.body.data[0]);
      expect(r.body.data[0]).toMatchObject({ id: u2.id, userid: u2.userid, name: u2.userid });
      expect(keysOf(r.body.pagination)).toEqual(sorted(PAGINATION_KEYS));
      expect(r.body.pagination).toMatchObject({ dataType: 'PagedData', totalRecords: 1, limit: 200, next: '', previous: '', href: A.url(path) });
    });

    test('its pagination pages the one-element array as a list of one: offset 1 is past it, and the links say so', async () => {
      await A.put(`/groups/${g.id}/users/${u2.id}`);
      const path = `/groups/${g.id}/users/${u2.id}`;
      const past = await A.get(`${path}?offset=1&limit=1`);
      expect(past.body.data).toEqual([]);
      expect(past.body.pagination).toMatchObject({ totalRecords: 1, limit: 1, next: '', previous: expect.stringContaining('offset=0') });
      const first = await A.get(`${path}?offset=0&limit=1`);
      expect(first.body.data.map((u: { id: string }) => u.id)).toEqual([u2.id]);
      expect(first.body.pagination).toMatchObject({ totalRecords: 1, limit: 1, next: '', previous: '' });
    });

    test('fields= applies', async () => {
      await A.put(`/groups/${g.id}/users/${u2.id}`);
      const r = await A.get(`/groups/${g.id}/users/${u2.id}?fields=userId,EMAILADDRESS`);
      expect(r.body.data).toEqual([{ href: `~/users/${u2.id}`, dataType: 'User', userid: u2.userid, emailAddress: `${u2.userid}@example.test` }]);
    });

    test('a non-member, an unknown user or group is a 404', async () => {
      await A.put(`/groups/${g.id}/users/${u2.id}`);
      expectError(await A.get(`/groups/${g.id}/users/${u1.id}`), 404, /not a member/);
      expectError(await A.get(`/groups/${g.id}/users/${UNKNOWN_ID}`), 404);
      expectError(await A.get(`/groups/${UNKNOWN_ID}/users/${u2.id}`), 404);
      expectError(await A.get(`/groups/${g.id}/users/x`), 400, /'userId'/);
    });
  });
});

describe('GET /groups/{id}/users (paged)', () => {
  let g: Fixture;
  let users: UserFixture[];
  beforeAll(async () => {
    g = await createGroup(A);
    users = await createUsers(A, 5, uniq('pg'));
    await A.post(`/groups/${g.id}/users`, { userIds: users.map((u) => u.id) });
    // A non-member, to show it never appears.
    await createUser(A);
  });

  test('lists the members by userid, as exact User records, with pagination', async () => {
    const path = `/groups/${g.id}/users`;
    const r = await A.get(path);
    expectEnvelope(r, 'GET', A.url(path));
    expect(keysOf(r.body)).toEqual(['data', 'meta', 'pagination']);
    expect(ids(r)).toEqual(users.map((u) => u.id));
    r.body.data.forEach(expectUser);
    expect(r.body.pagination).toEqual({
      dataType: 'PagedData',
      href: A.url(path),
      first: A.url(`${path}?limit=200&offset=0`),
      last: A.url(`${path}?limit=200&offset=0`),
      next: '',
      previous: '',
      limit: 200,
      totalRecords: 5,
    });
  });

  test('an empty group: no data, totalRecords 0', async () => {
    const empty = await createGroup(A);
    const r = await A.get(`/groups/${empty.id}/users`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
    expect(r.body.pagination).toMatchObject({ totalRecords: 0, next: '', previous: '' });
  });

  test('limit/offset pages; next, previous, first and last work when fetched', async () => {
    const r = await A.get(`/groups/${g.id}/users?limit=2`);
    expect(ids(r)).toEqual(users.slice(0, 2).map((u) => u.id));
    const p = r.body.pagination;
    expect(p).toMatchObject({ limit: 2, totalRecords: 5, previous: '' });
    expect(p.next).not.toBe('');

    // Follow next to the end: every member once, in order.
    const seen: string[] = [...ids(r)];
    let next: string = p.next;
    let pages = 1;
    let last: Reply = r;
    while (next) {
      last = await h.request('GET', pathOf(next), { token: A.token });
      expectEnvelope(last, 'GET', next);
      expect(last.body.pagination.totalRecords).toBe(5);
      seen.push(...ids(last));
      next = last.body.pagination.next;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(users.map((u) => u.id));
    expect(ids(last)).toEqual([users[4].id]);

    // previous from the last page, first and last from any page.
    const prev = await h.request('GET', pathOf(last.body.pagination.previous), { token: A.token });
    expect(ids(prev)).toEqual([users[2].id, users[3].id]);
    const first = await h.request('GET', pathOf(prev.body.pagination.first), { token: A.token });
    expect(ids(first)).toEqual([users[0].id, users[1].id]);
    expect(first.body.pagination.previous).toBe('');
    const lastAgain = await h.request('GET', pathOf(first.body.pagination.last), { token: A.token });
    expect(ids(lastAgain)).toEqual([users[4].id]);
    expect(lastAgain.body.pagination.next).toBe('');
  });

  test('links keep q and fields; totalRecords counts the filtered members', async () => {
    const path = `/groups/${g.id}/users?${q(`userid like '${users[0].userid.slice(0, -3)}%' and userid ne '${users[0].userid}'`)}&fields=userid&limit=3`;
    const r = await A.get(path);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(users.slice(1, 4).map((u) => ({ href: `~/users/${u.id}`, dataType: 'User', userid: u.userid })));
    expect(r.body.pagination.totalRecords).toBe(4);
    const next = await h.request('GET', pathOf(r.body.pagination.next), { token: A.token });
    expect(next.body.data).toEqual([{ href: `~/users/${users[4].id}`, dataType: 'User', userid: users[4].userid }]);
  });

  test('bad q, limit or ids are 400s; an unknown group a 404', async () => {
    expectError(await A.get(`/groups/${g.id}/users?${q('userid eq')}`), 400, /^Invalid q/);
    expectError(await A.get(`/groups/${g.id}/users?${q("nosuch eq 'x'")}`), 400, /nosuch/);
    expectError(await A.get(`/groups/${g.id}/users?limit=x`), 400, /limit/);
    expectError(await A.get(`/groups/${g.id}/users?offset=-2`), 400, /offset/);
    expectError(await A.get('/groups/nope/users'), 400, /'groupId'/);
    expectError(await A.get(`/groups/${UNKNOWN_ID}/users`), 404);
  });
});

describe('an ordinary (non-admin) user', () => {
  let g: Fixture;
  let member: UserFixture;
  let outsider: UserFixture;
  let P: Api;
  beforeAll(async () => {
    g = await createGroup(A, { siteId: A.t.homeSiteId });
    [member, outsider] = await createUsers(A, 2);
    await A.put(`/groups/${g.id}/users/${member.id}`);
    P = A.as(plain.token);
  });

  test('may read every Groups route', async () => {
    for (const path of ['/groups', '/groups?expand=users,site', `/groups/${g.id}`, `/groups/${g.id}/users`, `/groups/${g.id}/users/${member.id}`]) {
      const r = await P.get(path);
      expectEnvelope(r, 'GET', P.url(path));
      expect(r.body.data.length).toBeGreaterThan(0);
    }
  });

  test('gets a 403 for every write, and nothing changes', async () => {
    const writes: [string, string, unknown][] = [
      ['POST', '/groups', { name: uniq('x'), description: 'd' }],
      ['PUT', `/groups/${g.id}`, { name: 'hijacked' }],
      ['DELETE', `/groups/${g.id}`, undefined],
      ['POST', `/groups/${g.id}/users`, { id: outsider.id }],
      ['POST', `/groups/${g.id}/users`, { id: plain.id }],
      ['PUT', `/groups/${g.id}/users`, { userIds: outsider.id }],
      ['PUT', `/groups/${g.id}/users/${outsider.id}`, undefined],
      ['DELETE', `/groups/${g.id}/users/${member.id}`, undefined],
      ['DELETE', `/groups/${g.id}/users?userName=${member.userid}`, undefined],
    ];
    const admins = (await A.get(`/groups?${q("name eq 'Administrators'")}`)).body.data[0];
    writes.push(['PUT', `/groups/${admins.id}/users/${plain.id}`, undefined]);
    const before = await A.get('/groups?expand=users,site');
    for (const [method, path, body] of writes) {
      expectError(await P.request(method, path, body === undefined ? {} : { body }), 403);
    }
    expect((await A.get('/groups?expand=users,site')).body.data).toEqual(before.body.data);
  });
});

// The 401/403/404 matrix over every route is generated from the route table (conformance.test.ts).
describe('across tenants', () => {
  let g: Fixture;
  let u: UserFixture;
  beforeAll(async () => {
    g = await createGroup(A, { name: uniq('SecretGroup'), description: 'secret description', siteId: A.t.homeSiteId });
    u = await createUser(A, undefined, uniq('secretuser'));
    await A.put(`/groups/${g.id}/users/${u.id}`);
  });

  test("tenant A's user on tenant B's group, and A's site in B's body, are unknown", async () => {
    const bGroup = await createGroup(B);
    expectError(await B.put(`/groups/${bGroup.id}/users/${u.id}`), 404);
    expectError(await B.post(`/groups/${bGroup.id}/users`, { id: u.id }), 404);
    expectError(await B.put(`/groups/${bGroup.id}/users`, { userIds: u.id }), 404);
    expectError(await B.get(`/groups/${bGroup.id}/users/${u.id}`), 404);
    expectError(await B.del(`/groups/${bGroup.id}/users/${u.id}`), 404);
    expectError(await B.del(`/groups/${bGroup.id}/users?userName=${u.userid}`), 404);
    expectError(await B.post('/groups', { name: uniq('x'), description: 'd', siteId: A.t.homeSiteId }), 400);
    expect((await B.get(`/groups/${bGroup.id}/users`)).body.data).toEqual([]);
    expect(await members(A, g.id)).toEqual([u.id]);
  });

  test("B's lists and filters never show A's records", async () => {
    const r = await B.get('/groups?expand=users,site');
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(g.id);
    expect(r.text).not.toContain(u.id);
    expect((await B.get(`/groups?${q(`name eq '${g.name}'`)}`)).body.data).toEqual([]);
    // A's group name is free in B (names are unique per tenant only).
    expect((await B.post('/groups', { name: g.name, description: 'mine' })).status).toBe(200);
  });
});

describe('SQL statements per list call do not grow with the page', () => {
  let T: Api;
  let big: Fixture;
  beforeAll(async () => {
    T = await adminApi(h);
    const users = await createUsers(T, 50, 'member');
    const site = await createSite(T, 'Hub');
    big = await createGroup(T, { name: 'Big', siteId: site.id });
    await T.post(`/groups/${big.id}/users`, { userIds: users.map((u) => u.id) });
    for (let i = 0; i < 50; i++) {
      const g = await createGroup(T, { name: `G${String(i).padStart(2, '0')}`, siteId: i % 2 ? site.id : T.t.homeSiteId });
      await T.post(`/groups/${g.id}/users`, { userIds: [users[i].id, users[(i + 1) % 50].id] });
    }
  });

  async function statements(path: string, records: number) {
    const { result, statements } = await h.countQueries(() => T.get(path));
    expect(result.status).toBe(200);
    expect(result.body.data).toHaveLength(records);
    return statements.length;
  }

  test.each(['/groups', '/groups?expand=users,site', `/groups?fields=name&${q("name like 'g%'")}`, '/groups/{big}/users', '/groups/{big}/users?expand=site,groups'])(
    'GET %s',
    async (template) => {
      const path = template.replace('{big}', big.id);
      const sep = path.includes('?') ? '&' : '?';
      await T.get(path); // warm-up: nothing cached should count
      const two = await statements(`${path}${sep}limit=2`, 2);
      const fifty = await statements(`${path}${sep}limit=50`, 50);
      expect(two).toBeGreaterThan(0);
      expect(fifty).toBe(two);
    },
  );

  test('expand=users,site returns every member and site, batched', async () => {
    const r = await T.get(`/groups?expand=users,site&${q("name like 'g%'")}`);
    expect(r.body.data).toHaveLength(50);
    for (const g of r.body.data) {
      expect(g.users).toHaveLength(2);
      expect(g.site.id).toBe(g.siteId);
    }
  });
});

describe('the Administrators group', () => {
  /** A fresh tenant, so the admin group holds exactly its one administrator. */
  let T: Api;
  let adminGroupId: string;
  beforeAll(async () => {
    T = await adminApi(h);
    const r = await T.get(`/groups?q=name eq 'Administrators'`);
    adminGroupId = r.body.data[0].id;
  });

  test('cannot be renamed or deleted: it grants the administrator role', async () => {
    expectError(await T.put(`/groups/${adminGroupId}`, { name: 'Admins' }), 409, /cannot be renamed/);
    expectError(await T.del(`/groups/${adminGroupId}`), 409, /cannot be deleted/);
    const ok = await T.put(`/groups/${adminGroupId}`, { description: 'still admins' });
    expect(ok.status).toBe(200);
    expect(ok.body.data.name).toBe('Administrators');
  });

  test('keeps at least one member', async () => {
    const me = (await T.get('/users/me')).body.data;
    expectError(await T.del(`/groups/${adminGroupId}/users/${me.id}`), 409, /at least one member/);
    expectError(await T.del(`/groups/${adminGroupId}/users?userName=${me.userid}`), 409, /at least one member/);
    // Writes still work: the caller is still an administrator.
    expect((await T.post('/sites', { name: uniq('s'), description: 'd' })).status).toBe(200);
  });
});
