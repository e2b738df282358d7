/**
 * Dynamic fields (keys of a JSONB column, as form values will be) through the real read path:
 * `q` names them like declared fields, their names travel as parameters, and the tenant
 * condition still holds.
 */
import { randomUUID } from 'node:crypto';
import { Harness } from '../harness.js';
import { column, defineResource } from '../../src/read/define.js';
import { queryFieldMap } from '../../src/read/fields.js';
import { selectRows, type Reader } from '../../src/read/rows.js';
import { compileQText } from '../../src/query/index.js';
import { AppError } from '../../src/errors.js';

let h: Harness;
const table = `dyn_${randomUUID().slice(0, 8)}`;
const tenant = randomUUID();
const other = randomUUID();

const def = defineResource({
  dataType: 'Thing',
  typeName: 'Thing',
  table,
  path: 'things',
  idField: 'id',
  label: 'Thing',
  fields: { id: column('id', 'guid'), name: column('name', 'string') },
  order: 't.name',
  dynamic: { column: 'vals', type: 'string' },
  access: { see: 'tenant', change: 'admin' },
});

beforeAll(async () => {
  h = await Harness.start();
  await h.services.reads.query(`create table ${table} (tenant_id uuid not null, id uuid primary key, name text not null, vals jsonb not null)`);
  const rows: [string, string, object][] = [
    [tenant, 'a', { colour: 'Red', "it's?": 'odd' }],
    [tenant, 'b', { colour: 'blue' }],
    [tenant, 'c', {}],
    [other, 'd', { colour: 'red' }],
  ];
  for (const [t, name, vals] of rows) {
    await h.services.reads.query(`insert into ${table} values ($1, $2, $3, $4)`, [t, randomUUID(), name, JSON.stringify(vals)]);
  }
});
afterAll(async () => {
  await h.services.reads.query(`drop table if exists ${table}`);
  await h.stop();
});

async function names(q: string): Promise<string[]> {
  const reader: Reader = { pool: h.services.reads, tenantId: tenant };
  const where = compileQText(q, queryFieldMap(def));
  const rows = await selectRows<{ name: string }>(reader, def, { where: where ? [where] : [], order: def.order });
  return rows.map((r) => r.name);
}

test.each<[string, string[]]>([
  ["colour eq 'red'", ['a']],
  ["COLOUR eq 'BLUE'", ['b']],
  ['colour is null', ['c']],
  ["colour like '%e%' and name ne 'b'", ['a']],
  ["[it's?] eq 'odd'", ['a']],
  ["nothing eq 'x'", []],
])('q=%s reads the JSONB keys (lower-case) of the tenant only', async (q, expected) => {
  expect(await names(q)).toEqual(expected);
});

test('a resource without dynamic fields still refuses unknown names, listing the declared ones', () => {
  const plain = { ...def, dynamic: undefined };
  let error: AppError | undefined;
  try {
    compileQText("colour eq 'red'", queryFieldMap(plain));
  } catch (e) {
    error = e as AppError;
  }
  expect(error).toBeInstanceOf(AppError);
  expect(error!.message).toContain("unknown field 'colour'");
  expect(error!.developerMessage).toContain('Known fields: id, name');
});
