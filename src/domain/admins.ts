/**
 * A tenant never loses its last administrator. Whatever takes users out of the Administrators
 * group's enabled members (removing a member, disabling or deleting a user) first locks the
 * group's row, then counts the enabled members that stay: two such changes at once run one
 * after the other, and the second counts what the first left.
 */
import type { AppContext } from '../context.js';
import { ADMIN_GROUP } from '../roles.js';
import { conflict } from '../errors.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql } from '../sql.js';

/**
 * Throws a 409 when taking `leaving` out of the enabled administrators would leave none.
 * Must run inside the mutation's transaction (src/db/transaction.ts), before the change.
 */
export async function assertAdminsRemain(ctx: AppContext, leaving: readonly string[], refusal: string): Promise<void> {
  const [group] = await selectRows<{ id: string }>(ctx.reader, resource('Group'), { where: [sql`name_key(t.name) = name_key(${ADMIN_GROUP})`], lock: true });
  if (!group) return;
  const admins = await selectRows<{ id: string }>(ctx.reader, resource('User'), {
    where: [sql`t.enabled`, sql`exists (select 1 from group_member m where m.tenant_id = t.tenant_id and m.group_id = ${group.id} and m.user_id = t.id)`],
  });
  const gone = new Set(leaving);
  if (admins.some((a) => gone.has(a.id)) && admins.every((a) => gone.has(a.id))) throw conflict(refusal);
}

export const LAST_ADMIN = `The ${ADMIN_GROUP} group must keep at least one member whose account is enabled`;
