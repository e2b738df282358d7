/**
 * Definitions and entities against the migrated database: a forgotten migration, a column name
 * the table does not have, or an entity on a tenant-owned table without the tenant filter or key
 * fails here, naming the resource or entity and the table or column (the start cannot see the
 * database's columns; a read would answer a bare 500).
 */
import { randomUUID } from 'node:crypto';
import type { EntityMetadata } from '@mikro-orm/core';
import { column, defineResource, type ResourceDef } from '../../src/read/define.js';
import { Loaders } from '../../src/read/loaders.js';
import { resources } from '../../src/read/registry.js';
import { listedOf, selectRows, SessionCheck, type Reader } from '../../src/read/rows.js';
import { creatingTenant, TENANT_FILTER } from '../../src/db/tenant-filter.js';
import { raw } from '../../src/sql.js';
import { Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.stop());

/** A reader of a tenant with no rows, with a caller, so that row rules are part of the SQL too. */
const emptyReader = (): Reader => ({ pool: h.services.reads, tenantId: randomUUID(), session: new SessionCheck(randomUUID(), 0, randomUUID()) });

/**
 * Each definition's own read (its select list, joins, row rules, `live`, `listed` and `order`),
 * and each to-many relation's batched read, run where they find nothing: what PostgreSQL refuses, by resource.
 */
async function definitionProblems(defs: readonly ResourceDef[]): Promise<string[]> {
  const problems: string[] = [];
  const reader = emptyReader();
  const loaders = new Loaders(reader);
  const tryRead = async (what: string, read: () => Promise<unknown>) => {
    await read().catch((e: Error) => problems.push(`src/resources: ${what}: ${e.message}`));
  };
  for (const def of defs) {
    await tryRead(`${def.typeName} (table ${def.table})`, () => selectRows(reader, def, { where: [raw('false'), ...listedOf(def)], order: def.order }));
    for (const [name, rel] of Object.entries(def.relations ?? {})) {
      if (rel.kind !== 'one') await tryRead(`${def.typeName}.${name} (to ${rel.target})`, () => loaders.many(def, name, { limit: 1, offset: 0 }).load(randomUUID()));
    }
  }
  return problems;
}

/** Columns of every table and view, by name. */
async function columnsByTable(): Promise<Map<string, Set<string>>> {
  const { rows } = await h.services.reads.query(`select table_name, column_name from information_schema.columns where table_schema = 'public'`);
  const out = new Map<string, Set<string>>();
  for (const r of rows) out.set(r.table_name, (out.get(r.table_name) ?? new Set()).add(r.column_name));
  return out;
}

/** Each entity's table and columns, and on a tenant-owned table (tenant_id) the tenant filter and key (src/db/tenant-filter.ts). */
function entityProblems(metas: EntityMetadata[], columns: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  for (const meta of metas.filter((m) => !m.embeddable && !m.virtual)) {
    const at = `src/entities: ${meta.className}`;
    const cols = columns.get(meta.tableName);
    if (!cols) {
      problems.push(`${at}'s table ${meta.tableName} is in no migration`);
      continue;
    }
    for (const prop of Object.values(meta.properties)) {
      if (prop.persist === false || !prop.fieldNames) continue;
      for (const f of prop.fieldNames.filter((n) => !cols.has(n))) problems.push(`${at}.${prop.name}: table ${meta.tableName} has no column ${f}`);
    }
    if (!cols.has('tenant_id')) continue;
    if (!meta.filters[TENANT_FILTER]) problems.push(`${at}: table ${meta.tableName} is tenant-owned but the entity lacks the tenant filter (filters: tenantFilter)`);
    const tenantId = meta.properties.tenantId;
    if (!tenantId?.primary || tenantId.onCreate !== creatingTenant) problems.push(`${at}: table ${meta.tableName} is tenant-owned but tenantId is not the key's first part taken at flush (...tenantKey())`);
  }
  return problems;
}

const entities = () => Object.values(h.orm.getMetadata().getAll());

test("every definition's read and to-many relation runs on the migrated database", async () => {
  expect(resources.some((d) => Object.values(d.relations ?? {}).some((r) => r.kind === 'through'))).toBe(true);
  expect(await definitionProblems(resources)).toEqual([]);
});

test('every entity matches its table, and those on tenant-owned tables carry the tenant filter and key', async () => {
  expect(entities().map((m) => m.tableName)).toEqual(expect.arrayContaining(['site', 'folder_member', 'customer_database']));
  expect(entityProblems(entities(), await columnsByTable())).toEqual([]);
});

describe('the checks name what was forgotten', () => {
  const note = (over: Partial<ResourceDef> = {}): ResourceDef =>
    defineResource({
      dataType: 'Note', typeName: 'Note', table: 'site', href: '~/notes/{id}', idField: 'id', label: 'Note',
      fields: { id: column('id', 'guid'), name: column('name', 'string') }, order: 't.id', access: { see: 'tenant', change: 'admin' },
      ...over,
    });

  test('a table no migration made, a column the table lacks, an order or a listed rule by none, a to-many relation by a column its target lacks', async () => {
    expect(await definitionProblems([note()])).toEqual([]);
    expect(await definitionProblems([note({ table: 'note' })])).toEqual(['src/resources: Note (table note): relation "note" does not exist']);
    expect(await definitionProblems([note({ fields: { id: column('id', 'guid'), text: column('txt', 'string') } })])).toEqual(['src/resources: Note (table site): column t.txt does not exist']);
    expect(await definitionProblems([note({ order: 't.position' })])).toEqual(['src/resources: Note (table site): column t.position does not exist']);
    expect(await definitionProblems([note({ listed: 't.hidden = false' })])).toEqual(['src/resources: Note (table site): column t.hidden does not exist']);
    const many = note({ relations: { users: { kind: 'many', target: 'User', column: 'note_id' } } });
    expect(await definitionProblems([many])).toEqual(['src/resources: Note.users (to User): column t.note_id does not exist']);
  });

  test('an entity on a missing table or column, or on a tenant-owned table without the tenant filter or key', async () => {
    const columns = await columnsByTable();
    const site = entities().find((m) => m.tableName === 'site')!;
    const as = (over: Partial<EntityMetadata>): EntityMetadata[] => [Object.assign(Object.create(Object.getPrototypeOf(site)), site, over)];
    expect(entityProblems(as({}), columns)).toEqual([]);
    expect(entityProblems(as({ tableName: 'note' }), columns)).toEqual(["src/entities: Site's table note is in no migration"]);
    const renamed = { ...site.properties, name: { ...site.properties.name, fieldNames: ['title'] } };
    expect(entityProblems(as({ properties: renamed }), columns)).toEqual(['src/entities: Site.name: table site has no column title']);
    expect(entityProblems(as({ filters: {} }), columns)).toEqual(['src/entities: Site: table site is tenant-owned but the entity lacks the tenant filter (filters: tenantFilter)']);
    const unkeyed = { ...site.properties, tenantId: { ...site.properties.tenantId, primary: false } };
    expect(entityProblems(as({ properties: unkeyed }), columns)).toEqual(["src/entities: Site: table site is tenant-owned but tenantId is not the key's first part taken at flush (...tenantKey())"]);
  });
});
