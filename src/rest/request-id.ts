/**
 * One id per request: the caller's X-Request-Id when it is sane, else a new UUID. It is also kept
 * in async-local storage so that error masking, which sees no context, can quote it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

const ids = new WeakMap<Request, string>();
const current = new AsyncLocalStorage<string>();
const SANE = /^[A-Za-z0-9._-]{1,128}$/;

export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (!id) {
    const given = request.headers.get('x-request-id');
    id = given && SANE.test(given) ? given : randomUUID();
    ids.set(request, id);
    current.enterWith(id);
  }
  return id;
}

export const currentRequestId = (): string => current.getStore() ?? 'unknown';
