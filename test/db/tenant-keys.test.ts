/**
 * Tenant integrity held by the database itself (migrations/Migration20261125000000_tenant_keys.ts):
 * keys start with tenant_id, a row of one tenant cannot point at another tenant's row whoever
 * writes the SQL, a tenant's rows go with it, and the ORM's writes by id carry tenant_id so they use those keys.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { TENANT_FILTER } from '../../src/db/tenant-filter.js';
import { deleteRows, insertRows, updateRows } from '../../src/db/tenant-writes.js';
import { Site } from '../../src/entities/site.js';
import { resource, resources } from '../../src/read/registry.js';
import { sql } from '../../src/sql.js';
import { Harness } from '../harness.js';
import { adminApi, createUser, type Api } from '../rest/support.js';

let h: Harness;
let A: Api;
let B: Api;
const adminGroup = new Map<string, string>();

const sqlOf = (text: string, values: unknown[] = []) => h.services.reads.query(text, values);

beforeAll(async () => {
  h = await Harness.start();
  A = await adminApi(h);
  B = await adminApi(h);
  for (const api of [A, B]) {
    const { rows } = await sqlOf(`select id from user_group where tenant_id = $1 and name = 'Administrators'`, [api.t.tenantId]);
    adminGroup.set(api.t.tenantId, rows[0].id);
  }
});
afterAll(() => h.stop());

/** The tenant-owned tables: every table with a tenant_id column (views own no keys: they read tables that do). */
async function tenantTables(): Promise<string[]> {
  const { rows } = await sqlOf(
    `select c.table_name from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
      where c.column_name = 'tenant_id' and c.table_schema = 'public' and t.table_type = 'BASE TABLE' order by 1`,
  );
  return rows.map((r) => r.table_name);
}

test('every tenant-owned table keys on tenant_id first: primary key, unique indexes, and foreign keys to tenant rows', async () => {
  const tables = await tenantTables();
  expect(tables).toEqual(expect.arrayContaining(['site', 'user_group', 'app_user', 'group_member', 'user_supervisor', 'api_client', 'refresh_token', 'web_token']));
  // The first key column of every primary key and unique index of those tables.
  const { rows: keys } = await sqlOf(
    `select c.relname as "table", i.relname as "index", a.attname as first
       from pg_index x join pg_class c on c.oid = x.indrelid join pg_class i on i.oid = x.indexrelid
       left join pg_attribute a on a.attrelid = c.oid and a.attnum = x.indkey[0]
      where (x.indisunique or x.indisprimary) and c.relname = any($1)`,
    [tables],
  );
  expect(keys.length).toBeGreaterThanOrEqual(tables.length);
  for (const k of keys) expect({ index: k.index, first: k.first }).toEqual({ index: k.index, first: 'tenant_id' });
  for (const t of tables) expect(keys.some((k) => k.table === t && k.index === `${t}_pkey`)).toBe(true);
  // Every foreign key between tenant-owned tables is composite and starts with tenant_id.
  const fks = await tenantForeignKeys(tables);
  for (const fk of fks) expect({ fk: fk.name, columns: fk.columns }).toEqual({ fk: fk.name, columns: ['tenant_id', expect.any(String)] });
  // Every id column of a tenant table is such a key, unless UNKEYED says why not.
  const held = new Map(fks.map((fk) => [`${fk.table}.${fk.columns[1]}`, fk.references]));
  const { rows: idColumns } = await sqlOf(
    `select table_name || '.' || column_name as at from information_schema.columns
      where table_schema = 'public' and table_name = any($1) and column_name like '%\\_id' and column_name <> 'tenant_id' and data_type = 'uuid' order by 1`,
    [tables],
  );
  const ids = idColumns.map((c) => c.at as string);
  expect(ids.filter((at) => !held.has(at) && !AUDIT.has(at.split('.')[1]) && !(at in UNKEYED))).toEqual([]);
  expect(Object.keys(UNKEYED).filter((at) => !ids.includes(at))).toEqual([]);
  // The definitions' to-many relations and links over tables (not views) are such keys, to the right table.
  const relations = resources.flatMap((def) => Object.entries(def.relations ?? {}).flatMap(([name, rel]) => {
    const at = `${def.typeName}.${name}`;
    if (rel.kind === 'many') return [[at, resource(rel.target).table, rel.column, def.table]];
    if (rel.kind === 'through') return [[at, rel.link.table, rel.link.from, def.table], [at, rel.link.table, rel.link.to, resource(rel.target).table]];
    return [];
  })).filter(([, table]) => tables.includes(table));
  expect(relations.length).toBeGreaterThan(0);
  // A definition over a view (to) is checked for a key only.
  const found = relations.map(([at, table, column, to]) => [at, `${table}.${column}`, tables.includes(to) ? held.get(`${table}.${column}`) : held.has(`${table}.${column}`) && 'a key']);
  expect(found).toEqual(relations.map(([at, table, column, to]) => [at, `${table}.${column}`, tables.includes(to) ? to : 'a key']));
});

