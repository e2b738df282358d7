/** Roles: a tenant administrator is an enabled member of the tenant's Administrators group. */
import { run, type Reader } from '../read/rows.js';
import { sql } from '../read/sql.js';

export const ADMIN_GROUP = 'Administrators';

/** Asked of the database on every request that needs it: a promotion or demotion counts at once. */
export async function isAdmin(reader: Reader, userId: string): Promise<boolean> {
  const rows = await run(
    reader,
    sql`select 1 from group_member m
       join user_group g on g.id = m.group_id and g.tenant_id = m.tenant_id
       join app_user u on u.id = m.user_id and u.tenant_id = m.tenant_id
      where m.tenant_id = ${reader.tenantId} and m.user_id = ${userId} and lower(g.name) = lower(${ADMIN_GROUP}) and u.enabled`,
  );
  return rows.length > 0;
}
