/**
 * Which documents each user opens (docs/decisions.md, "Recent and frequent documents"): a read of
 * a document by its id or of its file counts, one statement that cannot lose a count however
 * many reads arrive at once. `lastdocuments` and `frequentdocuments` read it back.
 */
import type { AppContext } from '../context.js';
import { ZERO_GUID } from '../ids.js';
import { run } from '../read/rows.js';
import { sql } from '../sql.js';
import { sessionEnded } from '../auth/session.js';

/**
 * Counts the caller's read of `documentId`. The caller's row is taken for key share first (as the
 * foreign key would): a delete of their account that commits meanwhile leaves nothing to count,
 * and the read answers what it would have after the delete, a 401, where the key's refusal was
 * a 404 for a document that is there.
 */
export async function recordAccess(ctx: AppContext, documentId: string): Promise<void> {
  if (!documentId || documentId === ZERO_GUID) return;
  const counted = await run(
    ctx.reader,
    sql`insert into document_access (tenant_id, user_id, document_id)
        select u.tenant_id, u.id, ${documentId}::uuid from app_user u where u.tenant_id = ${ctx.tenantId} and u.id = ${ctx.caller.userId} for key share
        on conflict (tenant_id, user_id, document_id) do update set accessed_at = now(), access_count = document_access.access_count + 1
        returning 1`,
  );
  if (counted.length === 0) throw sessionEnded();
}
