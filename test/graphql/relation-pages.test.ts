/**
 * Relation lists are paged like list reads (no request reads a whole tenant through one), and a
 * /graphql operation that would read more rows than MAX_QUERY_ROWS, counting every list at its
 * limit, is refused before anything runs (a 400 under application/graphql-response+json).
 */
import { newId } from '../../src/ids.js';
import { Harness, type TestTenant } from '../harness.js';

let h: Harness;
let t: TestTenant;
let token: string;
/** Two groups of four members each; ids are time-ordered, so in userid order too. Members 0 and 2 are named 'ann', 1 and 3 'bob'. */
const groups: { id: string; members: string[] }[] = [];

// Refusals are 400s under this media type (200s under application/json: test/graphql/refusals.test.ts).
const gql = (query: string, variables?: Record<string, unknown>) =>
  h.request('POST', '/graphql', { token, body: { query, variables }, headers: { accept: 'application/graphql-response+json' } });

beforeAll(async () => {
  h = await Harness.start({ defaultPageSize: 2, maxPageSize: 3, maxQueryRows: 30 });
  t = await h.tenant();
  token = await h.login(t);
  const conn = h.orm.em.getConnection();
  for (let g = 0; g < 2; g++) {
    const members = Array.from({ length: 4 }, () => newId());
    const id = newId();
    await conn.execute(
      `insert into app_user (id, tenant_id, site_id, user_id, name, password_hash)
         select u, ?, ?, 'm-' || u::text, case when i % 2 = 1 then 'ann' else 'bob' end, 'x' from unnest(array[?]::uuid[]) with ordinality as m(u, i)`,
      [t.tenantId, t.homeSiteId, members],
    );
    await conn.execute('insert into user_group (id, tenant_id, site_id, name) values (?, ?, ?, ?)', [id, t.tenantId, t.homeSiteId, `paged-${id}`]);
    await conn.execute(`insert into group_member (group_id, user_id, tenant_id) select ?, u, ? from unnest(array[?]::uuid[]) as u`, [id, t.tenantId, members]);
    groups.push({ id, members });
  }
});
afterAll(() => h.stop());

const membersOf = async (id: string, args = '') => {
  const r = await gql(`query ($id: UUID!) { group(id: $id) { users${args} { id } } }`, { id });
  expect(r.body.errors).toBeUndefined();
  return (r.body.data.group.users as { id: string }[]).map((u) => u.id);
};

describe('relation lists are paged', () => {
  test('DEFAULT_PAGE_SIZE rows when no limit is asked for, at most MAX_PAGE_SIZE when more is', async () => {
    const [g] = groups;
    expect(await membersOf(g.id)).toEqual(g.members.slice(0, 2));
    expect(await membersOf(g.id, '(limit: 3)')).toEqual(g.members.slice(0, 3));
    expect(await membersOf(g.id, '(limit: 1000)')).toEqual(g.members.slice(0, 3));
    expect(await membersOf(g.id, '(limit: 3, offset: 2)')).toEqual(g.members.slice(2));
  });

  test('every parent gets its own page, in one statement for all of them', async () => {
    const query = `query ($a: UUID!, $b: UUID!) { a: group(id: $a) { users(limit: 1, offset: 1) { id } } b: group(id: $b) { users(limit: 1, offset: 1) { id } } }`;
    const { result, statements } = await h.countQueries(() => gql(query, { a: groups[0].id, b: groups[1].id }));
    expect(result.body.data).toEqual({ a: { users: [{ id: groups[0].members[1] }] }, b: { users: [{ id: groups[1].members[1] }] } });
    expect(statements.filter((s) => /group_member/.test(s))).toHaveLength(1);
  });

  test('a negative limit or offset on a relation is a BAD_REQUEST at its path; a 400 where it leaves no data', async () => {
    // Under a nullable root (one record), the record is null beside the error: data stands, a 200.
    const one = await gql(`query ($id: UUID!) { group(id: $id) { users(limit: -1) { id } } }`, { id: groups[0].id });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({ group: null });
    expect(one.body.errors[0]).toMatchObject({ path: ['group', 'users'], extensions: { code: 'BAD_REQUEST' } });
    expect(one.body.errors[0].message).toMatch(/limit must be a whole number/);
    // Under a page (non-null all the way up), nothing is left: a 400.
    const page = await gql(`{ groups { items { users(offset: -1) { id } } } }`);
    expect(page.status).toBe(400);
    expect(page.body.errors[0].message).toMatch(/offset must be a whole number/);
  });

  test('REST expand gives each record one page of its relation', async () => {
    const r = await h.request('GET', `${t.root}/groups/${groups[0].id}?expand=users`, { token });
    expect(r.status).toBe(200);
    const group = Array.isArray(r.body.data) ? r.body.data[0] : r.body.data;
    expect(group.users.map((u: { id: string }) => u.id)).toEqual(groups[0].members.slice(0, 2));
  });
});

