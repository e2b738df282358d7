/**
 * The read pool prepares a statement under a name the second time its text comes, so PostgreSQL
 * plans it once per connection; texts of the callers' making (`q`, `fields`) cannot make a
 * process hold more than DB_NAMED_STATEMENTS names, and a mutation's connection holds none.
 */
import pg from 'pg';
import type { ReadPool } from '../../src/read/read-pool.js';
import { run, type Reader } from '../../src/read/rows.js';
import { StatementNames } from '../../src/read/statement-names.js';
import { raw, sql } from '../../src/sql.js';

const url = process.env.QUIRE_TEST_DATABASE_URL;

/** Reads of one text (`tag` in it) on `reader`, and the names its connection prepared that text under. */
function probe(reader: Reader, connection: pg.ClientBase | pg.Pool) {
  const tag = `statement_names_${Math.random().toString(36).slice(2)}`;
  return {
    read: (v: string) => run<{ v: string; tag: string }>(reader, sql`select ${v}::text as v, ${raw(`'${tag}'`)}::text as tag`),
    prepared: async () =>
      (await connection.query<{ name: string }>('select name from pg_prepared_statements where statement like $1', [`%${tag}%`])).rows.map((r) => r.name),
    tag,
  };
}

test('on the read pool, a read run twice is prepared once on its connection, under its name, and answers as before', async () => {
  // One connection, so that pg_prepared_statements is the reads' own.
  const pool = Object.assign(new pg.Pool({ connectionString: url, max: 1 }), { names: new StatementNames(10) }) as ReadPool;
  try {
    const { read, prepared, tag } = probe({ pool, tenantId: '' }, pool);
    expect(await read('one')).toEqual([{ v: 'one', tag }]);
    expect(await prepared()).toEqual([]);
    expect(await read('two')).toEqual([{ v: 'two', tag }]);
    const names = await prepared();
    expect(names).toEqual([expect.stringMatching(/^quire_read_\d+$/)]);
    expect(await read('three')).toEqual([{ v: 'three', tag }]);
    expect(await prepared()).toEqual(names);
  } finally {
    await pool.end();
  }
});

test("a mutation's connection (not the read pool) prepares nothing, however often a text comes", async () => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { read, prepared, tag } = probe({ pool: client, tenantId: '' }, client);
    for (const v of ['one', 'two', 'three']) expect(await read(v)).toEqual([{ v, tag }]);
    expect(await prepared()).toEqual([]);
  } finally {
    await client.end();
  }
});

test('a text is named the second time it comes, and keeps its name; another text gets another', () => {
  const names = new StatementNames(10);
  expect(names.nameFor('select 1')).toBeUndefined();
  const name = names.nameFor('select 1');
  expect(name).toMatch(/^quire_read_\d+$/);
  expect(names.nameFor('select 1')).toBe(name);
  names.nameFor('select 2');
  expect(names.nameFor('select 2')).toMatch(/^quire_read_\d+$/);
  expect(names.nameFor('select 2')).not.toBe(name);
});

test('once its limit of texts is named, a new text runs unnamed however often it comes, and the named keep their names; 0 names none', () => {
  const names = new StatementNames(3);
  const kept = ['select 1', 'select 1'].map((t) => names.nameFor(t))[1];
  for (const t of ['select 2', 'select 3']) [1, 2].forEach(() => names.nameFor(t));
  for (let i = 0; i < 5; i++) expect(names.nameFor('select 4')).toBeUndefined();
  expect(names.nameFor('select 1')).toBe(kept);

  const none = new StatementNames(0);
  for (let i = 0; i < 3; i++) expect(none.nameFor('select 1')).toBeUndefined();
});
