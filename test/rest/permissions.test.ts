/**
 * Declared permissions (`@allow` on root fields, src/permissions/access.ts): one check for REST and
 * /graphql, roles asked of the database per request, and the bulk access check.
 */
import { buildContext } from '../../src/context.js';
import { accessibleIds } from '../../src/permissions/row-checks.js';
import { resource } from '../../src/read/registry.js';
import { BASE } from '../harness.js';
import { createSite, createUser, expectError, ordinaryUser, twoTenants, UNKNOWN_ID, type TwoTenants } from './support.js';

let s: TwoTenants;
beforeAll(async () => {
  s = await twoTenants();
});
afterAll(() => s.h.stop());

async function adminGroupId(): Promise<string> {
  const r = await s.A.get(`/groups?q=${encodeURIComponent("name eq 'Administrators'")}`);
  return r.body.data[0].id;
}

test('a user promoted to administrator is one on the next request, with the same token; demoted, no longer', async () => {
  const u = await ordinaryUser(s.A);
  const asUser = s.A.as(u.token);
  expectError(await asUser.post('/sites', { name: 'by a user', description: 'x' }), 403, 'Only a tenant administrator');

  const admins = await adminGroupId();
  expect((await s.A.put(`/groups/${admins}/users/${u.id}`)).status).toBe(201);
  expect((await asUser.post('/sites', { name: `promoted-${u.userid}`, description: 'x' })).status).toBe(200);

  expect((await s.A.del(`/groups/${admins}/users/${u.id}`)).status).toBe(200);
  expectError(await asUser.post('/sites', { name: 'after demotion', description: 'x' }), 403);
});

test('/graphql applies the same declared rule', async () => {
  const gql = async (token: string) => {
    const res = await s.h.app.fetch(
      new Request(`${BASE}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: 'mutation { createSite(input: {name: "gql-site", description: "d"}) { id } }' }),
      }),
    );
    return res.json();
  };
  const refused = await gql(s.plain.token);
  expect(refused.errors[0].extensions.code).toBe('FORBIDDEN');
  expect(refused.data).toEqual({ createSite: null });
  expect((await gql(s.A.token!)).data.createSite.id).toBeDefined();
});

test('self-or-admin: a user may act on their own account (also as the all-zero GUID), not on another', async () => {
  const other = await createUser(s.A);
  const asUser = s.A.as(s.plain.token);
  expect((await asUser.get(`/users/${s.plain.id}/webtoken`)).status).toBe(200);
  expect((await asUser.get('/users/00000000-0000-0000-0000-000000000000/webtoken')).status).toBe(200);
  expectError(await asUser.get(`/users/${other.id}/webtoken`), 403);
  expect((await s.A.get(`/users/${other.id}/webtoken`)).status).toBe(200);
});

describe('accessibleIds: which of these ids may the caller see or change', () => {
  const contextOf = (token: string) =>
    buildContext(s.h.services, new Request(`${BASE}/graphql`, { headers: { authorization: `Bearer ${token}` } }), 'test', undefined);

  test('answers a page of ids in one statement: the tenant may see, only administrators change', async () => {
    const sites = await Promise.all([createSite(s.A), createSite(s.A), createSite(s.A)]);
    const foreign = await createSite(s.B);
    const ids = [...sites.map((x) => x.id), foreign.id, UNKNOWN_ID];
    const admin = await contextOf(s.A.token!);
    const plain = await contextOf(s.plain.token);
    const site = resource('Site');

    const counted = await s.h.countQueries(() => accessibleIds(admin, site, ids, 'change'));
    expect(counted.statements).toHaveLength(1);
    expect([...counted.result].sort()).toEqual(sites.map((x) => x.id).sort());

    expect([...(await accessibleIds(plain, site, ids, 'see'))].sort()).toEqual(sites.map((x) => x.id).sort());
    expect(await accessibleIds(plain, site, ids, 'change')).toEqual(new Set());
  });
});
