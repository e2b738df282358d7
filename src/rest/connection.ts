/**
 * The client's connection behind a request (Node's response, from the adapter's server context),
 * for an answer that cannot be finished: a download whose file store fails midway has sent its
 * head and Content-Length, and only closing the connection tells the client its answer is short.
 */
import { requestSlot } from '../request-slot.js';

const CONNECTION = requestSlot<{ destroy(): void }>('connection');

export interface ConnectionContext {
  res?: { destroy(): void };
}

export function setConnection(request: Request, serverContext: ConnectionContext | undefined): void {
  if (serverContext?.res) CONNECTION.set(request, serverContext.res);
}

/** Closes the request's connection at once (none without a server: app.fetch). */
export function cutConnection(request: Request): void {
  CONNECTION.get(request)?.destroy();
}
