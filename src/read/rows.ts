/**
 * The read path: plain rows straight from SQL on the read pool, the tenant condition always
 * added here, columns aliased to API field names so PostgreSQL hands back ready records.
 * Mapping rows into managed entities (identity map, change tracking) cost more than the queries
 * on large reads; writes load managed entities instead (src/resolvers/, src/domain/).
 */
import type pg from 'pg';
import type { ReadPool } from './read-pool.js';
import type { ResourceDef } from './define.js';
import { seeConditions } from './row-access.js';
import { join, raw, sql, statement, type Sql } from '../sql.js';

/** The caller's session, to check in the first reads that return rows (src/auth/session.ts). */
export class SessionCheck {
  /** Set once a statement or `whoAmI` has seen the session alive. */
  confirmed = false;
  constructor(
    readonly userId: string,
    readonly epoch: number,
    /** The API client the token came through: revoking it ends the session (`quire client revoke`). */
    readonly clientId: string,
  ) {}

  /** True while the user is enabled, at the token's session epoch, and its client not revoked: two key probes. */
  alive(tenantId: string): Sql {
    return sql`exists (select 1 from app_user session_user_ join api_client session_client_
      on session_client_.tenant_id = session_user_.tenant_id and session_client_.id = ${this.clientId} and session_client_.revoked_at is null
      where session_user_.tenant_id = ${tenantId} and session_user_.id = ${this.userId} and session_user_.enabled and session_user_.session_epoch = ${this.epoch})`;
  }
}

/**
 * What a read needs: the read pool (or, inside a mutation, its transaction's connection:
 * src/db/transaction.ts), the tenant, and the caller's session to check (src/auth/session.ts).
 */
export interface Reader {
  pool: ReadPool | pg.ClientBase;
  tenantId: string;
  session?: SessionCheck;
}

/** Runs a finished statement with real protocol parameters ($1, $2 ...) on the read pool. */
export function run<T>(reader: Reader, query: Sql): Promise<T[]> {
  const { text, values } = statement(query);
  // Named on the read pool only: a mutation's connection, the ORM's, keeps none of them.
  const name = (reader.pool as Partial<ReadPool>).names?.nameFor(text);
  // pg's callback form: one promise per read where its promise form makes four (measured with
  // the by-id read in bench/README.md).
  return new Promise((resolve, reject) =>
    reader.pool.query(name ? { name, text, values } : { text, values }, (err: Error | undefined, r: pg.QueryResult) => (err ? reject(err) : resolve(r.rows as T[]))),
  );
}

const selects = new WeakMap<ResourceDef, Sql>();
const selectsWithoutDynamic = new WeakMap<ResourceDef, Sql>();
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

/** `expr as "field", ...` for every field of the definition, and its dynamic column unless left out. */
export function selectList(def: ResourceDef, withDynamic = true): Sql {
  const cache = withDynamic ? selects : selectsWithoutDynamic;
  let s = cache.get(def);
  if (!s) {
    const items = Object.entries(def.fields).map(([name, f]) => `${f.sql} as "${name}"`);
    if (def.dynamic && withDynamic) items.push(`t.${def.dynamic.column} as "${def.dynamic.field}"`);
    s = raw(items.join(', '));
    cache.set(def, s);
  }
  return s;
}

/** The definition's condition for rows in lists and to-many relations, if it has one. */
export const listedOf = (def: ResourceDef): Sql[] => (def.listed ? [raw(`(${def.listed})`)] : []);

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
  /**
   * A page per parent (SQL `key` on `t` or a joined alias), in `order`: every parent's page in one
   * statement. `total`: each row also carries its parent's count of rows (`__total`), and each
   * parent's first row comes even outside the page (offset past it, limit 0), to carry it.
   */
  perParent?: { key: string; limit: number; offset: number; total?: boolean };
  /** Leave the dynamic column out (nobody asked for the values: it may hold megabytes a row). */
  withoutDynamic?: boolean;
  /**
   * Lock the rows read (not the joined ones) until the transaction ends, `for no key update`:
   * checks made under such a lock wait for each other, but not for foreign-key checks.
   * `'keyShare'`: hold them only against their delete, as a foreign key to them would (`for key
   * share`): a write that adds to a row (a member, a link) waits for a delete of it begun first and
   * then finds it gone, and a delete begun later waits for the write; such writes do not wait for
   * each other, nor for other changes of the row.
   */
  lock?: boolean | 'keyShare';
  /**
   * The caller named the row by an id only its rightful reader holds (a scheduled run's token):
   * the definition's row rule does not apply to it.
   */
  byToken?: boolean;
}

