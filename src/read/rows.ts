/**
 * The read path: plain rows straight from SQL on the read pool, the tenant condition always
 * added here, columns aliased to API field names so PostgreSQL hands back ready records.
 * Mapping rows into managed entities (identity map, change tracking) cost more than the queries
 * on large reads; writes load managed entities instead (src/resolvers/, src/domain/).
 */
import type { ReadPool } from '../db/read-pool.js';
import type { ResourceDef } from './define.js';
import { join, raw, sql, statement, type Sql } from './sql.js';

/** What a read needs: the read pool and the tenant. */
export interface Reader {
  pool: ReadPool;
  tenantId: string;
}

/** Runs a finished statement with real protocol parameters ($1, $2 ...) on the read pool. */
export function run<T>(reader: Reader, query: Sql): Promise<T[]> {
  const { text, values } = statement(query);
  // pg's callback form: one promise per read where its promise form makes four (measured with
  // the by-id read in bench/README.md).
  return new Promise((resolve, reject) => reader.pool.query(text, values, (err, r) => (err ? reject(err) : resolve(r.rows as T[]))));
}

const selects = new WeakMap<ResourceDef, Sql>();
const joins = new WeakMap<ResourceDef, Sql>();

/** The definition's joins, each held to the row's tenant. */
function joinsOf(def: ResourceDef): Sql {
  let s = joins.get(def);
  if (!s) {
    const text = Object.entries(def.joins ?? {}).map(([alias, j]) => ` left join ${j.table} ${alias} on ${alias}.tenant_id = t.tenant_id and (${j.on})`);
    joins.set(def, (s = raw(text.join(''))));
  }
  return s;
}

/** `expr as "field", ...` for every field of the definition. */
export function selectList(def: ResourceDef): Sql {
  let s = selects.get(def);
  if (!s) {
    s = raw(Object.entries(def.fields).map(([name, f]) => `${f.sql} as "${name}"`).join(', '));
    selects.set(def, s);
  }
  return s;
}

/** The SQL of the definition's id field (what `href` ends with and lookups by id compare). */
export const idOf = (def: ResourceDef): Sql => raw(def.fields[def.idField].sql);

export interface RowQuery {
  /** Conditions on alias `t`, AND-ed after the tenant's. */
  where?: Sql[];
  /** Extra select items (a parent key for batched relations). */
  extra?: Sql;
  /** Extra FROM items after `t` (a link table's join). */
  from?: Sql;
  order?: string;
  limit?: number;
  offset?: number;
}

/** The tenant's own rows, always: no caller writes the tenant condition. */
function whereOf(reader: Reader, r: RowQuery): Sql {
  return join([sql`t.tenant_id = ${reader.tenantId}`, ...(r.where ?? [])], ' and ');
}

export function selectRows<T>(reader: Reader, def: ResourceDef, r: RowQuery = {}): Promise<T[]> {
  let q = sql`select ${selectList(def)}${r.extra ?? raw('')} from ${raw(def.table)} t${joinsOf(def)}${r.from ?? raw('')} where ${whereOf(reader, r)}`;
  if (r.order) q = sql`${q} order by ${raw(r.order)}`;
  if (r.limit !== undefined) q = sql`${q} limit ${r.limit} offset ${r.offset ?? 0}`;
  return run<T>(reader, q);
}

export async function countRows(reader: Reader, def: ResourceDef, r: RowQuery = {}): Promise<number> {
  const rows = await run<{ n: string }>(reader, sql`select count(*) as n from ${raw(def.table)} t${joinsOf(def)}${r.from ?? raw('')} where ${whereOf(reader, r)}`);
  return Number(rows[0].n);
}