describe('relation lists take q', () => {
  const ann = (g: { members: string[] }) => [g.members[0], g.members[2]];
  const bob = (g: { members: string[] }) => [g.members[1], g.members[3]];

  test("each parent's rows are filtered by the target's fields, then paged, in one statement for all parents", async () => {
    const query = `query ($a: UUID!, $b: UUID!) {
      a: group(id: $a) { users(q: "name eq 'ann'") { id } }
      b: group(id: $b) { users(q: "name eq 'bob'", limit: 1, offset: 1) { id } }
    }`;
    const { result, statements } = await h.countQueries(() => gql(query, { a: groups[0].id, b: groups[1].id }));
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data).toEqual({ a: { users: ann(groups[0]).map((id) => ({ id })) }, b: { users: [{ id: groups[1].members[3] }] } });
    // Two filters, two statements (one per filter, whatever the number of parents).
    expect(statements.filter((s) => /group_member/.test(s))).toHaveLength(2);
    const both = `query ($a: UUID!, $b: UUID!) { a: group(id: $a) { users(q: "name eq 'ann'") { id } } b: group(id: $b) { users(q: "name eq 'ann'") { id } } }`;
    const once = await h.countQueries(() => gql(both, { a: groups[0].id, b: groups[1].id }));
    expect(once.result.body.data).toEqual({ a: { users: ann(groups[0]).map((id) => ({ id })) }, b: { users: ann(groups[1]).map((id) => ({ id })) } });
    expect(once.statements.filter((s) => /group_member/.test(s))).toHaveLength(1);
  });

  test('two fields with different q on one record get their own rows', async () => {
    const r = await gql(`query ($id: UUID!) { group(id: $id) { ann: users(q: "name eq 'ann'") { id } bob: users(q: "name like 'b%'") { id } all: users(limit: 3) { id } } }`, { id: groups[0].id });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.group).toEqual({
      ann: ann(groups[0]).map((id) => ({ id })),
      bob: bob(groups[0]).map((id) => ({ id })),
      all: groups[0].members.slice(0, 3).map((id) => ({ id })),
    });
  });

  test('a column relation takes it too (a site\'s users)', async () => {
    const r = await gql(`query ($id: UUID!) { site(id: $id) { users(q: "name eq 'bob'", limit: 3) { id } } }`, { id: t.homeSiteId });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.site.users).toEqual([...bob(groups[0]), ...bob(groups[1])].slice(0, 3).map((id) => ({ id })));
  });

  // extensions.field is placed on root fields' refusals only (src/field-paths.ts), as for a relation's bad limit.
  test('a bad q is a BAD_REQUEST at the relation\'s path, worded as on root lists', async () => {
    const r = await gql(`query ($id: UUID!) { group(id: $id) { users(q: "nme eq 'ann'") { id } } }`, { id: groups[0].id });
    expect(r.body.data).toEqual({ group: null });
    expect(r.body.errors[0]).toMatchObject({ path: ['group', 'users'], extensions: { code: 'BAD_REQUEST' } });
    expect(r.body.errors[0].message).toMatch(/^Invalid q: unknown field 'nme'/);
    // The User fields as records spell them, as REST lists them.
    expect(r.body.errors[0].extensions.developerMessage).toMatch(/Known fields: id, name, userid, firstName, middleInitial, lastName, .*, passwordNeverExpires, enabled, lastIpAddress, isVaultAccess, href, dataType\.$/);
  });
});

