/**
 * Database errors reach the log with their code, constraint and table, never with the SQL or the
 * values: a failed insert must not write a password hash (or anything else of the row) to the log.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { newId } from '../../src/ids.js';
import { Harness, type TestTenant } from '../harness.js';

let h: Harness;
let t: TestTenant;
beforeAll(async () => {
  h = await Harness.start();
  t = await h.tenant();
});
afterAll(() => h.stop());

/** A logger whose lines are kept in `lines`. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger('info', stream), lines };
}

/** A row that collides with the tenant's admin (same userid), carrying a recognisable hash. */
function duplicateAdmin() {
  const hash = `$argon2id$v=19$m=19456,t=2,p=1$${randomUUID()}`;
  const values = [newId(), t.tenantId, t.homeSiteId, t.adminUserId.toUpperCase(), `Name ${randomUUID()}`, hash];
  return { hash, values };
}

const INSERT = 'insert into app_user (id, tenant_id, site_id, user_id, name, password_hash) values';

async function failure(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (e) {
    return e as Error;
  }
  throw new Error('the insert did not fail');
}

function expectSafe(lines: string[], values: unknown[]) {
  expect(lines).toHaveLength(1);
  const text = lines[0];
  for (const v of values) expect(text).not.toContain(String(v));
  expect(text).not.toMatch(/insert into/i);
  const { err } = JSON.parse(text);
  expect(err).toMatchObject({ code: '23505', constraint: 'app_user_user_id_uq', table: 'app_user' });
  expect(err.message).toContain('duplicate key value violates unique constraint "app_user_user_id_uq"');
  expect(err.detail).toBeUndefined();
}

test('a failed insert through the ORM (knex puts the values in its message) logs no values', async () => {
  const { hash, values } = duplicateAdmin();
  const err = await failure(() => h.orm.em.fork().getConnection().execute(`${INSERT} (?, ?, ?, ?, ?, ?)`, values));
  expect(err.message).toContain(hash); // what would have been logged
  const { log, lines } = capture();
  log.error({ err, requestId: 'r1' }, 'unexpected error');
  expectSafe(lines, values);
});

test('a failed insert on the read pool (PostgreSQL quotes the row in its detail) logs no values', async () => {
  const { values } = duplicateAdmin();
  const err = await failure(() => h.services.reads.query(`${INSERT} ($1, $2, $3, $4, $5, $6)`, values));
  expect((err as Error & { detail: string }).detail).toContain(t.tenantId);
  const { log, lines } = capture();
  log.error({ err }, 'unexpected error');
  expectSafe(lines, [t.tenantId, t.adminUserId, values[0]]);
});

test('other errors keep their message and stack', () => {
  const { log, lines } = capture();
  log.error({ err: new Error('plain failure') }, 'x');
  const { err } = JSON.parse(lines[0]);
  expect(err.message).toBe('plain failure');
  expect(err.stack).toContain('plain failure');
});
