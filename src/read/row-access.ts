/**
 * The row conditions a definition adds to every read beside the tenant's: its `live` condition,
 * and its row rule for the caller (administrators pass it). The administrator test is a
 * subquery of constants, so PostgreSQL runs it once per statement, not once per row.
 */
import { ADMIN_GROUP } from '../roles.js';
import type { ResourceDef, RowRule } from './define.js';
import { raw, sql, type Sql } from '../sql.js';

/** Whether `userId` is an enabled member of the tenant's administrators. */
export const isAdminSql = (tenantId: string, userId: string): Sql => sql`exists (select 1 from group_member m
      join user_group g on g.tenant_id = m.tenant_id and g.id = m.group_id
      join app_user u on u.tenant_id = m.tenant_id and u.id = m.user_id
     where m.tenant_id = ${tenantId} and m.user_id = ${userId} and lower(g.name) = lower(${ADMIN_GROUP}) and u.enabled)`;

/** `rule(caller) or the caller is an administrator`; with no caller, nothing passes (fails closed). */
export function ruleFor(rule: RowRule, tenantId: string, userId: string | undefined): Sql {
  if (!userId) return raw('false');
  return sql`(${rule(sql`${userId}::uuid`)} or ${isAdminSql(tenantId, userId)})`;
}

/** The conditions every read of `def` by this caller adds (none for tenant-wide resources). */
export function seeConditions(def: ResourceDef, tenantId: string, userId: string | undefined): Sql[] {
  const out: Sql[] = [];
  if (def.live) out.push(raw(`(${def.live})`));
  if (typeof def.access.see === 'function') out.push(ruleFor(def.access.see, tenantId, userId));
  return out;
}
