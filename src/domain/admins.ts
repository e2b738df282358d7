/**
 * A tenant never loses its last administrator. Whatever takes users out of the Administrators
 * group's enabled members (removing a member, disabling or deleting a user) first locks the
 * group's row, then counts the enabled members that stay: two such changes at once run one
 * after the other, and the second counts what the first left.
 */
import type { AppContext } from '../context.js';
import { ADMIN_GROUP } from '../auth/roles.js';
import { conflict } from '../errors.js';
import { run } from '../read/rows.js';
import { sql } from '../read/sql.js';

/**
 * The Administrators group's id, its row locked to the end of the mutation's transaction. `no key
 * update` makes these checks wait for each other but not for foreign-key checks (adding a member).
 */
async function lockAdminGroup(ctx: AppContext): Promise<string | undefined> {
  const [g] = await run<{ id: string }>(
    ctx.reader,
    sql`select id from user_group where tenant_id = ${ctx.tenantId} and lower(name) = lower(${ADMIN_GROUP}) for no key update`,
  );
  return g?.id;
}

/**
 * Throws a 409 when taking `leaving` out of the enabled administrators would leave none.
 * Must run inside the mutation's transaction (src/db/transaction.ts), before the change.
 */
export async function assertAdminsRemain(ctx: AppContext, leaving: readonly string[], refusal: string): Promise<void> {
  const groupId = await lockAdminGroup(ctx);
  if (!groupId) return;
  const [n] = await run<{ staying: number; going: number }>(
    ctx.reader,
    sql`select count(*) filter (where not (u.id = any(${leaving}::uuid[])))::int as staying,
               count(*) filter (where u.id = any(${leaving}::uuid[]))::int as going
          from group_member m join app_user u on u.tenant_id = m.tenant_id and u.id = m.user_id
         where m.tenant_id = ${ctx.tenantId} and m.group_id = ${groupId} and u.enabled`,
  );
  if (n.going > 0 && n.staying === 0) throw conflict(refusal);
}

export const LAST_ADMIN = `The ${ADMIN_GROUP} group must keep at least one member whose account is enabled`;
