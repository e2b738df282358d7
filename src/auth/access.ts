/**
 * Who may call what, in one place. Root fields declare their rule in the schema (`@allow`, see
 * schema/base.graphql); src/schema.ts wraps exactly those fields with `enforce`, so REST and
 * /graphql are checked alike. `accessibleIds` is the bulk check that row-level security (folders,
 * documents) plugs into: one statement for a page of ids.
 */
import type { AppContext } from '../context.js';
import { forbidden } from '../errors.js';
import type { ResourceDef } from '../read/define.js';
import { idOf, run } from '../read/rows.js';
import { raw, sql } from '../read/sql.js';
import { ADMIN_GROUP } from './roles.js';
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
 * definition's `access` says who may; "admin" is decided inside the same statement.
 */
export async function accessibleIds(ctx: AppContext, def: ResourceDef, ids: readonly string[], action: 'see' | 'change'): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const who = def.access[action];
  const admin = sql` and exists (select 1 from group_member m
      join user_group g on g.tenant_id = m.tenant_id and g.id = m.group_id
      join app_user u on u.tenant_id = m.tenant_id and u.id = m.user_id
     where m.tenant_id = t.tenant_id and m.user_id = ${ctx.caller.userId} and lower(g.name) = lower(${ADMIN_GROUP}) and u.enabled)`;
  const id = idOf(def);
  const rows = await run<{ id: string }>(
    ctx.reader,
    sql`select ${id} as id from ${raw(def.table)} t where t.tenant_id = ${ctx.tenantId} and ${id} = any(${ids}::uuid[])${who === 'admin' ? admin : raw('')}`,
  );
  return new Set(rows.map((r) => r.id));
}
