/**
 * HTTP-level tests of the Sites routes (rest-api-v1.md "Sites" plus the client-compatibility
 * extras: DELETE /sites/{id}, PUT /sites/changeusersite and /sites/changegroupsite).
 */
import type { Reply } from '../harness.js';
import {
  adminApi,
  Api,
  createGroup,
  createSite,
  createUser,
  expectAsUnknown,
  expectEnvelope,
  expectError,
  expectGroup,
  expectSite,
  expectExpandedUser,
  expectUser,
  keysOf,
  q,
  uniq,
  UNKNOWN_ID,
  whileHeld,
  ZERO_GUID,
  type Fixture,
  type UserFixture,
} from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

setUpTwoTenants();

const names = (r: Reply) => r.body.data.map((d: { name: string }) => d.name);

describe('GET /sites', () => {
  let T: Api;
  let alpha: Fixture;
  let bravo: Fixture;
  beforeAll(async () => {
    T = await adminApi(h);
    alpha = await createSite(T, 'Alpha', 'first site');
    bravo = await createSite(T, 'Bravo', 'second site');
  });

  test('lists every site of the tenant, ordered by name, as exact Site records', async () => {
    const r = await T.get('/sites');
    expectEnvelope(r, 'GET', T.url('/sites'));
    expect(keysOf(r.body)).toEqual(['data', 'meta']);
    expect(names(r)).toEqual(['Alpha', 'Bravo', 'Home']);
    r.body.data.forEach(expectSite);
    expect(r.body.data[0]).toEqual({
      href: `~/sites/${alpha.id}`,
      dataType: 'Site',
      id: alpha.id,
      name: 'Alpha',
      description: 'first site',
      siteType: 'Location',
      status: 'Open',
    });
    expect(r.body.data[2].id).toBe(T.t.homeSiteId);
  });

  test.each([
    ["name eq 'ALPHA'", ['Alpha']],
    ["NAME eq 'alpha'", ['Alpha']],
    ["[name] eq 'Bravo'", ['Bravo']],
    ["name like 'b%'", ['Bravo']],
    ["description like '%D SITE'", ['Bravo']],
    ["description like '%site'", ['Alpha', 'Bravo', 'Home']],
    ["name ne 'home'", ['Alpha', 'Bravo']],
    ["name eq 'Alpha' or name eq 'Home'", ['Alpha', 'Home']],
    ["name in ('bravo', 'home')", ['Bravo', 'Home']],
    ["status eq 'open' and siteType eq 'location'", ['Alpha', 'Bravo', 'Home']],
    ["name eq 'nothing'", []],
  ])('q=%s filters (case-insensitively)', async (q, expected) => {
    const path = `/sites?q=${encodeURIComponent(q)}`;
    const r = await T.get(path);
    expectEnvelope(r, 'GET', T.url(path));
    expect(names(r)).toEqual(expected);
  });

  test('q on the id', async () => {
    const r = await T.get(`/sites?q=${encodeURIComponent(`id eq '${bravo.id.toUpperCase()}'`)}`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((s: Fixture) => s.id)).toEqual([bravo.id]);
  });

  test('q on every field a Site shows, href included, finds it by the value shown', async () => {
    const [{ dataType: _, ...shown }] = (await T.get(`/sites/${alpha.id}`)).body.data;
    for (const [key, value] of Object.entries(shown)) {
      const r = await T.get(`/sites?${q(`[${key}] eq '${value}' and id eq '${alpha.id}'`)}`);
      expect([key, r.status, r.body.data?.map((s: Fixture) => s.id)]).toEqual([key, 200, [alpha.id]]);
    }
  });

  test('fields= projects case-insensitively and keeps href and dataType', async () => {
    const r = await T.get('/sites?fields=NAME,siteTYPE');
    expect(r.status).toBe(200);
    expect(r.body.data[0]).toEqual({ href: `~/sites/${alpha.id}`, dataType: 'Site', name: 'Alpha', siteType: 'Location' });
    for (const s of r.body.data) expect(keysOf(s)).toEqual(['dataType', 'href', 'name', 'siteType']);
  });

  test('limit and offset page through the list', async () => {
    expect(names(await T.get('/sites?limit=2'))).toEqual(['Alpha', 'Bravo']);
    expect(names(await T.get('/sites?limit=1&offset=1'))).toEqual(['Bravo']);
    expect(names(await T.get('/sites?offset=2'))).toEqual(['Home']);
    expect(names(await T.get('/sites?offset=3'))).toEqual([]);
    expect(names(await T.get('/sites?limit=0'))).toEqual([]);
  });

  test('expand=groups,users adds the relations as records', async () => {
    const g = await createGroup(T, { siteId: alpha.id });
    const r = await T.get('/sites?expand=groups,users');
    expect(r.status).toBe(200);
    const [a, b, home] = r.body.data;
    expect(keysOf(a)).toEqual(['dataType', 'description', 'groups', 'href', 'id', 'name', 'siteType', 'status', 'users']);
    expect(a.groups.map((x: Fixture) => x.id)).toEqual([g.id]);
    a.groups.forEach(expectGroup);
    expect(a.users).toEqual([]);
    expect(b.groups).toEqual([]);
    expect(home.groups.map((x: Fixture) => x.name)).toEqual(['Administrators']);
    expect(home.users.map((u: { userid: string }) => u.userid)).toEqual(['admin']);
    home.users.forEach(expectExpandedUser);
  });

  test.each([
    ['q=name%20eq', /^Invalid q/],
    ["q=nme%20eq%20'x'", /nme/],
    ["q=name%20eq%20'unterminated", /^Invalid q/],
    ['limit=abc', /limit/],
    ['limit=-1', /limit/],
    ['offset=-5', /offset/],
  ])('a bad query string (%s) is a 400', async (qs, message) => {
    expectError(await T.get(`/sites?${qs}`), 400, message);
  });
});