test("every tenant-owned table's rows go with their tenant: on delete cascade to customer_database, or to a table whose rows do", async () => {
  const tables = await tenantTables();
  const { rows: cascades } = await sqlOf(
    `select conrelid::regclass::text as table, confrelid::regclass::text as references from pg_constraint
      where contype = 'f' and confdeltype = 'c' and conrelid::regclass::text = any($1)`,
    [tables],
  );
  const going = new Set(['customer_database']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of cascades) {
      if (going.has(c.references) && !going.has(c.table)) {
        going.add(c.table);
        grew = true;
      }
    }
  }
  const staying = tables.filter((t) => !going.has(t) && !(t in OUTLIVES_TENANT));
  expect(staying.map((t) => `${t}: no foreign key on delete cascade to customer_database (or to a table whose rows go with it)`)).toEqual([]);
  expect(Object.keys(OUTLIVES_TENANT).filter((t) => going.has(t))).toEqual([]);
});

/** Tenant-owned tables whose rows stay when their tenant goes, and why. */
const OUTLIVES_TENANT: Record<string, string> = {
  file_removal: 'the queue of stored bytes to delete outlives the rows, and the tenant, it names (the purge empties it)',
};

/** Who acted on a row, as it was: no key, so that deleting a user leaves what it did. */
const AUDIT = new Set(['created_by_id', 'modified_by_id', 'started_by_id']);
/** Id columns of tenant tables that name no row by a key, and why. */
const UNKEYED: Record<string, string> = {
  'alert_subscription.object_id': 'the folder or document, keyed as folder_id or document_id',
  'alert_subscription.event_id': 'an event of src/alert-events.ts, not a row',
  'folder_member.member_id': 'the user or group, keyed as user_id or group_id',
  'document.revision_id': "the current revision's own id, which other rows name",
  'form_instance.revision_id': "the current revision's own id, which other rows name",
  'form_template_field.field_id': "the field's public id (its row's key is id)",
  'index_field.connection_id': 'an external data connection, not stored here',
  'index_field.query_id': "an external connection's query, not stored here",
  'folder_index_field.connection_id': 'an external data connection, not stored here',
  'folder_index_field.query_id': "an external connection's query, not stored here",
  'refresh_token.family_id': 'a rotation family, not a row',
  'file_removal.file_id': 'a deleted file, whose row is gone',
};

/** The foreign keys between `tables`, each with its table, its columns in key order and the table it references. */
async function tenantForeignKeys(tables: string[]): Promise<{ name: string; table: string; columns: string[]; references: string }[]> {
  const { rows } = await sqlOf(
    `select conname as name, conrelid::regclass::text as table, confrelid::regclass::text as references,
            array(select attname from unnest(conkey) with ordinality k(num, pos) join pg_attribute on attrelid = conrelid and attnum = k.num order by k.pos)::text[] as columns
       from pg_constraint where contype = 'f' and conrelid::regclass::text = any($1) and confrelid::regclass::text = any($1)`,
    [tables],
  );
  return rows;
}

