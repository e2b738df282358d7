/**
 * The read path prepares a statement under a name the second time its text comes, so PostgreSQL
 * plans it once per connection; texts of the callers' making (`q`, `fields`) cannot make a
 * process hold more than its limit of names.
 */
import pg from 'pg';
import { run } from '../../src/read/rows.js';
import { statementName } from '../../src/read/statement-names.js';
import { raw, sql } from '../../src/sql.js';

test('a read run twice on one connection is prepared there once, under its name, and answers as before', async () => {
  const client = new pg.Client({ connectionString: process.env.QUIRE_TEST_DATABASE_URL });
  await client.connect();
  try {
    const tag = `statement_names_${Date.now()}`;
    const read = (v: string) => run<{ v: string }>({ pool: client, tenantId: '' }, sql`select ${v}::text as v, ${raw(`'${tag}'`)}::text as tag`);
    const prepared = async () =>
      (await client.query<{ name: string }>('select name from pg_prepared_statements where statement like $1', [`%${tag}%`])).rows.map((r) => r.name);

    expect(await read('one')).toEqual([{ v: 'one', tag }]);
    expect(await prepared()).toEqual([]);
    expect(await read('two')).toEqual([{ v: 'two', tag }]);
    const names = await prepared();
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^quire_read_\d+$/);
    expect(await read('three')).toEqual([{ v: 'three', tag }]);
    expect(await prepared()).toEqual(names);
  } finally {
    await client.end();
  }
});

test('a text is named the second time it comes, and keeps its name; another text gets another', () => {
  const text = `select 1 as named_twice_${Date.now()}`;
  expect(statementName(text)).toBeUndefined();
  const name = statementName(text);
  expect(name).toMatch(/^quire_read_\d+$/);
  expect(statementName(text)).toBe(name);
  const other = `${text} -- other`;
  statementName(other);
  expect(statementName(other)).toMatch(/^quire_read_\d+$/);
  expect(statementName(other)).not.toBe(name);
});

// Last: it fills the process's names.
test('once 256 texts are named, a new text runs unnamed however often it comes, and the named keep their names', () => {
  const kept = `select 1 as kept_${Date.now()}`;
  statementName(kept);
  const keptName = statementName(kept);
  for (let i = 0; i < 300; i++) {
    statementName(`select ${i} as filler`);
    statementName(`select ${i} as filler`);
  }
  const late = 'select 1 as came_late';
  for (let i = 0; i < 5; i++) expect(statementName(late)).toBeUndefined();
  expect(statementName(kept)).toBe(keptName);
});
