/**
 * Row by row access: `accessibleIds` is the bulk check that row-level security (persisted data
 * today; folders and documents next) plugs into, one statement for a page of ids.
 */
import type { AppContext } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import type { ResourceDef } from '../read/define.js';
import { idOf, run } from '../read/rows.js';
import { isAdminSql, ruleFor, seeConditions } from '../read/row-access.js';
import { join, raw, sql, type Sql } from '../sql.js';

/**
 * Which of `ids` the caller (or another user of the tenant, `userId`) may see or change: one
 * statement, whatever the page size. The definition's `access` says who may (and its `live`
 * condition which rows exist); "admin" is decided inside the same statement.
 */
export async function accessibleIds(
  ctx: AppContext,
  def: ResourceDef,
  ids: readonly string[],
  action: 'see' | 'change',
  userId = ctx.caller.userId,
  /** Hold the rows found against their delete (RowQuery.lock 'keyShare'): for a write that links to them. */
  hold = false,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const who = def.access[action];
  const conditions: Sql[] = seeConditions(def, ctx.tenantId, userId);
  if (action === 'change' && who === 'admin') conditions.push(isAdminSql(ctx.tenantId, userId));
  if (action === 'change' && typeof who === 'function') conditions.push(ruleFor(who, ctx.tenantId, userId));
  const id = idOf(def);
  const rows = await run<{ id: string }>(
    ctx.reader,
    sql`select ${id} as id from ${raw(def.table)} t where ${join([sql`t.tenant_id = ${ctx.tenantId}`, sql`${id} = any(${ids}::uuid[])`, ...conditions], ' and ')}${raw(hold ? ' for key share of t' : '')}`,
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * The caller may change the row `id` of `def` (its `access.change`): a 404 when they cannot even
 * see it, a 403 when they only see it. One statement each way.
 */
export async function assertMayChange(ctx: AppContext, def: ResourceDef, id: string): Promise<void> {
  const key = id.toLowerCase();
  if ((await accessibleIds(ctx, def, [key], 'change')).has(key)) return;
  if (!(await accessibleIds(ctx, def, [key], 'see')).has(key)) throw notFound(`${def.label} '${id}' was not found.`);
  throw forbidden(`Only its creator or a tenant administrator may change this ${def.label.toLowerCase()}.`);
}
