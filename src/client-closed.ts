/**
 * A request whose client closed its connection before the request was read whole (it hung up
 * mid-body, or Node refused the rest as malformed and closed it). Node's HTTP server then fails
 * the request's body with `Error('aborted')`, code ECONNRESET: the code a reset database
 * connection has too (src/db/unavailable.ts tells them apart with `isAborted`), but made by the
 * server itself, so it carries no `syscall`.
 */
import { AppError } from './errors.js';

/** Node's error for a request body its client stopped sending. */
export function isAborted(e: Record<string, unknown>): boolean {
  return e.code === 'ECONNRESET' && e.message === 'aborted' && e.syscall === undefined;
}

/** The 499 for `error` when it is its client's hang-up, looking through GraphQL's and our wrappers. */
export function clientClosedFrom(error: unknown): AppError | undefined {
  let e: unknown = error;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const r = e as Record<string, unknown>;
    if (isAborted(r)) return clientClosed();
    e = r.originalError ?? r.cause;
  }
  return undefined;
}

const clientClosed = () =>
  new AppError('CLIENT_CLOSED_REQUEST', 'The connection closed before the request was read whole.', 'The client closed the connection (or Node refused the rest of the request as malformed) before its body was read; nothing was done.');
