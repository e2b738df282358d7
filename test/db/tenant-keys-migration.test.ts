/**
 * The tenant keys migration keeps existing data: a database with tenants made under the earlier
 * schema is migrated, its rows are all there under the new keys, and the migration reverts and
 * applies again. Runs on a database of its own, made and dropped here.
 */
import { newId } from '../../src/ids.js';
import { migrationDatabase } from './migration-database.js';

const BEFORE = 'Migration20261124110000_sessions';
const KEYS = 'Migration20261125000000_tenant_keys';
const TABLES = ['site', 'user_group', 'app_user', 'group_member', 'api_client'];

const { migrator, sql } = migrationDatabase('keys');

const counts = async () => {
  const out: Record<string, number> = {};
  for (const t of TABLES) out[t] = Number((await sql<{ n: string }>(`select count(*) as n from ${t}`))[0].n);
  return out;
};
/**
 * A tenant as the app made one then (a site, a group, its administrator in it, an API client), in
 * SQL of the schema as it stood: today's entities write columns later migrations add.
 */
async function oldTenant(customer: string) {
  const [c, t, site, group, user, client] = Array.from({ length: 6 }, newId);
  await sql(
    `insert into customer (id, alias, name) values (?, ?, ?);
     insert into customer_database (id, customer_id, alias, name) values (?, ?, 'main', 'main');
     insert into site (id, tenant_id, name) values (?, ?, 'Home');
     insert into user_group (id, tenant_id, name) values (?, ?, 'Administrators');
     insert into app_user (id, tenant_id, site_id, user_id, name, password_hash) values (?, ?, ?, 'admin', 'admin', 'x');
     insert into group_member (group_id, user_id, tenant_id) values (?, ?, ?);
     insert into api_client (id, tenant_id, name, secret_hash, user_id) values (?, ?, 'default', 'x', ?)`,
    [c, customer, customer, t, c, site, t, group, t, user, t, site, group, user, t, client, t, user],
  );
}

const primaryKey = async (table: string) =>
  (await sql<{ def: string }>(`select pg_get_constraintdef(oid) as def from pg_constraint where conname = '${table}_pkey'`))[0].def;

test('tenants made under the earlier keys are all there after the migration, and after reverting and applying it again', async () => {
  await migrator().up({ to: BEFORE });
  expect(await primaryKey('app_user')).toBe('PRIMARY KEY (id)');
  for (const customer of ['one', 'two']) await oldTenant(customer);
  const before = await counts();
  expect(before).toEqual({ site: 2, user_group: 2, app_user: 2, group_member: 2, api_client: 2 });

  // Named, so that later migrations neither run here nor get reverted in its place.
  await migrator().up({ to: KEYS });
  expect(await primaryKey('app_user')).toBe('PRIMARY KEY (tenant_id, id)');
  expect(await counts()).toEqual(before);

  await migrator().down({ to: KEYS });
  expect(await primaryKey('app_user')).toBe('PRIMARY KEY (id)');
  await migrator().up({ to: KEYS });
  expect(await primaryKey('group_member')).toBe('PRIMARY KEY (tenant_id, group_id, user_id)');
  expect(await counts()).toEqual(before);
});