describe('GET /sites/{id}', () => {
  test('returns a one-element array with the exact Site record', async () => {
    const s = await createSite(A, uniq('One'), 'one site');
    const r = await A.get(`/sites/${s.id}`);
    expectEnvelope(r, 'GET', A.url(`/sites/${s.id}`));
    expect(keysOf(r.body)).toEqual(['data', 'meta']);
    expect(r.body.data).toEqual([
      { href: `~/sites/${s.id}`, dataType: 'Site', id: s.id, name: s.name, description: 'one site', siteType: 'Location', status: 'Open' },
    ]);
  });

  test('the id matches case-insensitively', async () => {
    const r = await A.get(`/sites/${A.t.homeSiteId.toUpperCase()}`);
    expect(r.status).toBe(200);
    expect(r.body.data[0].id).toBe(A.t.homeSiteId);
  });

  test('fields= and expand= apply', async () => {
    const r = await A.get(`/sites/${A.t.homeSiteId}?fields=Name&expand=groups`);
    expect(r.status).toBe(200);
    expect(keysOf(r.body.data[0])).toEqual(['dataType', 'groups', 'href', 'name']);
    expect(r.body.data[0].groups.map((g: Fixture) => g.name)).toContain('Administrators');
  });

  test('reads have their own connections: they answer while writes hold every ORM connection', async () => {
    expect((await A.get(`/sites/${A.t.homeSiteId}`)).status).toBe(200); // token and tenant now cached
    const knex = h.orm.em.getConnection().getKnex().client as {
      acquireConnection(): Promise<unknown>;
      releaseConnection(c: unknown): void;
    };
    const held = await Promise.all(Array.from({ length: h.orm.config.get('pool')!.max! }, () => knex.acquireConnection()));
    try {
      const [one, list] = await Promise.all([A.get(`/sites/${A.t.homeSiteId}?expand=groups`), A.get('/sites')]);
      expect(one.status).toBe(200);
      expect(one.body.data[0].groups.map((g: Fixture) => g.name)).toContain('Administrators');
      expect(list.status).toBe(200);
    } finally {
      for (const c of held) knex.releaseConnection(c);
    }
  });

  test('an unknown id is a 404; a malformed one a 400 naming the segment', async () => {
    expectError(await A.get(`/sites/${UNKNOWN_ID}`), 404, UNKNOWN_ID);
    expectError(await A.get('/sites/not-a-guid'), 400, /'id'.*GUID/);
    expectError(await A.get(`/sites/${UNKNOWN_ID}x`), 400, /GUID/);
  });
});

