/** One id per request: the caller's X-Request-Id when it is sane, else a new UUID. */
import { randomUUID } from 'node:crypto';

const ids = new WeakMap<Request, string>();
const SANE = /^[A-Za-z0-9._-]{1,128}$/;

export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (!id) {
    const given = request.headers.get('x-request-id');
    id = given && SANE.test(given) ? given : randomUUID();
    ids.set(request, id);
  }
  return id;
}
