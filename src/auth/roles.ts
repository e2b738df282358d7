/** Roles: a tenant administrator is an enabled member of the tenant's Administrators group. */
import type { EntityManager } from '@mikro-orm/postgresql';

export const ADMIN_GROUP = 'Administrators';

export async function isAdmin(em: EntityManager, tenantId: string, userId: string): Promise<boolean> {
  const rows = await em.getConnection().execute(
    `select 1 from group_member m
       join user_group g on g.id = m.group_id and g.tenant_id = m.tenant_id
       join app_user u on u.id = m.user_id and u.tenant_id = m.tenant_id
      where m.tenant_id = ? and m.user_id = ? and lower(g.name) = lower(?) and u.enabled`,
    [tenantId, userId, ADMIN_GROUP],
  );
  return rows.length > 0;
}
