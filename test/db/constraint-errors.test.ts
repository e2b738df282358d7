/**
 * PostgreSQL's own refusals, raised for real on the test database, and the client errors they
 * become (src/db/constraint-errors.ts): never a 500, never the values in the message.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { constraintError } from '../../src/db/constraint-errors.js';

let pool: pg.Pool;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: process.env.QUIRE_TEST_DATABASE_URL, max: 3 });
});
afterAll(() => pool.end());

const failureOf = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a refusal'); }, (e: pg.DatabaseError) => e);

/** A tenant with one site and one user, written directly. */
async function tenant() {
  const ids = { customer: randomUUID(), tenant: randomUUID(), site: randomUUID(), user: randomUUID() };
  await pool.query(`insert into customer (id, alias, name) values ($1, $2, 'c')`, [ids.customer, `c${ids.customer.slice(0, 8)}`]);
  await pool.query(`insert into customer_database (id, customer_id, alias, name) values ($1, $2, 'd', 'd')`, [ids.tenant, ids.customer]);
  await pool.query(`insert into site (id, tenant_id, name) values ($1, $2, 'Home')`, [ids.site, ids.tenant]);
  await pool.query(`insert into app_user (id, tenant_id, site_id, user_id, name, password_hash) values ($1, $2, $3, 'someone', 'someone', 'secret-hash')`, [ids.user, ids.tenant, ids.site]);
  return ids;
}

test('a unique key taken is a 409 without the values', async () => {
  const t = await tenant();
  const e = await failureOf(pool.query(`insert into app_user (id, tenant_id, site_id, user_id, name, password_hash) values ($1, $2, $3, 'SomeOne', 'x', 'secret-hash')`, [randomUUID(), t.tenant, t.site]));
  expect(e.code).toBe('23505');
  const mapped = constraintError(e);
  expect({ status: mapped?.status, message: mapped?.message }).toEqual({ status: 409, message: expect.stringMatching(/^Such user already exists/) });
  expect(mapped?.message).not.toMatch(/someone|secret-hash/i);
});

test('a reference to a missing row is a 404 naming what is missing; a delete of a row still referenced is a 409', async () => {
  const t = await tenant();
  const missing = await failureOf(pool.query(`insert into user_supervisor (tenant_id, user_id, supervisor_id) values ($1, $2, $3)`, [t.tenant, t.user, randomUUID()]));
  expect(missing.code).toBe('23503');
  expect({ status: constraintError(missing)?.status, message: constraintError(missing)?.message }).toEqual({ status: 404, message: expect.stringMatching(/^The user referred to was not found/) });
  const used = await failureOf(pool.query(`delete from site where tenant_id = $1 and id = $2`, [t.tenant, t.site]));
  expect(used.code).toBe('23503');
  expect({ status: constraintError(used)?.status, message: constraintError(used)?.message }).toEqual({ status: 409, message: expect.stringMatching(/^This site is still referenced by a user/) });
  expect(constraintError(used)?.message).not.toContain(t.site);
});

test('a deadlock is a 409 asking to try again', async () => {
  const t = await tenant();
  const other = randomUUID();
  await pool.query(`insert into site (id, tenant_id, name) values ($1, $2, 'Other')`, [other, t.tenant]);
  const [a, b] = [await pool.connect(), await pool.connect()];
  try {
    await a.query('begin');
    await b.query('begin');
    await a.query(`update site set name = 'a' where tenant_id = $1 and id = $2`, [t.tenant, t.site]);
    await b.query(`update site set name = 'b' where tenant_id = $1 and id = $2`, [t.tenant, other]);
    // Each now waits for the other's row: PostgreSQL ends one of them with 40P01.
    const results = await Promise.allSettled([
      a.query(`update site set name = 'a' where tenant_id = $1 and id = $2`, [t.tenant, other]),
      b.query(`update site set name = 'b' where tenant_id = $1 and id = $2`, [t.tenant, t.site]),
    ]);
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as pg.DatabaseError);
    expect(failed.map((e) => e.code)).toEqual(['40P01']);
    expect({ status: constraintError(failed[0])?.status, message: constraintError(failed[0])?.message }).toEqual({ status: 409, message: expect.stringMatching(/try again/) });
  } finally {
    await a.query('rollback');
    await b.query('rollback');
    a.release();
    b.release();
  }
});

test('a serialization failure is a 409 asking to try again', async () => {
  const t = await tenant();
  const [a, b] = [await pool.connect(), await pool.connect()];
  try {
    await a.query('begin isolation level repeatable read');
    await b.query('begin isolation level repeatable read');
    await a.query('select 1 from site where tenant_id = $1', [t.tenant]);
    await b.query('select 1 from site where tenant_id = $1', [t.tenant]);
    await a.query(`update site set name = 'a' where tenant_id = $1 and id = $2`, [t.tenant, t.site]);
    const second = b.query(`update site set name = 'b' where tenant_id = $1 and id = $2`, [t.tenant, t.site]).then(() => undefined, (e: pg.DatabaseError) => e);
    await a.query('commit');
    const e = await second;
    expect(e?.code).toBe('40001');
    expect({ status: constraintError(e)?.status, message: constraintError(e)?.message }).toEqual({ status: 409, message: expect.stringMatching(/try again/) });
  } finally {
    await a.query('rollback');
    await b.query('rollback');
    a.release();
    b.release();
  }
});

test('anything else is not a constraint error', async () => {
  const e = await failureOf(pool.query('select * from no_such_table'));
  expect(constraintError(e)).toBeUndefined();
  expect(constraintError(new Error('plain'))).toBeUndefined();
});
