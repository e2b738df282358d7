/**
 * A tenant's rows, table by table: every table of the database with a `tenant_id` column,
 * found in the catalogue, so a new tenant-owned table is covered without naming it here, and the
 * tenant's own row (`customer_database`).
 */
import type pg from 'pg';

/** The tables that hold tenant rows (a `tenant_id` column), in the database's current schema. */
async function tenantTables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ table_name: string }>(
    `select c.table_name from information_schema.columns c
       join information_schema.tables t using (table_schema, table_name)
      where c.table_schema = current_schema() and c.column_name = 'tenant_id' and t.table_type = 'BASE TABLE'
      order by c.table_name`,
  );
  return rows.map((r) => r.table_name);
}

/**
 * A checksum of the tenants' rows of every tenant table and of their own `customer_database` rows
 * (table name to md5 of its rows, sorted), read in one statement: any row a call added, changed
 * or deleted changes its table's entry.
 */
export async function tenantRowChecksums(pool: pg.Pool, tenantIds: string[]): Promise<Record<string, string>> {
  const tables = await tenantTables(pool);
  if (!tables.length) throw new Error('no table has a tenant_id column: is the database migrated?');
  const checksum = (t: string, key: string) =>
    `select '${t}' as t, count(*)::text || ' ' || md5(coalesce(string_agg(r::text, '|' order by r::text), '')) as sum from "${t}" r where ${key} = any($1)`;
  const sql = [...tables.map((t) => checksum(t, 'tenant_id')), checksum('customer_database', 'id')].join(' union all ');
  const { rows } = await pool.query<{ t: string; sum: string }>(sql, [tenantIds]);
  return Object.fromEntries(rows.map((r) => [r.t, r.sum]));
}
