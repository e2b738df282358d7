/**
 * REST's `expand=` reads a page of related records for every record of the answer: together they
 * may hold at most MAX_QUERY_ROWS records, else the request is a 400 that says how to ask for less
 * (`groups?limit=2000&expand=users` over big groups made answers of hundreds of megabytes).
 */
import { newId } from '../../src/ids.js';
import { Harness } from '../harness.js';
import { adminApi, expectError, q, type Api } from './support.js';

const BUDGET = 6;
let h: Harness;
let A: Api;

/** A group of `size` new members, named `name`, made in SQL. */
async function groupOf(name: string, size: number): Promise<void> {
  const conn = h.orm.em.getConnection();
  const members = Array.from({ length: size }, () => newId());
  await conn.execute(
    `insert into app_user (id, tenant_id, site_id, user_id, name, password_hash) select u, ?, ?, 'm-' || u::text, 'member', 'x' from unnest(array[?]::uuid[]) as u`,
    [A.t.tenantId, A.t.homeSiteId, members],
  );
  const id = newId();
  await conn.execute('insert into user_group (id, tenant_id, site_id, name) values (?, ?, ?, ?)', [id, A.t.tenantId, A.t.homeSiteId, name]);
  await conn.execute('insert into group_member (group_id, user_id, tenant_id) select ?, u, ? from unnest(array[?]::uuid[]) as u', [id, A.t.tenantId, members]);
}

beforeAll(async () => {
  h = await Harness.start({ maxQueryRows: BUDGET });
  A = await adminApi(h);
  await groupOf('b-1', 3);
  await groupOf('b-2', 3);
  await groupOf('c-1', 1);
});
afterAll(() => h.stop());

const expandUsers = (filter: string) => A.get(`/groups?${q(filter)}&expand=users`);

test('expanded records up to the budget are answered', async () => {
  const r = await expandUsers("name like 'b-%'");
  expect(r.status).toBe(200);
  expect(r.body.data.map((g: { users: unknown[] }) => g.users.length)).toEqual([3, 3]);
});

test('one record more is a 400 naming the budget and what to do, once', async () => {
  const r = await expandUsers("name like '%-1' or name eq 'b-2'");
  expectError(r, 400, /more than 6 records.*MAX_QUERY_ROWS.*limit.*fewer relations/);
  expect(r.body.meta.errors).toHaveLength(1);
});

test('the same records unexpanded, or fewer of them expanded, are answered', async () => {
  expect((await A.get(`/groups?${q("name like '%-%'")}`)).body.data).toHaveLength(3);
  const r = await A.get(`/groups?${q("name like '%-%'")}&expand=users&limit=2`);
  expect(r.status).toBe(200);
  expect(r.body.data.map((g: { users: unknown[] }) => g.users.length)).toEqual([3, 3]);
});

test("a site's members count as a group's do", async () => {
  expectError(await A.get('/sites?expand=users'), 400, /more than 6 records/);
});