describe('POST /sites', () => {
  test('creates a site: 200 with the Site as a single object', async () => {
    const name = uniq('New');
    const r = await A.post('/sites', { name, description: 'made here' });
    expectEnvelope(r, 'POST', A.url('/sites'));
    expect(keysOf(r.body)).toEqual(['data', 'meta']);
    expectSite(r.body.data);
    expect(r.body.data).toMatchObject({ name, description: 'made here', siteType: 'Location', status: 'Open' });
    const back = await A.get(`/sites/${r.body.data.id}`);
    expect(back.body.data).toEqual([r.body.data]);
  });

  test('trims the name and accepts siteType (or the .NET spelling type)', async () => {
    const name = uniq('Typed');
    const r = await A.post('/sites', { name: `  ${name} `, description: 'typed', siteType: 'Office' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name, description: 'typed', siteType: 'Office' });
    const r2 = await A.post('/sites', { name: uniq('Typed'), description: 'd', type: 'Plant' });
    expect(r2.body.data.siteType).toBe('Plant');
  });

  test('accepts a form-encoded body', async () => {
    const name = uniq('Form');
    const r = await A.post('/sites', undefined, {
      raw: new URLSearchParams({ name, description: 'form' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name, description: 'form' });
  });

  test('a form key sent twice where one value is wanted: the last one counts; a JSON array there is a 400, never a value dropped', async () => {
    const name = uniq('Twice');
    const form = await A.post('/sites', undefined, {
      raw: `name=first&name=${encodeURIComponent(name)}&description=d`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.body.data).toMatchObject({ name, description: 'd' });
    const json = await A.post('/sites', { name: [uniq('a'), uniq('b')], description: 'd' });
    expectError(json, 400, /^The field 'name' must be text, got \[/);
  });

  test.each([
    [{ description: 'd' }, "The mandatory field 'name' is missing."],
    [{ name: '   ', description: 'd' }, "The field 'name' must not be blank."],
    [{ name: '', description: '' }, "The field 'name' must not be blank."],
    [{ name: null, description: 'd' }, "The mandatory field 'name' is missing."],
    [{ name: 'x' }, "The mandatory field 'description' is missing."],
    [{ name: 'x', description: null }, "The mandatory field 'description' is missing."],
    [{}, "The mandatory field 'name' is missing."],
  ])('a missing mandatory field or a blank name (%j) is a 400 saying which', async (body, message) => {
    expectError(await A.post('/sites', body), 400, message);
  });

  test('an empty description is taken as sent (the spec shows empty strings for unset values), from JSON and from a form', async () => {
    const name = uniq('Bare');
    const r = await A.post('/sites', { name, description: '' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name, description: '' });
    const form = await A.post('/sites', undefined, { raw: `name=${uniq('BareForm')}&description=`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(200);
    expect(form.body.data.description).toBe('');
    // A site's group, too.
    const g = await A.post(`/sites/${r.body.data.id}/groups`, { name: uniq('BareGroup'), description: '' });
    expect(g.status).toBe(200);
    expect(g.body.data).toMatchObject({ siteId: r.body.data.id, description: '' });
  });

  test('a name with control characters (newline, tab, ESC) is a 400, as other names are; the description may hold them', async () => {
    for (const name of ['two\nlines', 'tab\there', 'esc\u001b[31mred', 'del\u007fname', 'nel\u0085name']) {
      expectError(await A.post('/sites', { name, description: 'd' }), 400, "The field 'name' may not contain control characters.");
    }
    expectError(await A.post('/sites', undefined, { raw: 'name=a%0Ab&description=d', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, 'control characters');
    expect((await A.get(`/sites?q=${encodeURIComponent("name like 'two%'")}`)).body.data).toEqual([]);
    const s = await A.post('/sites', { name: uniq('Lines'), description: 'line one\nline two\t.' });
    expect(s.body.data.description).toBe('line one\nline two\t.');
    expectError(await A.put(`/sites/${s.body.data.id}`, { name: 'bad\rname' }), 400, 'control characters');
    expect((await A.get(`/sites/${s.body.data.id}`)).body.data[0].name).toBe(s.body.data.name);
  });

  test('a name stored before DEL and the C1 controls were refused (U+0085 here) is kept when resent unchanged; a new name holding one is a 400', async () => {
    const s = (await A.post('/sites', { name: uniq('Legacy'), description: 'd' })).body.data;
    // The API refuses it now, so the row is changed in SQL.
    const legacy = `${s.name}\u0085`;
    await h.services.reads.query('update site set name = $1 where tenant_id = $2 and id = $3', [legacy, A.t.tenantId, s.id]);
    const same = await A.put(`/sites/${s.id}`, { name: legacy, description: 'after' });
    expect([same.status, same.body.data?.name, same.body.data?.description]).toEqual([200, legacy, 'after']);
    expectError(await A.put(`/sites/${s.id}`, { name: `${s.name}\u0085\u0085` }), 400, "The field 'name' may not contain control characters.");
    expect((await A.get(`/sites/${s.id}`)).body.data[0].name).toBe(legacy);
  });

  test('a number for a text field: small integers and ordinary decimals are taken as their text; one JSON may have rounded or rewritten is a 400 asking for a string', async () => {
    const post = (name: string) => A.post('/sites', undefined, { raw: `{"name":${name},"description":"d"}`, headers: { 'content-type': 'application/json' } });
    for (const [sent, kept] of [['42', '42'], ['-7', '-7'], ['1.5', '1.5'], ['9007199254740991', '9007199254740991'], ['0.000123', '0.000123'], ['123456.789012345', '123456.789012345']]) {
      const r = await post(sent);
      expect([sent, r.status, r.body.data?.name]).toEqual([sent, 200, kept]);
    }
    for (const sent of ['9007199254740993', '12345678901234567890', '-0', '1e21', '1e-7', '0.30000000000000004', '3.141592653589793']) {
      const r = await post(sent);
      expectError(r, 400, /^The field 'name' takes text: send this value as a string in quotes\. As a JSON number \(/);
    }
    // Named by the key as sent.
    const described = await A.post('/sites', undefined, { raw: '{"Name":"n","Description":-0.0}', headers: { 'content-type': 'application/json' } });
    expectError(described, 400, "The field 'Description' takes text");
    expect((await A.get(`/sites?q=${encodeURIComponent("name eq '9007199254740992' or name eq '0' or name eq '1e+21'")}`)).body.data).toEqual([]);
  });

  test('malformed JSON, a JSON array and an over-long name are 400s', async () => {
    expectError(await A.post('/sites', undefined, { raw: '{"name": "x",', headers: { 'content-type': 'application/json' } }), 400, /JSON/);
    expectError(await A.post('/sites', [{ name: 'x', description: 'y' }]), 400, /object/);
    expectError(await A.post('/sites', { name: 'x'.repeat(257), description: 'y' }), 400, "'name'");
  });

  test('no token or an invalid token is a 401', async () => {
    expectError(await A.as(undefined).post('/sites', { name: 'x', description: 'y' }), 401);
    expectError(await A.as('not.a.jwt').post('/sites', { name: 'x', description: 'y' }), 401);
    expectError(await A.as(undefined).post('/sites', { name: 'x', description: 'y' }, { headers: { authorization: 'Basic abc' } }), 401);
    expectError(await A.as(undefined).get('/sites', { headers: { authorization: 'Bearer' } }), 401);
    expectError(await A.as(`${A.token}x`).get('/sites'), 401);
  });
});

describe('PUT /sites/{id}', () => {
  let s: Fixture;
  beforeEach(async () => {
    s = await createSite(A, uniq('Edit'), 'before');
  });

  test('changes the name only: the description stays', async () => {
    const name = uniq('Renamed');
    const r = await A.put(`/sites/${s.id}`, { name });
    expectEnvelope(r, 'PUT', A.url(`/sites/${s.id}`));
    expectSite(r.body.data);
    expect(r.body.data).toMatchObject({ id: s.id, name, description: 'before', siteType: 'Location', status: 'Open' });
    expect((await A.get(`/sites/${s.id}`)).body.data[0]).toEqual(r.body.data);
  });

  test('changes the description only, and both together', async () => {
    expect((await A.put(`/sites/${s.id}`, { description: 'after' })).body.data).toMatchObject({ name: s.name, description: 'after' });
    const name = uniq('Both');
    expect((await A.put(`/sites/${s.id}`, { name, description: 'both' })).body.data).toMatchObject({ name, description: 'both' });
  });

  test('an empty body or a blank name is a 400', async () => {
    expectError(await A.put(`/sites/${s.id}`, {}), 400, /name, description/);
    expectError(await A.put(`/sites/${s.id}`, { name: ' ' }), 400, "'name'");
    expectError(await A.put(`/sites/${s.id}`, undefined, { raw: '{oops', headers: { 'content-type': 'application/json' } }), 400, /JSON/);
  });

  test('an unknown id is a 404; a malformed one a 400', async () => {
    expectError(await A.put(`/sites/${UNKNOWN_ID}`, { name: 'x' }), 404);
    expectError(await A.put('/sites/123', { name: 'x' }), 400, /GUID/);
  });
});

describe('DELETE /sites/{id}', () => {
  test('deletes an empty site: 200 without data; its groups keep going without a site', async () => {
    const s = await createSite(A);
    const g = await createGroup(A, { siteId: s.id });
    const r = await A.del(`/sites/${s.id}`);
    expectEnvelope(r, 'DELETE', A.url(`/sites/${s.id}`));
    expect(keysOf(r.body)).toEqual(['meta']);
    expectError(await A.get(`/sites/${s.id}`), 404);
    const group = await A.get(`/groups/${g.id}`);
    expect(group.body.data[0].siteId).toBe(ZERO_GUID);
    expectError(await A.del(`/sites/${s.id}`), 404);
  });

  test('a site that still has users is a 409 and stays', async () => {
    const s = await createSite(A);
    await createUser(A, s.id);
    expectError(await A.del(`/sites/${s.id}`), 409, /users/);
    expect((await A.get(`/sites/${s.id}`)).status).toBe(200);
  });

  test('an unknown id is a 404; a malformed one a 400', async () => {
    expectError(await A.del(`/sites/${UNKNOWN_ID}`), 404);
    expectError(await A.del('/sites/xyz'), 400, /GUID/);
  });

  test('a delete that waits for another delete of the site finds it gone: a 404, not a second 200', async () => {
    const s = await createSite(A);
    // The other delete, committed while this one waits for the site's row.
    const other = { text: 'delete from site where tenant_id = $1 and id = $2', values: [A.t.tenantId, s.id] };
    expectError(await whileHeld(h, other, () => A.del(`/sites/${s.id}`)), 404, `Site '${s.id}' was not found.`);
  });
});

describe('GET /sites/{id}/groups and /sites/{id}/groups/{groupId}', () => {
  let s: Fixture;
  let g1: Fixture;
  let g2: Fixture;
  let elsewhere: Fixture;
  beforeAll(async () => {
    s = await createSite(A);
    g1 = await createGroup(A, { name: uniq('A-grp'), siteId: s.id });
    g2 = await createGroup(A, { name: uniq('B-grp'), siteId: s.id });
    elsewhere = await createGroup(A, { siteId: A.t.homeSiteId });
  });

  test('lists only the groups of that site, as exact Group records', async () => {
    const r = await A.get(`/sites/${s.id}/groups`);
    expectEnvelope(r, 'GET', A.url(`/sites/${s.id}/groups`));
    expect(keysOf(r.body)).toEqual(['data', 'meta']);
    expect(r.body.data.map((g: Fixture) => g.id)).toEqual([g1.id, g2.id]);
    r.body.data.forEach(expectGroup);
    for (const g of r.body.data) expect(g.siteId).toBe(s.id);
  });

  test('q, fields and limit apply', async () => {
    const r = await A.get(`/sites/${s.id}/groups?q=${encodeURIComponent(`name eq '${g2.name.toUpperCase()}'`)}&fields=id`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([{ href: `~/groups/${g2.id}`, dataType: 'Group', id: g2.id }]);
    expect(names(await A.get(`/sites/${s.id}/groups?limit=1&offset=1`))).toEqual([g2.name]);
    expectError(await A.get(`/sites/${s.id}/groups?q=bogus%20eq%201`), 400, /bogus/);
  });

  test('an unknown or malformed site id is a 404 / 400', async () => {
    expectError(await A.get(`/sites/${UNKNOWN_ID}/groups`), 404);
    expectError(await A.get('/sites/nope/groups'), 400, /'siteId'/);
  });

  test('one group of the site: a one-element array', async () => {
    const r = await A.get(`/sites/${s.id}/groups/${g1.id}`);
    expectEnvelope(r, 'GET', A.url(`/sites/${s.id}/groups/${g1.id}`));
    expect(r.body.data).toHaveLength(1);
    expectGroup(r.body.data[0]);
    expect(r.body.data[0]).toMatchObject({ id: g1.id, name: g1.name, siteId: s.id });
  });

  test('a group of another site, an unknown group or site is a 404', async () => {
    expectError(await A.get(`/sites/${s.id}/groups/${elsewhere.id}`), 404);
    expectError(await A.get(`/sites/${s.id}/groups/${UNKNOWN_ID}`), 404);
    expectError(await A.get(`/sites/${UNKNOWN_ID}/groups/${g1.id}`), 404);
    expectError(await A.get(`/sites/${s.id}/groups/bad`), 400, /'groupId'/);
  });
});

describe('POST /sites/{id}/groups', () => {
  test('creates a group in the site: 200, the Group with siteId = the site', async () => {
    const s = await createSite(A);
    const name = uniq('SiteGroup');
    const r = await A.post(`/sites/${s.id}/groups`, { name, description: 'in a site' });
    expectEnvelope(r, 'POST', A.url(`/sites/${s.id}/groups`));
    expectGroup(r.body.data);
    expect(r.body.data).toMatchObject({ name, description: 'in a site', siteId: s.id });
    expect((await A.get(`/sites/${s.id}/groups`)).body.data.map((g: Fixture) => g.id)).toEqual([r.body.data.id]);
  });

  test('a siteId in the body other than the path is a 400 that makes no group; the same site (any case) is one', async () => {
    const s = await createSite(A);
    const name = uniq('TwoSites');
    expectError(await A.post(`/sites/${s.id}/groups`, { name, description: '', siteId: A.t.homeSiteId }), 400, `The siteId in the path ('${s.id}') and in the body ('${A.t.homeSiteId}') differ: send one of them, or the same in both.`);
    expect((await A.get(`/groups?${q(`name eq '${name}'`)}`)).body.data).toEqual([]);
    expect((await A.post(`/sites/${s.id}/groups`, { name, description: '', siteId: s.id.toUpperCase() })).body.data).toMatchObject({ name, siteId: s.id });
  });

  test('both name and description are mandatory; the name may not be blank', async () => {
    expectError(await A.post(`/sites/${A.t.homeSiteId}/groups`, { description: 'd' }), 400, "The mandatory field 'name' is missing.");
    expectError(await A.post(`/sites/${A.t.homeSiteId}/groups`, { name: ' ', description: '' }), 400, "The field 'name' must not be blank.");
    expectError(await A.post(`/sites/${A.t.homeSiteId}/groups`, { name: uniq('g') }), 400, "The mandatory field 'description' is missing.");
  });

  test('a duplicate name (any case) is a 409', async () => {
    const g = await createGroup(A);
    expectError(await A.post(`/sites/${A.t.homeSiteId}/groups`, { name: g.name.toUpperCase(), description: 'd' }), 409, /already exists/);
  });

  test('an unknown site is a 404', async () => {
    expectError(await A.post(`/sites/${UNKNOWN_ID}/groups`, { name: uniq('g'), description: 'd' }), 404, `Site '${UNKNOWN_ID}' was not found.`);
  });

  test('a create that waits for a delete of its site gets the 404 of an unknown site (not the foreign key\'s, nor the 400 of a body value)', async () => {
    const s = await createSite(A);
    // The delete, committed while the create waits for the site's row.
    const deletion = { text: 'delete from site where tenant_id = $1 and id = $2', values: [A.t.tenantId, s.id] };
    const r = await whileHeld(h, deletion, () => A.post(`/sites/${s.id}/groups`, { name: uniq('g'), description: 'd' }));
    expectError(r, 404, `Site '${s.id}' was not found.`);
  });
});

describe('PUT /sites/{id}/groups/{groupId}', () => {
  test('updates a group of the site', async () => {
    const s = await createSite(A);
    const g = await createGroup(A, { siteId: s.id, description: 'old' });
    const name = uniq('SiteGroupRenamed');
    const r = await A.put(`/sites/${s.id}/groups/${g.id}`, { name });
    expectEnvelope(r, 'PUT', A.url(`/sites/${s.id}/groups/${g.id}`));
    expectGroup(r.body.data);
    expect(r.body.data).toMatchObject({ id: g.id, name, description: 'old', siteId: s.id });
    expect((await A.put(`/sites/${s.id}/groups/${g.id}`, { description: 'new' })).body.data).toMatchObject({ name, description: 'new' });
  });

  test('a siteId in the body moves the group, as changegroupsite does, on this route and on PUT groups/{id}; an unknown site is a 400 that changes nothing; the all-zero GUID leaves it', async () => {
    const [s, t] = [await createSite(A), await createSite(A)];
    const g = await createGroup(A, { siteId: s.id, description: 'd' });
    expect((await A.put(`/sites/${s.id}/groups/${g.id}`, { siteId: t.id, description: 'moved' })).body.data).toMatchObject({ id: g.id, siteId: t.id, description: 'moved' });
    expect((await A.get(`/sites/${t.id}/groups`)).body.data.map((x: Fixture) => x.id)).toEqual([g.id]);
    expect((await A.put(`/groups/${g.id}`, { siteId: s.id })).body.data).toMatchObject({ siteId: s.id });
    expect((await A.put(`/groups/${g.id}`, { siteId: ZERO_GUID, description: 'kept' })).body.data).toMatchObject({ siteId: s.id, description: 'kept' });
    expectError(await A.put(`/groups/${g.id}`, { siteId: UNKNOWN_ID, description: 'lost' }), 400, `The site '${UNKNOWN_ID}' does not exist.`);
    expect((await A.get(`/groups/${g.id}`)).body.data[0]).toMatchObject({ siteId: s.id, description: 'kept' });
    // An ordinary user may not (the group routes are an administrator's).
    expectError(await A.as(plain.token).put(`/groups/${g.id}`, { siteId: t.id }), 403);
  });

  test('a group of another site is a 404 and stays unchanged; a taken name a 409', async () => {
    const s = await createSite(A);
    const g = await createGroup(A, { siteId: A.t.homeSiteId });
    expectError(await A.put(`/sites/${s.id}/groups/${g.id}`, { name: uniq('x') }), 404);
    expect((await A.get(`/groups/${g.id}`)).body.data[0].name).toBe(g.name);
    const other = await createGroup(A);
    expectError(await A.put(`/sites/${A.t.homeSiteId}/groups/${g.id}`, { name: other.name.toLowerCase() }), 409);
    expectError(await A.put(`/sites/${A.t.homeSiteId}/groups/${g.id}`, {}), 400);
  });
});

describe('GET /sites/{id}/users and /sites/{id}/users/{userId}', () => {
  let s: Fixture;
  let u1: UserFixture;
  let u2: UserFixture;
  beforeAll(async () => {
    s = await createSite(A);
    u1 = await createUser(A, s.id, uniq('aa'));
    u2 = await createUser(A, s.id, uniq('bb'));
  });

  test('lists the users of the site, as exact User records without passwords', async () => {
    const r = await A.get(`/sites/${s.id}/users`);
    expectEnvelope(r, 'GET', A.url(`/sites/${s.id}/users`));
    expect(r.body.data.map((u: Fixture) => u.id)).toEqual([u1.id, u2.id]);
    r.body.data.forEach(expectUser);
    expect(r.text).not.toMatch(/password"|passwordHash|scrypt|argon2/i);
  });

  test('q and fields apply', async () => {
    const r = await A.get(`/sites/${s.id}/users?q=${encodeURIComponent(`userid eq '${u2.userid.toUpperCase()}'`)}&fields=USERID,siteid`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([{ href: `~/users/${u2.id}`, dataType: 'User', userid: u2.userid, siteId: s.id }]);
  });

  test('one user of the site: a one-element array', async () => {
    const r = await A.get(`/sites/${s.id}/users/${u1.id}`);
    expectEnvelope(r, 'GET', A.url(`/sites/${s.id}/users/${u1.id}`));
    expect(r.body.data).toHaveLength(1);
    expectUser(r.body.data[0]);
    expect(r.body.data[0]).toMatchObject({ id: u1.id, userid: u1.userid, name: u1.userid, siteId: s.id });
  });

  test('a user of another site, or unknown ids, are 404s', async () => {
    expectError(await A.get(`/sites/${A.t.homeSiteId}/users/${u1.id}`), 404);
    expectError(await A.get(`/sites/${s.id}/users/${UNKNOWN_ID}`), 404);
    expectError(await A.get(`/sites/${UNKNOWN_ID}/users`), 404);
    expectError(await A.get(`/sites/${s.id}/users/nope`), 400, /'userId'/);
  });
});

describe('POST /sites/{id}/users', () => {
  const body = (userid: string) => ({ userid, firstName: 'Ann', lastName: 'Lee', emailaddress: `${userid}@x.test`, password: 'secret-1' });

  test('creates a user in the site: the name equals the userid, no password returned', async () => {
    const s = await createSite(A);
    const userid = uniq('ann');
    const r = await A.post(`/sites/${s.id}/users`, body(userid));
    expectEnvelope(r, 'POST', A.url(`/sites/${s.id}/users`));
    expectUser(r.body.data);
    expect(r.body.data).toMatchObject({
      name: userid,
      userid,
      firstName: 'Ann',
      middleInitial: '',
      lastName: 'Lee',
      emailAddress: `${userid}@x.test`,
      siteId: s.id,
      enabled: true,
    });
    expect(r.text).not.toContain('secret-1');
    await expect(h.login(A.t, userid, 'secret-1')).resolves.toEqual(expect.any(String));
  });

  test.each(['userid', 'firstName', 'lastName', 'emailaddress', 'password'])('a missing %s is a 400 naming it', async (field) => {
    const b: Record<string, string> = body(uniq('m'));
    delete b[field];
    expectError(await A.post(`/sites/${A.t.homeSiteId}/users`, b), 400, `'${field}'`);
  });

  test('a taken userid (any case) is a 409; an unknown site a 404', async () => {
    const u = await createUser(A);
    expectError(await A.post(`/sites/${A.t.homeSiteId}/users`, body(u.userid.toUpperCase())), 409);
    expectError(await A.post(`/sites/${UNKNOWN_ID}/users`, body(uniq('z'))), 404, `Site '${UNKNOWN_ID}' was not found.`);
  });

  test('a create that waits for a delete of its site gets the 404 of an unknown site (not the foreign key\'s, nor the 400 of a body value)', async () => {
    const s = await createSite(A);
    // The delete, committed while the create waits for the site's row.
    const deletion = { text: 'delete from site where tenant_id = $1 and id = $2', values: [A.t.tenantId, s.id] };
    const userid = uniq('late');
    expectError(await whileHeld(h, deletion, () => A.post(`/sites/${s.id}/users`, body(userid))), 404, `Site '${s.id}' was not found.`);
    expect((await A.get(`/users?q=${encodeURIComponent(`userid eq '${userid}'`)}`)).body.data).toEqual([]);
  });
});

describe('PUT /sites/{id}/users/{userId}', () => {
  test('updates a user of the site; keys not sent stay', async () => {
    const s = await createSite(A);
    const u = await createUser(A, s.id);
    const r = await A.put(`/sites/${s.id}/users/${u.id}`, { firstName: 'Changed', middleInitial: 'Q' });
    expectEnvelope(r, 'PUT', A.url(`/sites/${s.id}/users/${u.id}`));
    expectUser(r.body.data);
    expect(r.body.data).toMatchObject({ id: u.id, firstName: 'Changed', middleInitial: 'Q', lastName: 'Last', siteId: s.id });
  });

  test('a user of another site is a 404', async () => {
    const s = await createSite(A);
    const u = await createUser(A);
    expectError(await A.put(`/sites/${s.id}/users/${u.id}`, { firstName: 'x' }), 404);
    expectError(await A.put(`/sites/${s.id}/users/${UNKNOWN_ID}`, { firstName: 'x' }), 404);
  });
});

describe('PUT /sites/changeusersite', () => {
  test('moves a user with the PascalCase body {UserId, NewSiteId}; data is the User', async () => {
    const from = await createSite(A);
    const to = await createSite(A);
    const u = await createUser(A, from.id);
    const r = await A.put('/sites/changeusersite', { UserId: u.id, NewSiteId: to.id });
    expectEnvelope(r, 'PUT', A.url('/sites/changeusersite'));
    expectUser(r.body.data);
    expect(r.body.data).toMatchObject({ id: u.id, siteId: to.id });
    expect((await A.get(`/sites/${to.id}/users`)).body.data.map((x: Fixture) => x.id)).toEqual([u.id]);
    expect((await A.get(`/sites/${from.id}/users`)).body.data).toEqual([]);
  });

  test('also accepts camelCase keys and upper-case GUIDs', async () => {
    const to = await createSite(A);
    const u = await createUser(A);
    const r = await A.put('/sites/changeusersite', { userId: u.id.toUpperCase(), newSiteId: to.id.toUpperCase() });
    expect(r.status).toBe(200);
    expect(r.body.data.siteId).toBe(to.id);
  });

  test('missing or malformed ids are 400s naming the field', async () => {
    const u = await createUser(A);
    expectError(await A.put('/sites/changeusersite', { NewSiteId: A.t.homeSiteId }), 400, 'userId');
    expectError(await A.put('/sites/changeusersite', { UserId: u.id }), 400, 'newSiteId');
    // Named as sent.
    expectError(await A.put('/sites/changeusersite', { UserId: 'nope', NewSiteId: A.t.homeSiteId }), 400, "The field 'UserId' must be a GUID");
    expectError(await A.put('/sites/changeusersite', {}), 400);
  });

  test('an unknown user is a 404; an unknown site a 400 (it is a body value)', async () => {
    const u = await createUser(A);
    expectError(await A.put('/sites/changeusersite', { UserId: UNKNOWN_ID, NewSiteId: A.t.homeSiteId }), 404);
    expectError(await A.put('/sites/changeusersite', { UserId: u.id, NewSiteId: UNKNOWN_ID }), 400, UNKNOWN_ID);
    expect((await A.get(`/sites/${A.t.homeSiteId}/users/${u.id}`)).status).toBe(200);
  });
});

describe('PUT /sites/changegroupsite', () => {
  test('moves a group with {groupId, newSiteId}; data is the Group', async () => {
    const to = await createSite(A);
    const g = await createGroup(A, { siteId: A.t.homeSiteId });
    const r = await A.put('/sites/changegroupsite', { groupId: g.id, newSiteId: to.id });
    expectEnvelope(r, 'PUT', A.url('/sites/changegroupsite'));
    expectGroup(r.body.data);
    expect(r.body.data).toMatchObject({ id: g.id, name: g.name, siteId: to.id });
    expect((await A.get(`/sites/${to.id}/groups`)).body.data.map((x: Fixture) => x.id)).toEqual([g.id]);
  });

  test('gives a group without a site a site', async () => {
    const g = await createGroup(A);
    expect((await A.get(`/groups/${g.id}`)).body.data[0].siteId).toBe(ZERO_GUID);
    const r = await A.put('/sites/changegroupsite', { GroupId: g.id, NewSiteId: A.t.homeSiteId });
    expect(r.status).toBe(200);
    expect(r.body.data.siteId).toBe(A.t.homeSiteId);
  });

  test('missing ids are 400s naming the field; unknown group 404; unknown site 400', async () => {
    const g = await createGroup(A);
    expectError(await A.put('/sites/changegroupsite', { newSiteId: A.t.homeSiteId }), 400, 'groupId');
    expectError(await A.put('/sites/changegroupsite', { groupId: g.id }), 400, 'newSiteId');
    expectError(await A.put('/sites/changegroupsite', { groupId: UNKNOWN_ID, newSiteId: A.t.homeSiteId }), 404);
    expectError(await A.put('/sites/changegroupsite', { groupId: g.id, newSiteId: UNKNOWN_ID }), 400, UNKNOWN_ID);
    // The all-zero GUID is sent, so not missing: it names nothing.
    const u = await createUser(A);
    for (const [path, body, key] of [
      ['/sites/changegroupsite', { groupId: ZERO_GUID, newSiteId: A.t.homeSiteId }, 'groupId'],
      ['/sites/changegroupsite', { groupId: g.id, newSiteId: ZERO_GUID }, 'newSiteId'],
      ['/sites/changeusersite', { UserId: u.id, NewSiteId: ZERO_GUID }, 'NewSiteId'],
    ] as const) {
      expectError(await A.put(path, body), 400, `The field '${key}' is the all-zero GUID, which names nothing: send the id of a record.`);
    }
    expect((await A.get(`/groups/${g.id}`)).body.data[0].siteId).toBe(ZERO_GUID);
  });
});

describe('a site a body names (newSiteId, siteId), deleted while the write waits for it', () => {
  const userBody = (userid: string, siteId: string) => ({ userid, firstName: 'Ann', lastName: 'Lee', emailaddress: `${userid}@x.test`, password: 'secret-1', siteId });
  test.each([
    ['PUT sites/changeusersite', 'user', (u: Fixture, _g: Fixture, _n: string, to: string) => A.put('/sites/changeusersite', { UserId: u.id, NewSiteId: to })],
    ['PUT sites/changegroupsite', 'group', (_u: Fixture, g: Fixture, _n: string, to: string) => A.put('/sites/changegroupsite', { groupId: g.id, newSiteId: to })],
    ['PUT sites/{id}/users/{userId} {siteId}', 'user', (u: Fixture, _g: Fixture, _n: string, to: string) => A.put(`/sites/${A.t.homeSiteId}/users/${u.id}`, { siteId: to })],
    ['PUT users/{id} {siteId}', 'user', (u: Fixture, _g: Fixture, _n: string, to: string) => A.put(`/users/${u.id}`, { siteId: to })],
    ['POST users {siteId}', 'new user', (_u: Fixture, _g: Fixture, n: string, to: string) => A.post('/users', userBody(n, to))],
    ['POST groups {siteId}', 'new group', (_u: Fixture, _g: Fixture, n: string, to: string) => A.post('/groups', { name: n, description: 'd', siteId: to })],
  ])('%s: the 400 of an unknown site, not the foreign key\'s 404; nothing changed', async (_, what, send) => {
    const s = await createSite(A);
    const u = await createUser(A);
    const g = await createGroup(A, { siteId: A.t.homeSiteId });
    const name = uniq('late');
    // The delete, committed while the write waits for the site's row.
    const deletion = { text: 'delete from site where tenant_id = $1 and id = $2', values: [A.t.tenantId, s.id] };
    const r = await whileHeld(h, deletion, () => send(u, g, name, s.id));
    expectError(r, 400, `The site '${s.id}' does not exist.`);
    expectAsUnknown(r, await send(u, g, uniq('late'), UNKNOWN_ID), s.id);
    expect([(await A.get(`/sites/${A.t.homeSiteId}/users/${u.id}`)).body.data].flat()[0].siteId).toBe(A.t.homeSiteId);
    expect((await A.get(`/groups/${g.id}`)).body.data[0].siteId).toBe(A.t.homeSiteId);
    if (what === 'new user') expect((await A.get(`/users?q=${encodeURIComponent(`userid eq '${name}'`)}`)).body.data).toEqual([]);
    if (what === 'new group') expect((await A.get(`/groups?q=${encodeURIComponent(`name eq '${name}'`)}`)).body.data).toEqual([]);
  });
});

describe('an ordinary (non-admin) user', () => {
  let s: Fixture;
  let g: Fixture;
  let u: UserFixture;
  let P: Api;
  beforeAll(async () => {
    s = await createSite(A);
    g = await createGroup(A, { siteId: s.id });
    u = await createUser(A, s.id);
    P = A.as(plain.token);
  });

  test('may read every Sites route', async () => {
    for (const path of ['/sites', `/sites/${s.id}`, `/sites/${s.id}/groups`, `/sites/${s.id}/groups/${g.id}`, `/sites/${s.id}/users`, `/sites/${s.id}/users/${u.id}`]) {
      const r = await P.get(path);
      expectEnvelope(r, 'GET', P.url(path));
      expect(r.body.data.length).toBeGreaterThan(0);
    }
  });

  test('gets a 403 for every write, and nothing changes', async () => {
    const writes: [string, string, unknown][] = [
      ['POST', '/sites', { name: uniq('x'), description: 'd' }],
      ['PUT', `/sites/${s.id}`, { name: 'hijacked' }],
      ['DELETE', `/sites/${s.id}`, undefined],
      ['POST', `/sites/${s.id}/groups`, { name: uniq('x'), description: 'd' }],
      ['PUT', `/sites/${s.id}/groups/${g.id}`, { name: 'hijacked' }],
      ['POST', `/sites/${s.id}/users`, { userid: uniq('x'), firstName: 'a', lastName: 'b', emailaddress: 'c', password: 'd' }],
      ['PUT', `/sites/${s.id}/users/${u.id}`, { firstName: 'hijacked' }],
      ['PUT', '/sites/changeusersite', { UserId: u.id, NewSiteId: A.t.homeSiteId }],
      ['PUT', '/sites/changegroupsite', { groupId: g.id, newSiteId: A.t.homeSiteId }],
    ];
    const before = await A.get('/sites?expand=groups,users');
    for (const [method, path, body] of writes) {
      const r = await P.request(method, path, body === undefined ? {} : { body });
      expectError(r, 403);
    }
    expect((await A.get('/sites?expand=groups,users')).body.data).toEqual(before.body.data);
  });
});

// The 401/403/404 matrix over every route is generated from the route table (conformance.test.ts).
describe('across tenants', () => {
  let s: Fixture;
  let g: Fixture;
  let u: UserFixture;
  beforeAll(async () => {
    s = await createSite(A, uniq('Secret'), 'secret description');
    g = await createGroup(A, { name: uniq('SecretGroup'), siteId: s.id });
    u = await createUser(A, s.id, uniq('secretuser'));
  });

  test("tenant A's ids in tenant B's bodies are unknown there", async () => {
    const bSite = await createSite(B);
    const bUser = await createUser(B);
    const bGroup = await createGroup(B);
    expectError(await B.put('/sites/changeusersite', { UserId: u.id, NewSiteId: bSite.id }), 404);
    expectError(await B.put('/sites/changeusersite', { UserId: bUser.id, NewSiteId: s.id }), 400);
    expectError(await B.put('/sites/changegroupsite', { groupId: g.id, newSiteId: bSite.id }), 404);
    expectError(await B.put('/sites/changegroupsite', { groupId: bGroup.id, newSiteId: s.id }), 400);
    expectError(await B.get(`/sites/${bSite.id}/groups/${g.id}`), 404);
    expectError(await B.get(`/sites/${bSite.id}/users/${u.id}`), 404);
  });

  test("B's lists never show A's records", async () => {
    const r = await B.get('/sites?expand=groups,users');
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(s.id);
    expect(r.text).not.toContain(g.id);
    expect(r.text).not.toContain(u.id);
    expect((await B.get(`/sites?q=${encodeURIComponent(`id eq '${s.id}'`)}`)).body.data).toEqual([]);
  });
});

describe('SQL statements per list call do not grow with the page', () => {
  let T: Api;
  let big: Fixture;
  beforeAll(async () => {
    T = await adminApi(h);
    for (let i = 0; i < 50; i++) {
      const site = await createSite(T, `S${String(i).padStart(2, '0')}`);
      await createGroup(T, { siteId: site.id });
    }
    big = await createSite(T, 'Big');
    for (let i = 0; i < 50; i++) await createGroup(T, { siteId: big.id });
  });

  async function statements(path: string, records: number) {
    const { result, statements } = await h.countQueries(() => T.get(path));
    expect(result.status).toBe(200);
    expect(result.body.data).toHaveLength(records);
    return statements.length;
  }

  test.each([
    '/sites',
    '/sites?expand=groups,users',
    `/sites?fields=name&q=${encodeURIComponent("name like 's%'")}`,
    '/sites/{big}/groups',
    '/sites/{big}/groups?expand=users,site',
  ])('GET %s', async (template) => {
    const path = template.replace('{big}', big.id);
    const sep = path.includes('?') ? '&' : '?';
    await T.get(path); // warm-up: nothing cached should count
    const two = await statements(`${path}${sep}limit=2`, 2);
    const fifty = await statements(`${path}${sep}limit=50`, 50);
    expect(two).toBeGreaterThan(0);
    expect(fifty).toBe(two);
  });
});
