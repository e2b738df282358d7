/**
 * The row conditions a definition adds to every read beside the tenant's: its `live` condition,
 * and its row rule for the caller (administrators pass it). The administrator test is a
 * subquery of constants, so PostgreSQL runs it once per statement, not once per row.
 */
import { ADMIN_GROUP } from '../roles.js';
import type { ResourceDef, RowRule } from './define.js';
import { raw, sql, Sql } from '../sql.js';

/**
 * Whether `userId` (a value, or SQL naming a user such as an outer query's column) is an enabled
 * member of the tenant's administrators. Its aliases are its own, so an outer `u` or `m` stays visible.
 */
export const isAdminSql = (tenantId: string, userId: string | Sql): Sql => sql`exists (select 1 from group_member adm_m
      join user_group adm_g on adm_g.tenant_id = adm_m.tenant_id and adm_g.id = adm_m.group_id
      join app_user adm_u on adm_u.tenant_id = adm_m.tenant_id and adm_u.id = adm_m.user_id
     where adm_m.tenant_id = ${tenantId} and adm_m.user_id = ${userId} and name_key(adm_g.name) = name_key(${ADMIN_GROUP}) and adm_u.enabled)`;

/**
 * `rule(user) or the user is an administrator`, for a user id or SQL naming users (a column, to
 * ask for many users in one statement); with no user, nothing passes (fails closed).
 */
export function ruleFor(rule: RowRule, tenantId: string, userId: string | Sql | undefined): Sql {
  if (!userId) return raw('false');
  return sql`(${rule(userId instanceof Sql ? userId : sql`${userId}::uuid`, sql`${tenantId}::uuid`)} or ${isAdminSql(tenantId, userId)})`;
}

/** The conditions every read of `def` by this caller adds (none for tenant-wide resources; no row rule `byToken`). */
export function seeConditions(def: ResourceDef, tenantId: string, userId: string | undefined, byToken = false): Sql[] {
  const out: Sql[] = [];
  if (def.live) out.push(raw(`(${def.live})`));
  if (typeof def.access.see === 'function' && !byToken) out.push(ruleFor(def.access.see, tenantId, userId));
  return out;
}