/**
 * The tenant's own rows, always: no caller writes the tenant condition; and only the rows the
 * definition lets the caller see (src/read/row-access.ts). Until the caller's session
 * is confirmed, the condition that it is alive too: one index probe PostgreSQL evaluates once per
 * statement, so a statement that returns rows has proved the session (src/auth/session.ts).
 */
function whereOf(reader: Reader, def: ResourceDef, r: RowQuery): { where: Sql; guarded: boolean } {
  const alive = aliveOf(reader);
  return { where: join([...visible(reader, def, r.byToken), ...(alive ? [alive] : []), ...(r.where ?? [])], ' and '), guarded: !!alive };
}

/** The condition that the caller's session is alive, until a statement has confirmed it. */
function aliveOf(reader: Reader): Sql | undefined {
  const s = reader.session;
  return s !== undefined && !s.confirmed ? s.alive(reader.tenantId) : undefined;
}

/** The tenant's condition and the definition's row conditions for the caller, on alias `t`. */
const visible = (reader: Reader, def: ResourceDef, byToken?: boolean): Sql[] => [
  sql`t.tenant_id = ${reader.tenantId}`,
  ...seeConditions(def, reader.tenantId, reader.session?.userId, byToken),
];

/**
 * A subquery of one field of the rows of `def` the caller may read that meet `where` (alias `t`,
 * its own), for a statement that names its rows by another table's key. It depends on no outer
 * row, so PostgreSQL runs it once and the outer statement still probes its indexes (a correlated
 * one ran per row of the tenant). The outer statement checks the session.
 */
export function fieldOf(reader: Reader, def: ResourceDef, field: string, where: Sql[]): Sql {
  return sql`(select ${raw(def.fields[field].sql)} from ${raw(def.table)} t${joinsOf(def)} where ${join([...visible(reader, def), ...where], ' and ')})`;
}

/** The statement selectRows runs (test/db/list-orders.test.ts EXPLAINs it); `guarded`: it checks the session. */
export function selectStatement(reader: Reader, def: ResourceDef, r: RowQuery = {}): { query: Sql; guarded: boolean } {
  const { where, guarded } = whereOf(reader, def, r);
  const p = r.perParent;
  const rank = p ? sql`, row_number() over (partition by ${raw(p.key)} order by ${raw(r.order ?? 't.id')}) as "__rank"` : raw('');
  const total = p?.total ? sql`, count(*) over (partition by ${raw(p.key)}) as "__total"` : raw('');
  let q = sql`select ${selectList(def, !r.withoutDynamic)}${r.extra ?? raw('')}${rank}${total} from ${raw(def.table)} t${joinsOf(def)}${r.from ?? raw('')} where ${where}`;
  if (p) {
    const inPage = sql`"__rank" > ${p.offset} and "__rank" <= ${p.offset + p.limit}`;
    q = sql`select * from (${q}) ranked where ${p.total ? sql`(${inPage}) or "__rank" = 1` : inPage} order by "__rank"`;
  } else if (r.order) q = sql`${q} order by ${raw(r.order)}`;
  if (r.limit !== undefined) q = sql`${q} limit ${r.limit} offset ${r.offset ?? 0}`;
  if (r.lock) q = r.lock === 'keyShare' ? sql`${q} for key share of t` : sql`${q} for no key update of t`;
  return { query: q, guarded };
}

export async function selectRows<T>(reader: Reader, def: ResourceDef, r: RowQuery = {}): Promise<T[]> {
  const { query, guarded } = selectStatement(reader, def, r);
  const rows = await run<T>(reader, query);
  if (guarded && rows.length) reader.session!.confirmed = true;
  return rows;
}

/**
 * How many rows `r` names. The session check is the count's filter, not a condition of the
 * statement: beside a condition that names no row, PostgreSQL 15 keeps every left join, used or
 * not, and a count of 500,000 documents read the six joins of the definition's select list in 2 s
 * (0.2 s without). As a filter it is still evaluated once, and the count may still run in
 * parallel, which a subquery fenced with `offset 0` may not (300 ms for a million forms, 115 this way).
 */
export async function countRows(reader: Reader, def: ResourceDef, r: RowQuery = {}): Promise<number> {
  const alive = aliveOf(reader);
  const rows = join([...visible(reader, def, r.byToken), ...(r.where ?? [])], ' and ');
  const count = alive ? sql`count(*) filter (where ${alive})` : raw('count(*)');
  const [{ n }] = await run<{ n: string }>(reader, sql`select ${count} as n from ${raw(def.table)} t${joinsOf(def)}${r.from ?? raw('')} where ${rows}`);
  if (alive && Number(n) > 0) reader.session!.confirmed = true;
  return Number(n);
}
