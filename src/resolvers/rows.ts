/**
 * The read path: plain rows straight from SQL, tenant condition always applied, columns aliased
 * to property names so PostgreSQL hands back ready objects. Mapping rows into managed entities
 * (identity map, change tracking) cost more than the queries themselves on large reads; writes
 * load managed entities through `editable` instead.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import type { AppContext } from '../context.js';
import type { ReadPool } from '../db/read-pool.js';
import { notFound } from '../errors.js';

/** What a read needs: the shared (unforked) EntityManager for metadata, the read pool, and the tenant. */
export interface Reader {
  em: EntityManager;
  pool: ReadPool;
  tenantId: string;
}

export interface Source {
  table: string;
  /**
   * `t.col as "prop", ...` for every stored, non-hidden property. Entities mark as hidden what
   * no read returns (tenant id, audit times, secrets, counters): fewer columns to fetch and parse.
   */
  select: string;
  /** Property name -> `t.column`, for ORDER BY and joins. */
  columns: Map<string, string>;
}

const sources = new Map<string, Source>();

interface PropMeta {
  name: string;
  fieldNames?: string[];
  hidden?: boolean;
  persist?: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function sourceOf(em: EntityManager, entity: EntityName<any>): Source {
  const meta = em.getMetadata().get(entity as never) as { className: string; tableName: string; props: PropMeta[] };
  let source = sources.get(meta.className);
  if (!source) {
    const props = meta.props.filter((p) => p.fieldNames?.length === 1 && p.persist !== false);
    const columns = new Map(props.map((p) => [p.name, `t.${p.fieldNames![0]}`]));
    const select = props
      .filter((p) => !p.hidden)
      .map((p) => `t.${p.fieldNames![0]} as "${p.name}"`)
      .join(', ');
    sources.set(meta.className, (source = { table: meta.tableName, select, columns }));
  }
  return source;
}

export interface Where {
  sql: string;
  params: unknown[];
}

export const ALL: Where = { sql: 'true', params: [] };

export interface RowQuery {
  where?: Where;
  q?: Where;
  orderBy?: string;
  limit?: number;
  offset?: number;
}

function conditions(ctx: Reader, r: RowQuery): Where {
  const parts = ['t.tenant_id = ?'];
  const params: unknown[] = [ctx.tenantId];
  for (const w of [r.where, r.q]) {
    if (!w) continue;
    parts.push(`(${w.sql})`);
    params.push(...w.params);
  }
  return { sql: parts.join(' and '), params };
}

/** `?` placeholders (as our SQL and MikroORM's `sql` fragments write them) -> `$1, $2 ...`. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/**
 * Runs a read with real protocol parameters ($1, $2 ...) on the read pool, straight on the
 * driver: the ORM's `execute` inlines escaped values into the text, and the query builder's
 * layers (runner, bindings rewrite, response shaping) cost more per call than a by-id read needs.
 */
export function query<T>(ctx: Reader, sql: string, params: unknown[]): Promise<T[]> {
  // pg's callback form: one promise per read, where its promise form makes four.
  return new Promise((resolve, reject) =>
    ctx.pool.query(numbered(sql), params, (err, r) => (err ? reject(err) : resolve(r.rows as T[]))),
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function selectRows<T>(ctx: Reader, entity: EntityName<any>, r: RowQuery): Promise<T[]> {
  const s = sourceOf(ctx.em, entity);
  const c = conditions(ctx, r);
  let sql = `select ${s.select} from ${s.table} t where ${c.sql}`;
  if (r.orderBy) sql += ` order by ${r.orderBy}`;
  if (r.limit !== undefined) {
    sql += ' limit ? offset ?';
    c.params.push(r.limit, r.offset ?? 0);
  }
  return query<T>(ctx, sql, c.params);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function countRows(ctx: Reader, entity: EntityName<any>, r: RowQuery): Promise<number> {
  const s = sourceOf(ctx.em, entity);
  const c = conditions(ctx, r);
  const rows = await query<{ n: string }>(ctx, `select count(*) as n from ${s.table} t where ${c.sql}`, c.params);
  return Number(rows[0].n);
}

/** A managed entity for a write (change tracking and flush), or a 404 naming it. */
export async function editable<T extends object>(ctx: AppContext, entity: EntityName<T>, id: string, what: string): Promise<T> {
  const row = await ctx.em().findOne(entity, { id: id.toLowerCase() } as never);
  if (!row) throw notFound(`${what} '${id}' was not found.`);
  return row as T;
}