describe('a row pointing at another tenant\'s row is refused by the database', () => {
  const a = () => A.t;
  const b = () => B.t;
  const refused = async (text: string, values: unknown[]) => {
    const err = await sqlOf(text, values).then(() => undefined, (e: pg.DatabaseError) => e);
    expect(err?.code).toBe('23503');
  };

  test('a membership of tenant A naming tenant B\'s user, or A\'s user in B\'s group', async () => {
    await refused(`insert into group_member (tenant_id, group_id, user_id) values ($1, $2, $3)`, [a().tenantId, adminGroup.get(a().tenantId), b().adminId]);
    await refused(`insert into group_member (tenant_id, group_id, user_id) values ($1, $2, $3)`, [a().tenantId, adminGroup.get(b().tenantId), a().adminId]);
    // Written in B's name, the same two rows are still refused: each side must be of the row's tenant.
    await refused(`insert into group_member (tenant_id, group_id, user_id) values ($1, $2, $3)`, [b().tenantId, adminGroup.get(b().tenantId), a().adminId]);
  });

  test('a user or a group in another tenant\'s site, a site moved across by an update', async () => {
    const insertUser = `insert into app_user (id, tenant_id, site_id, user_id, name, password_hash) values ($1, $2, $3, $4, $4, 'x')`;
    await refused(insertUser, [randomUUID(), a().tenantId, b().homeSiteId, `x${randomUUID().slice(0, 8)}`]);
    await refused(`insert into user_group (id, tenant_id, site_id, name) values ($1, $2, $3, $4)`, [randomUUID(), a().tenantId, b().homeSiteId, `g${randomUUID().slice(0, 8)}`]);
    await refused(`update app_user set site_id = $1 where tenant_id = $2 and id = $3`, [b().homeSiteId, a().tenantId, a().adminId]);
  });

  test('supervisors, API clients, refresh and web tokens of another tenant\'s user or client', async () => {
    await refused(`insert into user_supervisor (tenant_id, user_id, supervisor_id) values ($1, $2, $3)`, [a().tenantId, a().adminId, b().adminId]);
    await refused(`insert into api_client (id, tenant_id, name, secret_hash, user_id) values ($1, $2, 'x', 'x', $3)`, [randomUUID(), a().tenantId, b().adminId]);
    const refresh = `insert into refresh_token (id, tenant_id, family_id, token_hash, user_id, client_id, expires_at) values ($1, $2, $1, 'h', $3, $4, now())`;
    await refused(refresh, [randomUUID(), a().tenantId, b().adminId, a().clientId]);
    await refused(refresh, [randomUUID(), a().tenantId, a().adminId, b().clientId]);
    await refused(`insert into web_token (id, tenant_id, token_hash, user_id, expires_at) values ($1, $2, 'h', $3, now())`, [randomUUID(), a().tenantId, b().adminId]);
  });

  test('the same rows within one tenant are accepted (the refusals above are about the tenant)', async () => {
    const u = await createUser(A);
    const added = await sqlOf(`insert into user_supervisor (tenant_id, user_id, supervisor_id) values ($1, $2, $3)`, [a().tenantId, u.id, a().adminId]);
    expect(added.rowCount).toBe(1);
  });
});

/** Every statement and its values that reach pg while `fn` runs (the ORM's and the read path's). */
async function captured(fn: () => Promise<unknown>): Promise<{ text: string; values: unknown[] }[]> {
  const seen: { text: string; values: unknown[] }[] = [];
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0] as string | { text: string; values?: unknown[] };
    if (typeof q === 'string') seen.push({ text: q, values: Array.isArray(args[1]) ? args[1] : [] });
    else seen.push({ text: q.text, values: q.values ?? [] });
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    proto.query = original;
  }
  return seen;
}

