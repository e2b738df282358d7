/**
 * Runs compiled filters against a real PostgreSQL: the SQL must be valid, and mean what the language says.
 * Needs a server at QUIRE_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import pg from 'pg';
import { compileQText, queryFields } from '../../src/query/index.js';
import { join, MAX_PARAMETERS, sql, statement } from '../../src/sql.js';

const url = process.env.QUIRE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const fields = queryFields({
  id: { sql: '"t"."id"', type: 'guid' },
  name: { sql: '"t"."name"', type: 'string' },
  description: { sql: '"t"."description"', type: 'string' },
  scope: { sql: '"t"."scope"', type: 'integer' },
  enabled: { sql: '"t"."enabled"', type: 'boolean' },
  createDate: { sql: '"t"."create_date"', type: 'datetime' },
});

const guid = (k: number) => `0000000${k}-aaaa-4bbb-8ccc-${String(k).padStart(12, '0')}`;

// k, name, description, scope, enabled, create_date
const ROWS: Array<[number, string | null, string | null, number | null, boolean | null, string | null]> = [
  [1, 'Home', 'Main page', 1, true, '2024-01-15 10:00:00'],
  [2, 'home office', null, 2, false, '2024-02-01 00:00:00'],
  [3, "O'Brien", 'C:\\dir\\', 3, true, '2024-04-28 00:00:00'],
  [4, null, 'x', null, null, null],
  [5, 'a_b%', 'A_B%', 2147483647, false, '2023-12-31 23:59:59'],
];
const ALL = [1, 2, 3, 4, 5];

let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`create temp table q_items (
    k int primary key, id uuid not null, name text, description text, scope int, enabled boolean, create_date timestamp)`);
  for (const [k, name, description, scope, enabled, createDate] of ROWS) {
    await client.query('insert into q_items values ($1, $2, $3, $4, $5, $6, $7)', [k, guid(k), name, description, scope, enabled, createDate]);
  }
});

afterAll(async () => {
  await client?.end();
});

async function rowsMatching(q: string): Promise<number[]> {
  const compiled = compileQText(q, fields);
  if (!compiled) throw new Error('no filter');
  const { text, values } = statement(sql`select k from q_items as "t" where ${compiled} order by k`);
  const result = await client.query<{ k: number }>(text, values);
  return result.rows.map((r) => r.k);
}

describe('compiled q against PostgreSQL', () => {
  it.each<[string, number[]]>([
    // strings: case-insensitive, NULLs never equal anything
    ["[name] eq 'HOME'", [1]],
    ["name ne 'home'", [2, 3, 5]],
    ["name in ('home', 'O''BRIEN')", [1, 3]],
    ["name not in ('home')", [2, 3, 5]],
    ["name between 'a' and 'i'", [1, 2, 5]],
    ['name eq description', [5]],
    // like: % and _ are wildcards, a backslash is just a character
    ["name like 'home%'", [1, 2]],
    ["name like '_OME'", [1]],
    ["name like 'a_b%'", [5]],
    ["name not like '%o%'", [5]],
    ["description like 'C:\\dir\\'", [3]],
    ["description like '%\\'", [3]],
    ["createDate like '2024-01%'", [1]],
    // Dates as text are as the API writes them: a T between date and time, milliseconds.
    ["createDate like '2024-01-15T10:00:00.000'", [1]],
    ["createDate like '%T00:00%'", [2, 3]],
    ["substring(createDate, 11, 1) eq 'T'", [1, 2, 3, 5]],
    [`id like '00000002%'`, [2]],
    // integers: strings coerced, no int4 overflow
    ['scope eq 1', [1]],
    ["scope eq '2147483647'", [5]],
    ['scope gt 3000000000', []],
    ['scope ge -3000000000', [1, 2, 3, 5]],
    ['scope not between 2 and 3', [1, 5]],
    // null handling
    ['scope in (1, 3, null)', [1, 3, 4]],
    ['scope not in (1, null)', [2, 3, 5]],
    ['name eq null', [4]],
    ['name is not null', [1, 2, 3, 5]],
    ["not (name eq 'home' or description = 'x')", [3, 5]],
    // booleans
    ["enabled eq 'TRUE'", [1, 3]],
    ['enabled eq 0', [2, 5]],
    ['enabled is null', [4]],
    // guids: case-insensitive
    [`id eq '${guid(2).toUpperCase()}'`, [2]],
    [`id in ('${guid(1)}', '${guid(3)}')`, [1, 3]],
    ['id eq name', []],
    // date-times
    ["createDate between '2024-01-01' and '2024-02-01'", [1, 2]],
    ["createDate le '2024-01-15T10:00:00.1234567'", [1, 5]],
    ["createDate gt dateadd(day,-7,'2024-05-01')", [3]],
    ["dateadd(month,1,[createDate]) lt '2024-03-01'", [1, 5]],
    ["dateadd(year, -1, createDate) lt '2023-01-01'", [5]],
    ["dateadd(second, 1, createDate) eq '2024-01-01'", [5]],
    ["dateadd(year, 4000, createDate) gt '2024-01-01'", [1, 2, 3, 5]],
    ["dateadd(year, -4000, '0001-01-01') lt createDate", [1, 2, 3, 5]],
    // functions
    ["substring(name,1,3) eq 'Hom'", [1, 2]],
    ["substring(name, 0, 3) eq 'ho'", [1, 2]],
    ["substring(scope, 1, 2) eq '21'", [5]],
    ["substring(id, 1, 8) eq '00000004'", [4]],
    // combinations
    ["name like 'x' or scope eq 1", [1]],
    ["name like 'home%' and enabled eq 'true'", [1]],
    ["(scope eq 1 or scope eq 2) and not (enabled eq true)", [2]],
    ['scope eq 1 or scope eq 3 and enabled eq true', [1, 3]],
    // no field at all
    ['1 eq 1', ALL],
    ['1 eq 2', []],
    ["1 eq '1.0'", ALL],
    ["'a' eq 'A'", ALL],
    ["'abc' like 'A%'", ALL],
    ['2 between 1 and 3', ALL],
    ["true ne 'false'", ALL],
    ['null eq null', ALL],
    ["'x' is null", []],
  ])('%s', async (q, expected) => {
    expect(await rowsMatching(q)).toEqual(expected);
  });

  it('sends values only as parameters', async () => {
    const q = "name eq 'x''; drop table q_items; --' or description like '$1?'";
    const compiled = compileQText(q, fields)!;
    expect(compiled.strings.join('')).not.toContain('drop');
    expect(await rowsMatching(q)).toEqual([]);
    expect(await rowsMatching('scope ge 0')).toEqual([1, 2, 3, 5]);
  });
});

describe('statement', () => {
  it("numbers values, never question marks in the text (JSONB's ? operator stays an operator)", async () => {
    const key = 'k';
    const s = statement(sql`select ${'{"k":1}'}::jsonb ? ${key} as has, '?' as q, ${2}::int as n`);
    expect(s).toEqual({ text: `select $1::jsonb ? $2 as has, '?' as q, $3::int as n`, values: ['{"k":1}', 'k', 2] });
    expect((await client.query(s.text, s.values)).rows).toEqual([{ has: true, q: '?', n: 2 }]);
  });

  it(`refuses more than ${MAX_PARAMETERS} parameters, which PostgreSQL cannot take in one statement, as our error`, async () => {
    const listOf = (n: number) => sql`select cardinality(array[${join(Array.from({ length: n }, (_, i) => sql`${i}::int`), ', ')}]) as n`;
    const fits = statement(listOf(MAX_PARAMETERS));
    expect((await client.query(fits.text, fits.values)).rows).toEqual([{ n: MAX_PARAMETERS }]);
    const tooMany = listOf(MAX_PARAMETERS + 1);
    expect(() => statement(tooMany)).toThrow(`A statement of ${MAX_PARAMETERS + 1} parameters: PostgreSQL takes at most ${MAX_PARAMETERS} in one`);
  });
});
