/** Alerts: the events, and subscriptions to them (src/domain/alerts.ts). Who may call each: schema/alert.graphql. */
import { alertEventById, alertEvents, type AlertEvent } from '../alert-events.js';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { deleteSubscription, documentTarget, folderTarget, subscribe, unsubscribe, type AlertTarget } from '../domain/alerts.js';
import type { ListArgs } from '../read/paging.js';
import { underKey, type ParentKey } from '../read/parent-keys.js';
import { listPage, reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { computedMatching } from '../computed-records.js';

const SUBSCRIPTION = resource('AlertSubscription');

/** A document's alerts: their parent key, read by test/db/list-orders.test.ts for the index it needs. */
export const DOCUMENT_ALERTS: ParentKey = { column: 'document_id' };

interface OnFolder {
  id: string;
  eventId: string;
  usId?: string | null;
}
interface OnDocument {
  documentId: string;
  eventId: string;
  usId?: string | null;
}

const subscribed = async (ctx: AppContext, target: AlertTarget, a: OnFolder | OnDocument) => reread(ctx, SUBSCRIPTION, await subscribe(ctx, target, a.eventId, a.usId));
const unsubscribed = async (ctx: AppContext, target: AlertTarget, a: OnFolder | OnDocument) => {
  await unsubscribe(ctx, target, a.eventId, a.usId);
  return { success: true };
};

const eventsMatching = computedMatching<AlertEvent>('AlertEvent');

export const resolvers = {
  AlertEvent: {
    href: (e: AlertEvent) => `~/alertevents/${e.id}`,
    dataType: () => 'AlertEvent',
  },
  Query: {
    alertEvents: (_: unknown, { q }: { q?: string | null }, ctx: AppContext) => eventsMatching(ctx.reader, alertEvents, q)(),
    alertEvent: (_: unknown, { eventId }: { eventId: string }) => {
      const event = alertEventById(eventId);
      if (!event) throw notFound(`Alert event '${eventId}' was not found (GET alertevents lists them).`);
      return event;
    },
    documentAlerts: async (_: unknown, args: ListArgs & { documentId: string }, ctx: AppContext) => {
      const target = await documentTarget(ctx, args.documentId);
      return listPage(ctx, SUBSCRIPTION, args, [underKey(DOCUMENT_ALERTS, target.id)]);
    },
  },
  Mutation: {
    subscribeFolderAlert: async (_: unknown, a: OnFolder, ctx: AppContext) => subscribed(ctx, await folderTarget(ctx, a.id, true), a),
    unsubscribeFolderAlert: async (_: unknown, a: OnFolder, ctx: AppContext) => unsubscribed(ctx, await folderTarget(ctx, a.id), a),
    subscribeDocumentAlert: async (_: unknown, a: OnDocument, ctx: AppContext) => subscribed(ctx, await documentTarget(ctx, a.documentId, true), a),
    unsubscribeDocumentAlert: async (_: unknown, a: OnDocument, ctx: AppContext) => unsubscribed(ctx, await documentTarget(ctx, a.documentId), a),
    deleteAlertSubscription: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      await deleteSubscription(ctx, id);
      return { success: true };
    },
  },
};
