/**
 * Generated from the route table: every tenant route is checked for 401 without a token, 403 with
 * no data for another tenant's token, 403 for an ordinary user where its root field needs more
 * (`@allow` in schema/), the data unchanged after every refused call, and, for every list route
 * that pages, a statement count that stays the same as the page grows. A new route row is covered
 * without new test code: its path and body name the records of test/rest/route-fixture.ts, and the
 * data checked is every row of every tenant table.
 */
import { getDirective } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import type { SofaRoute } from '../../src/rest/routes.js';
import type { AllowRule } from '../../src/permissions/access.js';
import { expectError } from './support.js';
import { A, B, call, create, fieldOf, h, label, pathOf, plain, setUpRouteFixture, tenantRoutes } from './route-fixture.js';
import { tenantRowChecksums } from './tenant-rows.js';

setUpRouteFixture('conformance');

const ruleOf = (schema: GraphQLSchema, r: SofaRoute) => getDirective(schema, fieldOf(schema, r), 'allow')?.[0] as AllowRule | undefined;

/** Tenants A's and B's rows, table by table, in every tenant table: anything a refused call changed shows here. */
const snapshot = () => tenantRowChecksums(h.services.reads, [A.t.tenantId, B.t.tenantId]);

/** Path parameters that name no record of a tenant: the same for every tenant, so B reads them too. */
const SHARED_PARAMS = new Set(['datatype', 'name', 'eventId']);

test('the route table has tenant routes to check', () => {
  expect(tenantRoutes.length).toBeGreaterThan(40);
});

test('no token: 401 on every tenant route, data unchanged', async () => {
  const before = await snapshot();
  for (const r of tenantRoutes) {
    const reply = await call(A.as(undefined), r);
    expect([label(r), reply.status]).toEqual([label(r), 401]);
    expectError(reply, 401);
  }
  expect(await snapshot()).toEqual(before);
});

test("another tenant's token on tenant A's paths: 403 and no data on every route, data unchanged", async () => {
  const before = await snapshot();
  const intruder = B.on(A.t);
  for (const r of tenantRoutes) {
    const reply = await call(intruder, r);
    expect([label(r), reply.status]).toEqual([label(r), 403]);
    expectError(reply, 403);
  }
  expect(await snapshot()).toEqual(before);
});

test("tenant A's ids on tenant B's own paths (as B's administrator): 404 on every route that names one, A's data unchanged", async () => {
  const before = await snapshot();
  const named = tenantRoutes.filter((r) => r.path.split('/').some((s) => s.startsWith(':') && !SHARED_PARAMS.has(s.slice(1))));
  for (const r of named) {
    const reply = await call(B, r);
    expect([label(r), reply.status]).toEqual([label(r), 404]);
    expectError(reply, 404);
  }
  expect(named.length).toBeGreaterThan(25);
  expect(await snapshot()).toEqual(before);
});

test('every write route declares who may call it (@allow), so none is open by omission', () => {
  const undeclared = tenantRoutes.filter((r) => r.method !== 'GET' && !ruleOf(h.app.schema, r)).map(label);
  expect(undeclared).toEqual([]);
});

test('an ordinary user: 403 wherever the root field needs more, the data unchanged after each; open reads answer 200', async () => {
  const asUser = A.as(plain.token);
  const refused: string[] = [];
  for (const r of tenantRoutes) {
    const rule = ruleOf(h.app.schema, r);
    const before = await snapshot();
    const reply = await call(asUser, r);
    // The sample user is not the caller, so self-or-admin and the own-profile policy refuse too.
    if (rule && rule.to !== 'TENANT') {
      refused.push(label(r));
      expect([label(r), reply.status]).toEqual([label(r), 403]);
      expectError(reply, 403);
      expect([label(r), await snapshot()]).toEqual([label(r), before]);
    } else {
      expect([label(r), reply.status]).toEqual([label(r), r.status ?? 200]);
    }
  }
  expect(refused.length).toBeGreaterThan(20);
});

describe('statements per list call do not grow with the page', () => {
  /** Every list read: each must honour limit (src/rest/check-routes.ts stops a row whose field cannot). */
  const pagedLists = () => tenantRoutes.filter((r) => r.method === 'GET' && r.shape === 'list');

  /** Three rows in the list `r`, so that limit=1 and limit=3 differ: any it lacks made through the POST route on its path. */
  async function seedThree(r: SofaRoute) {
    const path = pathOf(r);
    const rows = (await A.get(`${path}${path.includes('?') ? '&' : '?'}limit=3`)).body.data.length;
    const c = tenantRoutes.find((p) => p.method === 'POST' && p.path === r.path && p.body);
    if (rows < 3 && !c) throw new Error(`${label(r)} lists ${rows} rows and no POST route on its path makes more: seed three in makeFixture (test/rest/route-fixture.ts)`);
    for (let i = rows; i < 3; i++) await create(c!);
  }

  test('for every list route: limit=1 and limit=3 answer that many records and cost the same statements', async () => {
    const checked: string[] = [];
    for (const r of pagedLists()) {
      await seedThree(r);
      const counts: number[] = [];
      for (const limit of [1, 3]) {
        const path = pathOf(r);
        const { result, statements } = await h.countQueries(() => A.get(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}`));
        expect([label(r), result.status, result.body.data.length]).toEqual([label(r), 200, limit]);
        // A paged row counts the whole list; another carries no pagination.
        const counted = result.body.pagination && { limit: result.body.pagination.limit, atLeastThree: result.body.pagination.totalRecords >= 3 };
        expect([label(r), counted]).toEqual([label(r), r.paged ? { limit, atLeastThree: true } : undefined]);
        counts.push(statements.length);
      }
      expect([label(r), counts[1]]).toEqual([label(r), counts[0]]);
      checked.push(label(r));
    }
    expect(checked.length).toBeGreaterThanOrEqual(7);
  });
});