describe("a relation's page gives each parent's total (usersPage)", () => {
  type Counted = { totalRecords: number; items: { id: string }[] };
  const pageOf = async (args: string): Promise<Counted[]> => {
    const query = `query ($a: UUID!, $b: UUID!) { a: group(id: $a) { usersPage${args} { totalRecords items { id } } } b: group(id: $b) { usersPage${args} { totalRecords items { id } } } }`;
    const r = await gql(query, { a: groups[0].id, b: groups[1].id });
    expect(r.body.errors).toBeUndefined();
    return [r.body.data.a.usersPage, r.body.data.b.usersPage];
  };
  const ids = (list: string[]) => list.map((id) => ({ id }));

  test('the page and how many match q over every page, for every parent in one statement', async () => {
    const query = `query ($a: UUID!, $b: UUID!) {
      a: group(id: $a) { usersPage(q: "name eq 'bob'", limit: 1) { totalRecords items { id } } }
      b: group(id: $b) { usersPage(q: "name eq 'bob'", limit: 1) { totalRecords items { id } } }
    }`;
    const { result, statements } = await h.countQueries(() => gql(query, { a: groups[0].id, b: groups[1].id }));
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data).toEqual({
      a: { usersPage: { totalRecords: 2, items: ids([groups[0].members[1]]) } },
      b: { usersPage: { totalRecords: 2, items: ids([groups[1].members[1]]) } },
    });
    expect(statements.filter((s) => /group_member/.test(s))).toHaveLength(1);
    // Without q, every member; paged as the list is.
    expect(await pageOf('(offset: 1)')).toEqual(groups.map((g) => ({ totalRecords: 4, items: ids(g.members.slice(1, 3)) })));
  });

  test('the total stands when the page is empty: limit 0, an offset past the end, nothing matching', async () => {
    expect(await pageOf('(limit: 0)')).toEqual(groups.map(() => ({ totalRecords: 4, items: [] })));
    expect(await pageOf('(offset: 4)')).toEqual(groups.map(() => ({ totalRecords: 4, items: [] })));
    expect(await pageOf(`(q: "name eq 'ann'", offset: 3)`)).toEqual(groups.map(() => ({ totalRecords: 2, items: [] })));
    expect(await pageOf(`(q: "name eq 'cy'")`)).toEqual(groups.map(() => ({ totalRecords: 0, items: [] })));
  });

  test('users beside usersPage with the same page and q: one statement for both, on groups and on a site; other arguments, their own', async () => {
    const both = (args: string) => `query ($a: UUID!, $b: UUID!, $site: UUID!) {
      a: group(id: $a) { users(limit: 1, offset: 1) { id } usersPage${args} { totalRecords items { id } } }
      b: group(id: $b) { users(limit: 1, offset: 1) { id } usersPage${args} { totalRecords items { id } } }
      site(id: $site) { users(q: "name eq 'bob'", limit: 3) { id } usersPage(q: "name eq 'bob'", limit: 3) { totalRecords items { id } } }
    }`;
    const vars = { a: groups[0].id, b: groups[1].id, site: t.homeSiteId };
    const relationStatements = (statements: string[]) => statements.filter((s) => /__rank/.test(s));
    const same = await h.countQueries(() => gql(both('(limit: 1, offset: 1)'), vars));
    expect(same.result.body.errors).toBeUndefined();
    const bobs = [groups[0].members[1], groups[0].members[3], groups[1].members[1]];
    expect(same.result.body.data).toEqual({
      ...Object.fromEntries(['a', 'b'].map((k, i) => [k, { users: ids([groups[i].members[1]]), usersPage: { totalRecords: 4, items: ids([groups[i].members[1]]) } }])),
      site: { users: ids(bobs), usersPage: { totalRecords: 4, items: ids(bobs) } },
    });
    // One for the groups' members, one for the site's users.
    expect(relationStatements(same.statements)).toHaveLength(2);
    const other = await h.countQueries(() => gql(both('(limit: 2)'), vars));
    expect(other.result.body.data.a).toEqual({ users: ids([groups[0].members[1]]), usersPage: { totalRecords: 4, items: ids(groups[0].members.slice(0, 2)) } });
    expect(relationStatements(other.statements)).toHaveLength(3);
  });

  test('a bad q is refused at its path', async () => {
    const r = await gql(`query ($id: UUID!) { group(id: $id) { usersPage(q: "name eq") { totalRecords } } }`, { id: groups[0].id });
    expect(r.body.data).toEqual({ group: null });
    expect(r.body.errors[0]).toMatchObject({ path: ['group', 'usersPage'], extensions: { code: 'BAD_REQUEST' } });
    expect(r.body.errors[0].message).toMatch(/^Invalid q: /);
  });
});

