/**
 * Alert e-mail (docs/decisions.md, "Alerts"): when an event happens to documents, one message to
 * every user subscribed to it on the document or on its folder, queued in the mutation's own
 * transaction (a write that fails sends nothing) and sent by the e-mail batches. Those who are
 * told: enabled, with an e-mail address, still able to see the document, and not the one who
 * did it. One statement finds them for all the documents at once.
 */
import { ALERT_EVENTS, type AlertEventKey } from '../alert-events.js';
import type { AppContext } from '../context.js';
import { insertRows } from '../db/tenant-writes.js';
import { newId } from '../ids.js';
import { ruleFor } from '../read/row-access.js';
import { run } from '../read/rows.js';
import { folderSeenBy } from '../resources/folder.js';
import { raw, sql } from '../sql.js';

interface Recipient {
  to: string;
  subscriptionId: string;
  onFolder: boolean;
  documentId: string;
  name: string;
  revision: string;
  folderPath: string;
  actor: string;
}

/** Queues the alerts of `key` for the documents `documentIds` (their own ids, not revision ids). */
export async function sendAlerts(ctx: AppContext, key: AlertEventKey, documentIds: readonly string[]): Promise<void> {
  if (documentIds.length === 0) return;
  const event = ALERT_EVENTS[key];
  const me = ctx.caller.userId;
  const recipients = await run<Recipient>(
    ctx.reader,
    sql`select distinct on (t.id, u.id) u.email_address as "to", s.id as "subscriptionId", s.folder_id is not null as "onFolder",
        t.id as "documentId", t.name as "name", t.revision as "revision", f.path as "folderPath", coalesce(a.name, '') as "actor"
      from document t
      join folder f on f.tenant_id = t.tenant_id and f.id = t.folder_id
      join alert_subscription s on s.tenant_id = t.tenant_id and s.event_id = ${event.id} and s.object_id in (t.id, t.folder_id)
      join app_user u on u.tenant_id = s.tenant_id and u.id = s.user_id
      left join app_user a on a.tenant_id = t.tenant_id and a.id = ${me}
     where t.tenant_id = ${ctx.tenantId} and t.id = any(${documentIds}::uuid[])
       and u.enabled and u.email_address <> '' and u.id <> ${me}
       and ${ruleFor(folderSeenBy('t.folder_id'), ctx.tenantId, raw('u.id'))}
     order by t.id, u.id, s.document_id nulls last`,
  );
  const at = new Date().toISOString();
  await insertRows(
    ctx.reader,
    'email_message',
    recipients.map((r) => ({
      id: newId(),
      recipients: r.to,
      // One line: a line break would end the header.
      subject: `${event.name}: ${r.name}`.replace(/[\r\n]+/g, ' '),
      body: [
        `${event.description}`,
        '',
        `Document: ${r.name} (revision ${r.revision})`,
        `Folder: ${r.folderPath}`,
        `By: ${r.actor || 'unknown'}, ${at}`,
        `Document id: ${r.documentId}`,
        '',
        `You get this because you subscribed to "${event.name}" alerts on ${r.onFolder ? `the folder ${r.folderPath}` : 'this document'}.`,
        `To stop them: DELETE alerts/${r.subscriptionId}`,
      ].join('\n'),
      created_by_id: me,
    })),
  );
}
