/**
 * A mutation's transaction that PostgreSQL ends for another (a deadlock, a serialization failure)
 * runs again from the start (src/db/transaction.ts), on the real test database: two changes that
 * cross both go through, where the loser used to get a 409.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type pg from 'pg';
import { pino } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm } from '../../src/db/orm.js';
import { inTransaction, TRANSACTION_ATTEMPTS } from '../../src/db/transaction.js';
import { createReadPool, type ReadPool } from '../../src/read/read-pool.js';
import { Loaders } from '../../src/read/loaders.js';
import type { Reader } from '../../src/read/rows.js';
import { constraintError } from '../../src/db/constraint-errors.js';

let orm: MikroORM;
/** What the transactions logged. */
const lines: Record<string, unknown>[] = [];
const log = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
let reads: ReadPool;
let tenantId: string;
const sites = [randomUUID(), randomUUID()];

beforeAll(async () => {
  orm = await initOrm(process.env.QUIRE_TEST_DATABASE_URL!, 4);
  reads = createReadPool(orm, pino({ level: 'silent' }), 0);
  const customer = randomUUID();
  tenantId = randomUUID();
  const db = orm.em.getConnection();
  await db.execute(`insert into customer (id, alias, name) values (?, ?, 'c')`, [customer, `c${customer.slice(0, 8)}`]);
  await db.execute(`insert into customer_database (id, customer_id, alias, name) values (?, ?, 'd', 'd')`, [tenantId, customer]);
  for (const [i, id] of sites.entries()) await db.execute(`insert into site (id, tenant_id, name) values (?, ?, ?)`, [id, tenantId, `site ${i}`]);
});
afterAll(async () => {
  await reads.end();
  await orm.close(true);
});

/** A request's parts that a transaction replaces, as src/context.ts makes them. */
function requestContext() {
  const reader: Reader = { pool: reads, tenantId };
  return { services: { log }, requestId: randomUUID(), em: () => orm.em.fork({ useContext: false }), reader, loaders: new Loaders(reader) };
}

/** The transaction's connection, which its reader reads on. */
const connectionOf = (tx: { reader: Reader }) => tx.reader.pool as pg.ClientBase;
const setName = (client: pg.ClientBase, site: string, name: string) => client.query('update site set name = $1 where tenant_id = $2 and id = $3', [name, tenantId, site]);
const names = async () => (await reads.query<{ name: string }>('select name from site where tenant_id = $1 order by id = $2 desc', [tenantId, sites[0]])).rows.map((r) => r.name);
const raising = (code: string) => `do $$ begin raise exception 'ended for another' using errcode = '${code}'; end $$`;

test('two changes that lock two rows in opposite orders both go through: the deadlock loser runs again after the winner', async () => {
  // Each holds its first row before either asks for its second: PostgreSQL must end one of them.
  let arrived = 0;
  let release!: () => void;
  const bothHoldOne = new Promise<void>((r) => (release = r));
  const attempts = { forward: 0, backward: 0 };
  const cross = (label: 'forward' | 'backward', [first, second]: string[]) =>
    inTransaction(requestContext(), async (tx) => {
      const client = connectionOf(tx);
      attempts[label]++;
      await setName(client, first, label);
      if (attempts[label] === 1 && ++arrived === 2) release();
      if (attempts[label] === 1) await bothHoldOne;
      await setName(client, second, label);
      return label;
    });

  lines.length = 0;
  const results = await Promise.allSettled([cross('forward', sites), cross('backward', [...sites].reverse())]);

  expect(results).toEqual([{ status: 'fulfilled', value: 'forward' }, { status: 'fulfilled', value: 'backward' }]);
  expect(Object.values(attempts).sort()).toEqual([1, 2]);
  // The one that ran again committed last, both of its rows: nothing of its first attempt was kept apart from them.
  const loser = attempts.forward === 2 ? 'forward' : 'backward';
  expect(await names()).toEqual([loser, loser]);
  // Said once, as a warning an operator can count.
  expect(lines).toEqual([expect.objectContaining({ level: 40, code: '40P01', attempt: 1, requestId: expect.any(String), msg: 'transaction ended by the database for another; running it again' })]);
});

test(`a transaction ended every time is given up after ${TRANSACTION_ATTEMPTS} attempts, its error the 409 asking to try again; nothing it wrote is kept`, async () => {
  let attempts = 0;
  const failure = await inTransaction(requestContext(), async (tx) => {
    attempts++;
    await setName(connectionOf(tx), sites[0], `attempt ${attempts}`);
    // Through the ORM's connection this time: its wrapped error is recognised too.
    await tx.em().getConnection().execute(raising('40001'));
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(attempts).toBe(TRANSACTION_ATTEMPTS);
  expect(constraintError(failure)).toMatchObject({ status: 409, message: expect.stringMatching(/try again/) });
  expect((await names())[0]).not.toMatch(/^attempt/);
});

test('any other refusal of the database runs once', async () => {
  let attempts = 0;
  const failure = await inTransaction(requestContext(), async (tx) => {
    attempts++;
    await connectionOf(tx).query(raising('23505'));
  }).then(
    () => undefined,
    (e: { code?: string }) => e,
  );
  expect(failure?.code).toBe('23505');
  expect(attempts).toBe(1);
});

test('inside another transaction (a savepoint) it does not run again itself: the outer transaction does, whole', async () => {
  const attempts = { outer: 0, inner: 0 };
  const done = await inTransaction(requestContext(), async (outer) => {
    attempts.outer++;
    await setName(connectionOf(outer), sites[1], `outer ${attempts.outer}`);
    return inTransaction(outer, async (inner) => {
      attempts.inner++;
      if (attempts.outer === 1) await connectionOf(inner).query(raising('40P01'));
      return 'done';
    });
  });
  expect(done).toBe('done');
  expect(attempts).toEqual({ outer: 2, inner: 2 });
  expect((await names())[1]).toBe('outer 2');
});
