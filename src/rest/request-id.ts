/** One id per request: the caller's X-Request-Id when it is sane, else a new UUID. */
import { randomUUID } from 'node:crypto';
import { requestSlot } from '../request-slot.js';

const ID = requestSlot<string>('requestId');
const SANE = /^[A-Za-z0-9._-]{1,128}$/;

/** The id of a request that sent this X-Request-Id (also for requests refused before they became a fetch Request). */
export const requestIdFrom = (given: string | null | undefined): string => (given && SANE.test(given) ? given : randomUUID());

export function requestIdOf(request: Request): string {
  let id = ID.get(request);
  if (!id) {
    id = requestIdFrom(request.headers.get('x-request-id'));
    ID.set(request, id);
  }
  return id;
}