test('the ORM updates and deletes a user by (tenant_id, id), and a membership by its whole key: statements the keys above serve', async () => {
  const u = await createUser(A);
  // The primary keys lead with tenant_id (checked in the catalog above): a statement that names
  // every key column is a probe of that key, whatever plan a small test table gets.
  const writes = async (fn: () => Promise<unknown>, verb: 'update' | 'delete', table: string, keys: string[]) => {
    const all = await captured(fn);
    const found = all.filter((s) => new RegExp(`^${verb}\\b.*"?${table}"?`, 'i').test(s.text));
    expect(found.map((s) => s.text)).toHaveLength(1);
    const where = found[0].text.slice(found[0].text.search(/\bwhere\b/i));
    // `"tenant_id" = ? and "id" = ?` or `("tenant_id", "id") in ((...))`: the ORM writes either.
    for (const k of ['tenant_id', ...keys]) expect(where).toContain(`"${k}"`);
    // The ORM sends its values inline or as parameters: either way both key values are there.
    const said = `${found[0].text} ${found[0].values.join(' ')}`;
    expect(said).toContain(A.t.tenantId);
    expect(said).toContain(u.id);
  };
  await writes(async () => expect((await A.put(`/users/${u.id}`, { firstName: 'Keyed' })).status).toBe(200), 'update', 'app_user', ['id']);
  // A delete by condition (a membership) carries the tenant filter too.
  const g = (await A.post('/groups', { name: `g-${randomUUID().slice(0, 8)}`, description: 'd' })).body.data.id;
  expect((await A.put(`/groups/${g}/users/${u.id}`)).status).toBe(201);
  await writes(async () => expect((await A.del(`/groups/${g}/users/${u.id}`)).status).toBe(200), 'delete', 'group_member', ['group_id', 'user_id']);
  await writes(async () => expect((await A.del(`/users/${u.id}`)).status).toBe(200), 'delete', 'app_user', ['id']);
});

describe('writes add the tenant themselves', () => {
  const readerOf = (api: Api) => ({ pool: h.services.reads, tenantId: api.t.tenantId });

  test('SQL writes (src/db/tenant-writes.ts) change only the reader\'s tenant, whatever their condition says', async () => {
    const count = async (table: string, api: Api) =>
      Number((await sqlOf(`select count(*) as n from ${table} where tenant_id = $1`, [api.t.tenantId])).rows[0].n);
    const aMembers = await count('group_member', A);
    const bMembers = await count('group_member', B);
    expect(aMembers).toBeGreaterThan(0);
    // `true` matches every row of the table, yet only B's are B's to delete and change.
    const changed = await updateRows<{ id: string }>(readerOf(B), 'user_group', { description: 'changed by B' }, sql`true`, sql`t.id`);
    expect(changed.length).toBe(await count('user_group', B));
    const aChanged = await sqlOf(`select count(*) as n from user_group where tenant_id = $1 and description = 'changed by B'`, [A.t.tenantId]);
    expect(Number(aChanged.rows[0].n)).toBe(0);
    const u = await createUser(A);
    await insertRows(readerOf(A), 'user_supervisor', [{ user_id: u.id, supervisor_id: A.t.adminId }]);
    expect(await deleteRows(readerOf(B), 'user_supervisor', sql`true`)).toBe(0);
    expect(await count('user_supervisor', A)).toBeGreaterThan(0);
    // An insert names the reader's tenant: B's row pointing at A's users is refused by the keys.
    const err = await insertRows(readerOf(B), 'user_supervisor', [{ user_id: A.t.adminId, supervisor_id: A.t.adminId }]).catch((e: pg.DatabaseError) => e);
    expect((err as pg.DatabaseError).code).toBe('23503');
    expect(await count('group_member', A)).toBe(aMembers);
    expect(await count('group_member', B)).toBe(bMembers);
  });

  test('an entity made without a tenantId is its entity manager\'s tenant\'s; without a tenant the flush fails', async () => {
    const em = h.services.orm.em.fork();
    em.setFilterParams(TENANT_FILTER, { id: A.t.tenantId });
    const site = em.create(Site, { id: randomUUID(), name: `s-${randomUUID().slice(0, 8)}`, description: '' });
    await em.flush();
    const { rows } = await sqlOf(`select tenant_id from site where id = $1`, [site.id]);
    expect(rows).toEqual([{ tenant_id: A.t.tenantId }]);
    const bare = h.services.orm.em.fork();
    bare.create(Site, { id: randomUUID(), name: 'orphan', description: '' });
    await expect(bare.flush()).rejects.toThrow('an entity manager that has no tenant');
  });
});
