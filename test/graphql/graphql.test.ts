import zlib from 'node:zlib';
import { Harness, type TestTenant } from '../harness.js';
import { newId } from '../../src/ids.js';
import { cachedUnlessRejected } from '../../src/plugins/use-graphiql.js';

let h: Harness;
let t: TestTenant;
let token: string;

const gql = (query: string, variables?: Record<string, unknown>, bearer = token) =>
  h.request('POST', '/graphql', { token: bearer, body: { query, variables } });

/** Seeds `groups` groups, each with `members` users, through bulk SQL. */
async function seed(tenant: TestTenant, groups: number, members: number) {
  const conn = h.orm.em.getConnection();
  const userIds = Array.from({ length: members }, () => newId());
  await conn.execute(
    `insert into app_user (id, tenant_id, site_id, user_id, name, password_hash)
       select u, ?, ?, 'u-' || u::text, 'u-' || u::text, 'x' from unnest(array[?]::uuid[]) as u`,
    [tenant.tenantId, tenant.homeSiteId, userIds],
  );
  const groupIds = Array.from({ length: groups }, () => newId());
  await conn.execute(
    `insert into user_group (id, tenant_id, site_id, name) select g, ?, ?, 'g-' || g::text from unnest(array[?]::uuid[]) as g`,
    [tenant.tenantId, tenant.homeSiteId, groupIds],
  );
  await conn.execute(
    `insert into group_member (group_id, user_id, tenant_id)
       select g, u, ? from unnest(array[?]::uuid[]) as g cross join unnest(array[?]::uuid[]) as u`,
    [tenant.tenantId, groupIds, userIds],
  );
}

const GROUPS_WITH_RELATIONS = `query ($limit: Int) {
  groups(limit: $limit) { items { id name siteId site { id name } users { id userid } } }
}`;

beforeAll(async () => {
  h = await Harness.start();
  t = await h.tenant();
  token = await h.login(t);
});
afterAll(() => h.stop());

