/** One id per request: the caller's X-Request-Id when it is sane, else a new UUID. */
import { randomUUID } from 'node:crypto';

// Kept on the request itself: a WeakMap entry per request costs the garbage collector more.
const ID = Symbol('requestId');
const SANE = /^[A-Za-z0-9._-]{1,128}$/;

/** The id of a request that sent this X-Request-Id (also for requests refused before they became a fetch Request). */
export const requestIdFrom = (given: string | null | undefined): string => (given && SANE.test(given) ? given : randomUUID());

export function requestIdOf(request: Request): string {
  const r = request as Request & { [ID]?: string };
  let id = r[ID];
  if (!id) {
    id = requestIdFrom(request.headers.get('x-request-id'));
    r[ID] = id;
  }
  return id;
}
