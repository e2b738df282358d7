/**
 * Who may call what, in one place. Root fields declare their rule in the schema (`@allow`, see
 * schema/base.graphql); src/schema.ts wraps exactly those fields with `enforce`, so REST and
 * /graphql are checked alike. `accessibleIds` is the bulk check that row-level security (folders,
 * documents) plugs into: one statement for a page of ids.
 */
import type { AppContext } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import type { ResourceDef } from '../read/define.js';
import { idOf, run } from '../read/rows.js';
import { isAdminSql, ruleFor, seeConditions } from '../read/row-access.js';
import { join, raw, sql, type Sql } from '../read/sql.js';
import { isCaller, policies } from './policies.js';

export type Audience = 'TENANT' | 'ADMIN' | 'SELF_OR_ADMIN' | 'POLICY';

export interface AllowRule {
  to: Audience;
  /** SELF_OR_ADMIN: the argument naming the user. */
  arg?: string;
  /** POLICY: its name in src/auth/policies.ts. */
  policy?: string;
}

const ADMIN_ONLY = 'Only a tenant administrator may do this.';

/** Throws a 403 unless the caller may call a root field with these arguments. */
export async function enforce(rule: AllowRule, ctx: AppContext, args: Record<string, unknown>): Promise<void> {
  switch (rule.to) {
    case 'TENANT':
      return;
    case 'ADMIN':
      if (!(await ctx.isAdmin())) throw forbidden(ADMIN_ONLY);
      return;
    case 'SELF_OR_ADMIN':
      if (isCaller(ctx, args[rule.arg!])) return;
      if (!(await ctx.isAdmin())) throw forbidden('You may act only on your own account; this needs a tenant administrator.');
      return;
    case 'POLICY':
      return policies[rule.policy!](ctx, args);
  }
}

/**
 * Which of `ids` the caller may see or change: one statement, whatever the page size. The
 * definition's `access` says who may (and its `live` condition which rows exist); "admin" is
 * decided inside the same statement.
 */
export async function accessibleIds(ctx: AppContext, def: ResourceDef, ids: readonly string[], action: 'see' | 'change'): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const who = def.access[action];
  const conditions: Sql[] = seeConditions(def, ctx.tenantId, ctx.caller.userId);
  if (action === 'change' && who === 'admin') conditions.push(isAdminSql(ctx.tenantId, ctx.caller.userId));
  if (action === 'change' && typeof who === 'function') conditions.push(ruleFor(who, ctx.tenantId, ctx.caller.userId));
  const id = idOf(def);
  const rows = await run<{ id: string }>(
    ctx.reader,
    sql`select ${id} as id from ${raw(def.table)} t where ${join([sql`t.tenant_id = ${ctx.tenantId}`, sql`${id} = any(${ids}::uuid[])`, ...conditions], ' and ')}`,
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