describe('/graphql', () => {
  test('a row looked up by id is queried once per request, however often it is asked for', async () => {
    const query = `query ($id: UUID!) {
      a: site(id: $id) { id groups { id site { id name } } users { id site { id } } }
      b: site(id: $id) { name }
    }`;
    const { result, statements } = await h.countQueries(() => gql(query, { id: t.homeSiteId }));
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data.a.groups.length).toBeGreaterThan(0);
    for (const g of result.body.data.a.groups) expect(g.site).toEqual({ id: t.homeSiteId, name: 'Home' });
    expect(result.body.data.b).toEqual({ name: 'Home' });
    // The site (once, for both aliases and every relation back to it), its groups, its users.
    expect(statements).toHaveLength(3);
    expect(statements.filter((s) => /from site t/.test(s))).toHaveLength(1);
  });

  test('groups with their users and sites cost a constant number of statements (at most 4)', async () => {
    await seed(t, 200, 3);
    const small = await h.countQueries(() => gql(GROUPS_WITH_RELATIONS, { limit: 2 }));
    const large = await h.countQueries(() => gql(GROUPS_WITH_RELATIONS, { limit: 201 }));
    expect(large.result.status).toBe(200);
    expect(large.result.body.errors).toBeUndefined();
    const items = large.result.body.data.groups.items;
    expect(items).toHaveLength(201);
    const seeded = items.find((g: { name: string }) => g.name.startsWith('g-'));
    expect(seeded.users).toHaveLength(3);
    expect(seeded.site.name).toBe('Home');
    // The groups page, the members joined with their users, the groups' sites.
    expect(large.statements).toHaveLength(3);
    expect(small.statements).toHaveLength(3);
  });

  test('relations resolve both ways', async () => {
    const r = await gql(`{ me { userid site { name users { userid } groups { name } } groups { name users { userid } site { name } } } }`);
    expect(r.body.errors).toBeUndefined();
    const me = r.body.data.me;
    expect(me.userid).toBe('admin');
    expect(me.site.name).toBe('Home');
    expect(me.site.users.map((u: { userid: string }) => u.userid)).toContain('admin');
    expect(me.site.groups.map((g: { name: string }) => g.name)).toContain('Administrators');
    expect(me.groups[0]).toMatchObject({ name: 'Administrators', site: { name: 'Home' } });
    expect(me.groups[0].users.map((u: { userid: string }) => u.userid)).toContain('admin');
  });

  test('list queries take q, limit and offset, and count', async () => {
    const r = await gql(`{ users(q: "userid eq 'ADMIN'") { totalRecords items { userid } } }`);
    expect(r.body.data.users).toEqual({ totalRecords: 1, items: [{ userid: 'admin' }] });
    const bad = await gql(`{ users(q: "userid eq 'x") { totalRecords } }`);
    // A 200 under application/json, as every execution error (test/graphql/refusals.test.ts).
    expect(bad.status).toBe(200);
    expect(bad.body.errors[0].message).toMatch(/unterminated string starting at position 11/);
    expect(bad.body.errors[0].extensions.code).toBe('BAD_REQUEST');
  });

  test('mutations create and relate', async () => {
    const site = await gql(`mutation { createSite(input: {name: "GQL", description: "d"}) { id name status } }`);
    expect(site.body.data.createSite).toMatchObject({ name: 'GQL', status: 'Open' });
    const group = await gql(`mutation ($s: UUID) { createGroup(input: {name: "GQL group", description: "d", siteId: $s}) { id site { name } } }`, {
      s: site.body.data.createSite.id,
    });
    expect(group.body.data.createGroup.site.name).toBe('GQL');
  });

  test('a token is required, and each token sees only its own tenant', async () => {
    const none = await h.request('POST', '/graphql', { body: { query: '{ me { id } }' } });
    expect(none.status).toBe(401);
    expect(none.body.data ?? null).toBeNull();

    const other = await h.tenant();
    const otherToken = await h.login(other);
    const r = await gql(`query ($id: UUID!) { site(id: $id) { id } }`, { id: t.homeSiteId }, otherToken);
    expect(r.body.data).toEqual({ site: null });
    expect(r.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const sites = await gql(`{ sites { items { id } } }`, undefined, otherToken);
    expect(sites.body.data.sites.items.map((s: { id: string }) => s.id)).toEqual([other.homeSiteId]);
  });

  test('depth and alias limits reject abusive queries', async () => {
    const deep = await gql(`{ me { groups { users { groups { users { groups { users { groups { users { id } } } } } } } } } }`);
    expect(deep.body.errors?.[0]?.message).toMatch(/depth/i);
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: me { id }`).join(' ');
    const many = await gql(`{ ${aliases} }`);
    expect(many.body.errors?.[0]?.message).toMatch(/alias/i);
  });

  test('GraphiQL is served with its assets bundled (no CDN)', async () => {
    const r = await h.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/html/);
    expect(r.text).toMatch(/graphiql/i);
    expect(r.text).not.toMatch(/unpkg\.com|cdn\.jsdelivr|esm\.sh/);
    // Its first query says how to authenticate, since the schema's own query needs a token too.
    expect(r.text).toContain('POST /oauth/token, form-encoded: grant_type=password');
    expect(r.text).toContain('{\\"Authorization\\": \\"Bearer <access_token>\\"}');
  });

  test('GraphiQL\'s page has a strong ETag (a 304 when the browser has it), no-cache, and goes compressed to who takes br or gzip', async () => {
    const page = (headers: Record<string, string> = {}) => h.request('GET', '/graphql', { headers: { accept: 'text/html', ...headers } });
    const plain = await page();
    const tag = plain.headers.get('etag')!;
    expect(tag).toMatch(/^"[\w-]+"$/);
    expect([plain.headers.get('cache-control'), plain.headers.get('content-encoding'), plain.headers.get('vary')]).toEqual(['no-cache', null, 'Accept, Accept-Encoding']);
    expect(plain.headers.get('content-length')).toBe(String(plain.bytes.length));
    expect((await page()).headers.get('etag')).toBe(tag);
    for (const sent of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
      const again = await page({ 'if-none-match': sent });
      expect([sent, again.status, again.bytes.length, again.headers.get('etag'), again.headers.get('cache-control')]).toEqual([sent, 304, 0, tag, 'no-cache']);
    }
    expect((await page({ 'if-none-match': '"other"' })).status).toBe(200);

    const gz = await page({ 'accept-encoding': 'gzip, deflate' });
    expect([gz.status, gz.headers.get('content-encoding'), gz.headers.get('content-length')]).toEqual([200, 'gzip', String(gz.bytes.length)]);
    expect(gz.bytes.length).toBeLessThan(plain.bytes.length / 3);
    expect(zlib.gunzipSync(gz.bytes).equals(Buffer.from(plain.bytes))).toBe(true);
    // Another representation, another tag; its own gets the 304.
    const gzTag = gz.headers.get('etag')!;
    expect(gzTag).not.toBe(tag);
    expect((await page({ 'accept-encoding': 'gzip', 'if-none-match': gzTag })).status).toBe(304);
    expect((await page({ 'accept-encoding': 'gzip', 'if-none-match': tag })).status).toBe(200);

    const br = await page({ 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(zlib.brotliDecompressSync(br.bytes).equals(Buffer.from(plain.bytes))).toBe(true);
    expect((await page({ 'accept-encoding': 'br;q=0, gzip' })).headers.get('content-encoding')).toBe('gzip');
    expect((await page({ 'accept-encoding': 'br;q=0, gzip;q=0' })).headers.get('content-encoding')).toBeNull();
  });

  test("GraphiQL's compressed page: one that failed to compress is made again by the next request, not kept failing", async () => {
    const encoded = new Map<string, Promise<string>>();
    let calls = 0;
    const make = () => (++calls === 1 ? Promise.reject(new Error('no memory')) : Promise.resolve('page'));
    await expect(cachedUnlessRejected(encoded, 'br', make)).rejects.toThrow('no memory');
    await expect(cachedUnlessRejected(encoded, 'br', make)).resolves.toBe('page');
    await expect(cachedUnlessRejected(encoded, 'br', make)).resolves.toBe('page');
    expect(calls).toBe(2);
  });

  test('operationName chooses the operation of a document that has several, each time', async () => {
    const query = 'query A { me { userid } } query B { sites { totalRecords } } mutation M { createSite(input: { name: "OpName", description: "" }) { name } }';
    const run = (operationName: string) => h.request('POST', '/graphql', { token, body: { query, operationName } });
    const first = await run('B');
    expect(first.body).toEqual({ data: { sites: { totalRecords: expect.any(Number) } } });
    // The compiled document was cached by its text alone: A then ran B, and B after M ran M again.
    expect((await run('A')).body).toEqual({ data: { me: { userid: t.adminUserId } } });
    expect((await run('M')).body).toEqual({ data: { createSite: { name: 'OpName' } } });
    expect((await run('B')).body).toEqual({ data: { sites: { totalRecords: first.body.data.sites.totalRecords + 1 } } });
  });

  test('fields come back in the order asked, a fragment\'s where it is spread, in a document of one operation or of several', async () => {
    const folder = (await gql('mutation { createFolder(input: { name: "Ordered" }) { id } }')).body.data.createFolder.id;
    const query = `query Q ($f: UUID!) {
      a: me { ...U id }
      b: folder(id: $f) { ... on Folder { name } id ...F }
      c: me { userid }
    }
    fragment U on User { name }
    fragment F on Folder { folderPath }`;
    const keys = (data: Record<string, Record<string, unknown>>) => [Object.keys(data), ...Object.values(data).map((v) => Object.keys(v))];
    const want = [['a', 'b', 'c'], ['name', 'id'], ['name', 'id', 'folderPath'], ['userid']];
    // One operation (run compiled): a fragment's fields came after the fields beside it.
    const one = await gql(query, { f: folder });
    expect(keys(one.body.data)).toEqual(want);
    // Several (run by Yoga's executor): each field was set as its value arrived, b (a database read) after c.
    const several = await h.request('POST', '/graphql', { token, body: { query: `${query} query Other { me { id } }`, variables: { f: folder }, operationName: 'Q' } });
    expect(keys(several.body.data)).toEqual(want);
    expect(several.body.data).toEqual(one.body.data);
  });

  test('an execution error says where in the document it was raised (locations), as a validation error does', async () => {
    const query = `{ me { userid }\r\n  missing: user(id: "${newId()}") { id }\n  sites(limit: -1) { totalRecords } }`;
    const want = [
      expect.objectContaining({ path: ['missing'], locations: [{ line: 2, column: 3 }], extensions: expect.objectContaining({ code: 'NOT_FOUND' }) }),
    ];
    const one = await gql(query.replace('sites(limit: -1) { totalRecords }', ''));
    expect(one.body.errors).toEqual(want);
    // A relation's refusal, under a page.
    const nested = await gql('{ groups {\n  items { users(limit: -1) { id } } } }');
    expect(nested.body.errors[0]).toMatchObject({ path: ['groups', 'items', 0, 'users'], locations: [{ line: 2, column: 11 }] });
    // Run uncompiled (a document of several operations), the same.
    const several = await h.request('POST', '/graphql', { token, body: { query: `query Q ${query.replace('sites(limit: -1) { totalRecords }', '')} query Other { me { id } }`, operationName: 'Q' } });
    expect(several.body.errors).toEqual([expect.objectContaining({ locations: [{ line: 2, column: 3 }] })]);
  });

  test('a variable GraphQL cannot take is placed at its definition (locations), a value inside one too', async () => {
    const bad = await gql('query ($l: Int) {\n  users(limit: $l) { totalRecords } }', { l: '3' });
    expect(bad.body.errors).toEqual([expect.objectContaining({ locations: [{ line: 1, column: 8 }], extensions: expect.objectContaining({ code: 'BAD_REQUEST', field: 'limit' }) })]);
    const missing = await gql('query ($a: Int, $id: UUID!) { user(id: $id) { id } users(limit: $a) { totalRecords } }');
    expect(missing.body.errors[0]).toMatchObject({ message: 'Variable "$id" of required type "UUID!" was not provided.', locations: [{ line: 1, column: 17 }] });
    const inside = await gql('mutation ($i: DropDownListInput!) { createDropDownList(input: $i) { listName } }', { i: { name: 'Placed', items: [{ itemName: {} }] } });
    expect(inside.body.errors).toEqual([expect.objectContaining({ locations: [{ line: 1, column: 11 }], extensions: expect.objectContaining({ field: 'input.items[0].itemName' }) })]);
  });

  test('an unknown data type is a NOT_FOUND error', async () => {
    const r = await gql(`{ metaDataType(datatype: "nope") { dataType } }`);
    expect(r.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  // Root fields that answer one record, and every mutation, are nullable: one alias's error does not wipe the others' answers.
  test('mutations run one by one: each alias answers its own result or error, and those that succeeded say so', async () => {
    const r = await gql(`mutation {
      a: createFolder(input: { name: "Nullable1" }) { name }
      b: createFolder(input: { name: "Nullable1" }) { name }
      c: createFolder(input: { name: "Nullable2" }) { name }
    }`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ a: { name: 'Nullable1' }, b: null, c: { name: 'Nullable2' } });
    expect(r.body.errors).toEqual([expect.objectContaining({ path: ['b'], extensions: expect.objectContaining({ code: 'CONFLICT' }) })]);
    // Committed, each in its own transaction.
    const after = await gql(`{ x: folderByPath(folderPath: "Nullable1") { name } y: folderByPath(folderPath: "Nullable2") { name } }`);
    expect(after.body).toEqual({ data: { x: { name: 'Nullable1' }, y: { name: 'Nullable2' } } });
  });

  test('a record looked up by id that is not there is null with its NOT_FOUND, beside the fields that were answered', async () => {
    const query = `{ me { userid } document(documentId: "${newId()}") { id } }`;
    const r = await gql(query);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ me: { userid: t.adminUserId }, document: null });
    expect(r.body.errors).toEqual([expect.objectContaining({ path: ['document'], extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })]);
    // `data` is not null: application/graphql-response+json requires a 2xx then.
    const strict = await h.request('POST', '/graphql', { token, body: { query }, headers: { accept: 'application/graphql-response+json' } });
    expect([strict.status, strict.body.data]).toEqual([200, r.body.data]);
  });
});

describe('/graphql input PostgreSQL cannot store', () => {
  test('a NUL character in a variable or in the query is a 400, not a 500', async () => {
    const v = await gql(`mutation ($n: String) { createSite(input: {name: $n, description: "d"}) { id } }`, { n: 'a\u0000b' });
    expect(v.status).toBe(400);
    expect(v.body.errors[0].message).toMatch(/NUL/);
    const q = await gql(`{ users(q: "userid eq 'a\u0000'") { totalRecords } }`);
    expect(q.status).toBe(400);
    expect(q.body.errors[0].message).toMatch(/NUL/);
  });

  test('a NUL character in the URL is refused by the check REST uses, answered in GraphQL\'s own error shape', async () => {
    const r = await h.request('GET', `/graphql?query=${encodeURIComponent('{ __typename }')}%00`, { token });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errors: [{ message: 'The request query string must not contain NUL (%00) characters.', extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) }] });
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const rest = await h.request('GET', `${t.root}/sites?q=%00`, { token });
    expect(rest.status).toBe(400);
    expect(rest.body.meta.errors[0].message).toBe(r.body.errors[0].message);
  });
});
