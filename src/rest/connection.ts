/**
 * The client's connection behind a request (Node's response, from the adapter's server context),
 * for an answer that cannot be finished: a download whose file store fails midway has sent its
 * head and Content-Length, and only closing the connection tells the client its answer is short.
 * Kept on the request itself, like its id.
 */
const CONNECTION = Symbol('connection');

export interface ConnectionContext {
  res?: { destroy(): void };
}

type Marked = Request & { [CONNECTION]?: { destroy(): void } };

export function setConnection(request: Request, serverContext: ConnectionContext | undefined): void {
  if (serverContext?.res) (request as Marked)[CONNECTION] = serverContext.res;
}

/** Closes the request's connection at once (none without a server: app.fetch). */
export function cutConnection(request: Request): void {
  (request as Marked)[CONNECTION]?.destroy();
}
