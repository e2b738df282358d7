/**
 * Writes in SQL, for what the ORM's unit of work cannot say: an UPDATE that applies only if a
 * row is still as it was read and RETURNING what it set, an INSERT ... ON CONFLICT DO NOTHING of
 * a set of rows. The tenant's column and condition are added here, so no caller writes
 * tenant_id. They run on the reader: inside a mutation, on its transaction's connection
 * (src/db/transaction.ts). Table and column names come from our code, never from a client.
 */
import { run, type Reader } from '../read/rows.js';
import { join, MAX_PARAMETERS, raw, sql, Sql } from '../sql.js';

/** Column name -> value: a parameter, or an `Sql` expression (`sql\`revision + 1\``, `sql\`${json}::jsonb\``). */
export type ColumnValues = Record<string, unknown>;

const valueOf = (v: unknown): Sql => (v instanceof Sql ? v : sql`${v}`);

/**
 * `rows` (all with the same columns) as value tuples with the tenant's id first, in groups that
 * each fit in one statement: more parameters than PostgreSQL takes broke the protocol message,
 * and its refusal read as the database being away (a 503 for a cascade over 11,000 folders).
 */
function tupleGroups(reader: Reader, rows: readonly ColumnValues[], columns: string[]): Sql[][] {
  const perStatement = Math.floor(MAX_PARAMETERS / (columns.length + 1));
  const groups: Sql[][] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    groups.push(rows.slice(i, i + perStatement).map((r) => sql`(${join([sql`${reader.tenantId}`, ...columns.map((c) => valueOf(r[c]))], ', ')})`));
  }
  return groups;
}

/**
 * Inserts `rows` (all with the same columns) into the tenant's `table`, in as few statements as
 * the parameter limit allows; `ignoreConflicts` skips rows already there.
 */
export async function insertRows(reader: Reader, table: string, rows: readonly ColumnValues[], ignoreConflicts = false): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  for (const tuples of tupleGroups(reader, rows, columns)) {
    await run(
      reader,
      sql`insert into ${raw(table)} (${raw(['tenant_id', ...columns].join(', '))}) values ${join(tuples, ', ')}${raw(ignoreConflicts ? ' on conflict do nothing' : '')}`,
    );
  }
}

/**
 * Inserts `rows` into the tenant's `table`, or where a row with the same `key` columns exists,
 * sets its `update` columns to the new row's; in as few statements as the parameter limit allows.
 */
export async function upsertRows(reader: Reader, table: string, rows: readonly ColumnValues[], key: readonly string[], update: readonly string[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const set = update.map((c) => `${c} = excluded.${c}`).join(', ');
  for (const tuples of tupleGroups(reader, rows, columns)) {
    await run(
      reader,
      sql`insert into ${raw(table)} (${raw(['tenant_id', ...columns].join(', '))}) values ${join(tuples, ', ')} on conflict (${raw(['tenant_id', ...key].join(', '))}) do update set ${raw(set)}`,
    );
  }
}

/** Ids one statement of `upsertEach` takes. */
export const IDS_A_STATEMENT = 10_000;

/**
 * Upserts one row of the tenant's `table` per id of `ids`: the id in `column` and `values` (the
 * same for every row) in the others; where a row with the same `key` columns exists, sets its
 * `update` columns to the new row's. The ids go as one array parameter, IDS_A_STATEMENT a
 * statement, so a statement's time and the rows in memory stay those of one turn: a security
 * cascade over 300,000 folders built a tuple of parameters per row, and the process held 1 GB.
 */
export async function upsertEach(
  reader: Reader, table: string, column: string, ids: readonly string[], values: ColumnValues, key: readonly string[], update: readonly string[],
): Promise<void> {
  const columns = ['tenant_id', column, ...Object.keys(values)].join(', ');
  const selected = join([sql`${reader.tenantId}::uuid`, raw('x'), ...Object.values(values).map(valueOf)], ', ');
  const set = update.map((c) => `${c} = excluded.${c}`).join(', ');
  for (let i = 0; i < ids.length; i += IDS_A_STATEMENT) {
    await run(
      reader,
      sql`insert into ${raw(table)} (${raw(columns)}) select ${selected} from unnest(${ids.slice(i, i + IDS_A_STATEMENT)}::uuid[]) x
          on conflict (${raw(['tenant_id', ...key].join(', '))}) do update set ${raw(set)}`,
    );
  }
}

/**
 * Copies the tenant's rows of `table` (alias `t`) that `where` matches: `keep` columns as they
 * are, `set` columns to a value or an expression over `t` (a new parent's id).
 */
export async function copyRows(reader: Reader, table: string, keep: readonly string[], set: ColumnValues, where: Sql): Promise<void> {
  const columns = ['tenant_id', ...keep, ...Object.keys(set)];
  const values = [raw('t.tenant_id'), ...keep.map((c) => raw(`t.${c}`)), ...Object.values(set).map(valueOf)];
  await run(reader, sql`insert into ${raw(table)} (${raw(columns.join(', '))}) select ${join(values, ', ')} from ${raw(table)} t where t.tenant_id = ${reader.tenantId} and (${where})`);
}

/** `ids` mapped through `from` -> `to` (two arrays of the same length), as SQL over `t.<column>`. */
export const mapped = (column: string, from: readonly string[], to: readonly string[]): Sql =>
  sql`(${to}::uuid[])[array_position(${from}::uuid[], t.${raw(column)})]`;

/** Updates the tenant's rows of `table` (alias `t`) that `where` matches; returns `returning` of each. */
export function updateRows<T>(reader: Reader, table: string, set: ColumnValues, where: Sql, returning: Sql = raw('1')): Promise<T[]> {
  const assignments = join(Object.entries(set).map(([c, v]) => sql`${raw(c)} = ${valueOf(v)}`), ', ');
  return run<T>(reader, sql`update ${raw(table)} t set ${assignments} where t.tenant_id = ${reader.tenantId} and (${where}) returning ${returning}`);
}

/** Deletes the tenant's rows of `table` (alias `t`) that `where` matches; returns how many. */
export async function deleteRows(reader: Reader, table: string, where: Sql): Promise<number> {
  const rows = await run(reader, sql`delete from ${raw(table)} t where t.tenant_id = ${reader.tenantId} and (${where}) returning 1`);
  return rows.length;
}
