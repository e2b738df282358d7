/**
 * Which documents each user opens (docs/decisions.md, "Recent and frequent documents"): a read of
 * a document by its id or of its file counts, one statement that cannot lose a count however
 * many reads arrive at once. `lastdocuments` and `frequentdocuments` read it back.
 */
import type { AppContext } from '../context.js';
import { ZERO_GUID } from '../ids.js';
import { run } from '../read/rows.js';
import { sql } from '../sql.js';

export async function recordAccess(ctx: AppContext, documentId: string): Promise<void> {
  if (!documentId || documentId === ZERO_GUID) return;
  await run(
    ctx.reader,
    sql`insert into document_access (tenant_id, user_id, document_id) values (${ctx.tenantId}, ${ctx.caller.userId}, ${documentId})
        on conflict (tenant_id, user_id, document_id) do update set accessed_at = now(), access_count = document_access.access_count + 1`,
  );
}
