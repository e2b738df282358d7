/**
 * Who sent each request, as its verified token says: recorded where the token is checked
 * (src/context.ts), read by the body budget (the tenant's part its body takes, src/body-budget.ts)
 * and the access line (src/plugins/use-request-log.ts). None for a request without a valid token.
 */
import { requestSlot } from './request-slot.js';

/** The ids of a request's sender (its token's claims: never the token). */
export interface SenderIds {
  tenantId: string;
  userId: string;
}

const senders = requestSlot<SenderIds>('sender');

/** Records `sender` as the one of `request` (its verified token's claims, kept as they are). */
export function recordSender(request: Request, sender: SenderIds): void {
  senders.set(request, sender);
}

/** The sender of `request`, if its token was verified. */
export function senderOfRequest(request: Request): SenderIds | undefined {
  return senders.get(request);
}
