/**
 * Alert subscriptions (docs/decisions.md, "Alerts"): a user asks to be told by e-mail when an
 * event (src/alert-events.ts) happens to the documents of a folder or to one document
 * (src/domain/alert-mail.ts sends them). `usId` names the user (an id or a user name); left out,
 * the caller. Only an administrator subscribes or unsubscribes someone else, and only someone who
 * can see the folder or document can be subscribed to it.
 */
import { alertEventById, type AlertEvent } from '../alert-events.js';
import type { AppContext } from '../context.js';
import { deleteRows, insertRows } from '../db/tenant-writes.js';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import { isGuid, newId } from '../ids.js';
import { heldRow, loadRow } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { run, selectRows } from '../read/rows.js';
import { accessibleIds } from '../permissions/row-checks.js';
import { sql } from '../sql.js';
import { DELETED, documentRow } from './documents.js';

/** What a subscription names: a folder (for its documents) or one document. */
export interface AlertTarget {
  kind: 'folder' | 'document';
  /** The folder's id, or the document's own id (not a revision's). */
  id: string;
  /** The folder whose roles decide who may see it. */
  folderId: string;
  label: string;
  /** A deleted document: read, not subscribed to. */
  deleted?: boolean;
}

/** A folder by its id; `hold` (a subscription): held against its delete (heldRow), so one committed meanwhile is the 404 of an unknown folder. */
export async function folderTarget(ctx: AppContext, id: string, hold = false): Promise<AlertTarget> {
  const f = await (hold ? heldRow : loadRow)(ctx, resource('Folder'), id);
  return { kind: 'folder', id: f.id as string, folderId: f.id as string, label: `folder '${f.folderPath as string}'` };
}

/**
 * A document by its id or a revision's. `lock` (a subscription): its row is locked as a delete
 * locks it, so a delete that commits meanwhile is waited for and seen as one.
 */
export async function documentTarget(ctx: AppContext, id: string, lock = false): Promise<AlertTarget> {
  const d = await documentRow(ctx, id, lock);
  return { kind: 'document', id: d.documentId, folderId: d.folderId as string, label: `document '${d.name as string}'`, deleted: d.archive === DELETED };
}

function eventFor(eventId: string, target: AlertTarget): AlertEvent {
  const event = isGuid(eventId) ? alertEventById(eventId) : undefined;
  if (!event) throw notFound(`No alert event has the id '${eventId.slice(0, 64)}' (alertEvents lists them).`);
  if (!event.appliesTo.includes(target.kind)) throw badRequest(`The event '${event.name}' applies to ${event.appliesTo.map((k) => `${k}s`).join(' and ')} only.`, { field: 'eventId' });
  return event;
}

interface Subscriber {
  id: string;
  userid: string;
}

/**
 * The user `usId` names (an id or a user name, any case), or the caller; someone else only for an
 * administrator. Held against their delete (RowQuery.lock 'keyShare'): one committed meanwhile is
 * this 404 of an unknown user, not the foreign key's (a subscription) nor "has no alerts" (an
 * unsubscription, the delete having taken the user's subscriptions with it).
 */
async function subscriber(ctx: AppContext, usId: string | null | undefined): Promise<Subscriber> {
  const key = usId?.trim() || ctx.caller.userId;
  const where = isGuid(key) ? sql`t.id = ${key.toLowerCase()}` : sql`name_key(t.user_id) = name_key(${key})`;
  const [user] = await selectRows<Subscriber>(ctx.reader, resource('User'), { where: [where], lock: 'keyShare' });
  if (!user) throw notFound(`User '${key.slice(0, 64)}' was not found.`, { field: 'usId' });
  if (user.id !== ctx.caller.userId && !(await ctx.isAdmin())) throw forbidden('Only an administrator subscribes or unsubscribes another user.');
  return user;
}

/** Whether the user may see the target's folder (its roles, or an administrator): the bulk access check, for them. */
const canSee = async (ctx: AppContext, target: AlertTarget, userId: string) =>
  (await accessibleIds(ctx, resource('Folder'), [target.folderId], 'see', userId)).has(target.folderId);

/** Subscribes the user to the event on the target; subscribing again changes nothing. Returns the subscription's id. */
export async function subscribe(ctx: AppContext, target: AlertTarget, eventId: string, usId: string | null | undefined): Promise<string> {
  const event = eventFor(eventId, target);
  // These 409s refuse the target itself, or it with the user: no one value (AppError.field).
  if (target.deleted) throw conflict(`The ${target.label} is deleted: it can be read, not subscribed to.`);
  const user = await subscriber(ctx, usId);
  if (!(await canSee(ctx, target, user.id))) {
    throw conflict(`User '${user.userid}' cannot see ${target.label}: give them a role on the folder first.`);
  }
  await insertRows(
    ctx.reader,
    'alert_subscription',
    [{ id: newId(), event_id: event.id, [target.kind === 'folder' ? 'folder_id' : 'document_id']: target.id, user_id: user.id, created_by_id: ctx.caller.userId }],
    true,
  );
  const [row] = await run<{ id: string }>(
    ctx.reader,
    sql`select id from alert_subscription where tenant_id = ${ctx.tenantId} and object_id = ${target.id} and event_id = ${event.id} and user_id = ${user.id}`,
  );
  return row.id;
}

/** Ends the user's subscription to the event on the target; a 404 when there is none. */
export async function unsubscribe(ctx: AppContext, target: AlertTarget, eventId: string, usId: string | null | undefined): Promise<void> {
  const event = eventFor(eventId, target);
  const user = await subscriber(ctx, usId);
  const n = await deleteRows(ctx.reader, 'alert_subscription', sql`t.object_id = ${target.id} and t.event_id = ${event.id} and t.user_id = ${user.id}`);
  if (n === 0) throw notFound(`User '${user.userid}' has no '${event.name}' alerts on ${target.label}.`);
}

/**
 * Ends a subscription by its id: the subscriber's own, or any for an administrator. The delete's
 * count decides: of several at once, those that waited for the first find none (its 404).
 */
export async function deleteSubscription(ctx: AppContext, id: string): Promise<void> {
  const def = resource('AlertSubscription');
  const row = await loadRow(ctx, def, id);
  if (!(await deleteRows(ctx.reader, 'alert_subscription', sql`t.id = ${row.id as string}`))) throw notFound(`${def.label} '${id}' was not found.`);
}