describe('the read budget (MAX_QUERY_ROWS)', () => {
  test("a page's total counts one row per parent", async () => {
    // 3 groups x (1 + (3 users x (1 + 3 groups) + 1 total)) = 42 > 30.
    const query = `{ groups(limit: 3) { items { id usersPage(limit: 3) { totalRecords items { id groups(limit: 3) { id } } } } } }`;
    const over = await gql(query);
    expect(over.status).toBe(400);
    expect(over.body.errors[0].message).toMatch(/may read 42 rows/);
    // Totals alone: 3 x (1 + (0 + 1)) = 6.
    const counts = await gql(`{ groups(limit: 3) { items { usersPage(limit: 0) { totalRecords } } } }`);
    expect(counts.status).toBe(200);
    expect(counts.body.errors).toBeUndefined();
  });

  test('nested lists multiply: over the budget is a 400 naming the count and the way out, and nothing is read', async () => {
    // 3 groups x (1 + 3 users x (1 + 3 groups)) = 39 rows > 30.
    const query = `{ groups(limit: 3) { items { id users(limit: 3) { id groups(limit: 3) { id } } } } }`;
    const { result, statements } = await h.countQueries(() => gql(query));
    expect(result.status).toBe(400);
    expect(result.body.data).toBeUndefined();
    expect(result.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(result.body.errors[0].message).toMatch(/may read 39 rows; one request may read at most 30\. Ask for smaller pages/);
    expect(statements.filter((s) => /user_group|app_user/.test(s))).toHaveLength(0);
  });

  test('limits given as variables count, and an operation within the budget runs', async () => {
    const query = `query ($n: Int) { groups(limit: $n) { items { id users(limit: $n) { id groups(limit: $n) { id } } } } }`;
    const within = await gql(query, { n: 2 }); // 2 x (1 + 2 x (1 + 2)) = 14
    expect(within.status).toBe(200);
    expect(within.body.errors).toBeUndefined();
    expect((await gql(query, { n: 3 })).status).toBe(400); // 39
    // The same text again with a small limit: a count that varies with the variables is never reused.
    expect((await gql(query, { n: 2 })).status).toBe(200);
    // Nor one that a directive's variable decides: 3 x (1 + 0) = 3, then 39.
    const skipping = `query ($skip: Boolean!) { groups(limit: 3) { items { id users(limit: 3) @skip(if: $skip) { id groups(limit: 3) { id } } } } }`;
    expect((await gql(skipping, { skip: true })).status).toBe(200);
    expect((await gql(skipping, { skip: false })).status).toBe(400);
    // A document whose count is fixed gives the same answer every time it is asked.
    const fixed = `{ groups(limit: 3) { items { id users(limit: 3) { id groups(limit: 3) { id } } } } }`;
    expect([(await gql(fixed)).status, (await gql(fixed)).status]).toEqual([400, 400]);
    // Unset limits count at DEFAULT_PAGE_SIZE: 2 x (1 + 2 x (1 + 2 x 1)) = 14.
    expect((await gql(`{ groups { items { users { groups { site { id } } } } } }`)).status).toBe(200);
  });
});
