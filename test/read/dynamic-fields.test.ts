/**
 * Field kinds beyond plain columns, through the real read path: dynamic fields (keys of a JSONB
 * column, as form values will be) and joined fields. `q` names them like declared fields, shows
 * and filters the same value, names travel as parameters, and the tenant condition holds on the
 * joined table too.
 */
import { randomUUID } from 'node:crypto';
import { Harness } from '../harness.js';
import { column, defineResource, joined } from '../../src/read/define.js';
import { queryFieldMap } from '../../src/read/fields.js';
import { selectRows, type Reader } from '../../src/read/rows.js';
import { compileQText } from '../../src/query/index.js';
import { AppError } from '../../src/errors.js';

let h: Harness;
const table = `dyn_${randomUUID().slice(0, 8)}`;
const owners = `own_${randomUUID().slice(0, 8)}`;
const ownerId = randomUUID();
const tenant = randomUUID();
const other = randomUUID();

const def = defineResource({
  dataType: 'Thing',
  typeName: 'Thing',
  table,
  href: '~/things/{id}',
  idField: 'id',
  label: 'Thing',
  fields: { id: column('id', 'guid'), name: column('name', 'string'), owner: joined('o', 'label', 'string', { nullAs: '' }) },
  joins: { o: { table: owners, on: 'o.id = t.owner_id' } },
  order: 't.name',
  dynamic: { column: 'vals', type: 'string', field: 'vals' },
  access: { see: 'tenant', change: 'admin' },
});

beforeAll(async () => {
  h = await Harness.start();
  // Keyed on tenant_id first, as every tenant-owned table is: test/db/tenant-keys.test.ts, running
  // at the same time on the same database, checks every table with a tenant_id column.
  await h.services.reads.query(`create table ${owners} (tenant_id uuid not null, id uuid not null, label text not null, primary key (tenant_id, id))`);
  await h.services.reads.query(`create table ${table} (tenant_id uuid not null, id uuid not null, name text not null, vals jsonb not null, owner_id uuid, primary key (tenant_id, id))`);
  // The same owner id in two tenants: only the row's own tenant's owner may join.
  await h.services.reads.query(`insert into ${owners} values ($1, $3, 'Olga'), ($2, $3, 'Other tenant')`, [tenant, other, ownerId]);
  const rows: [string, string, object, string | null][] = [
    [tenant, 'a', { colour: 'Red', "it's?": 'odd' }, ownerId],
    [tenant, 'b', { colour: 'blue' }, null],
    [tenant, 'c', {}, null],
    [other, 'd', { colour: 'red' }, ownerId],
  ];
  for (const [t, name, vals, owner] of rows) {
    await h.services.reads.query(`insert into ${table} values ($1, $2, $3, $4, $5)`, [t, randomUUID(), name, JSON.stringify(vals), owner]);
  }
});
afterAll(async () => {
  await h.services.reads.query(`drop table if exists ${table}, ${owners}`);
  await h.stop();
});

async function read(q: string): Promise<{ name: string; owner: string }[]> {
  const reader: Reader = { pool: h.services.reads, tenantId: tenant };
  const where = compileQText(q, queryFieldMap(def));
  return selectRows<{ name: string; owner: string }>(reader, def, { where: where ? [where] : [], order: def.order });
}
const names = async (q: string) => (await read(q)).map((r) => r.name);

test('a joined field shows the joined row of the same tenant, and what a NULL reads as', async () => {
  expect((await read('')).map((r) => [r.name, r.owner])).toEqual([
    ['a', 'Olga'],
    ['b', ''],
    ['c', ''],
  ]);
});

test.each<[string, string[]]>([
  ["owner eq 'olga'", ['a']],
  ["owner eq ''", ['b', 'c']],
  ["owner eq 'Other tenant'", []],
])('q=%s filters on the joined value as shown', async (q, expected) => {
  expect(await names(q)).toEqual(expected);
});

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
  expect(error!.developerMessage).toContain('Known fields: id, name, owner');
});
