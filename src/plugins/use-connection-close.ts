/**
 * `Connection: close` on an answer after which the connection should not go on, and Node closes
 * it once the answer is out. During shutdown, so a keep-alive client learns from its last answer
 * that the connection ends there, and does not send its next request into a reset. On any answer
 * sent before the request's body has all arrived (a 413, a 401 or a 415 refused up front): to keep
 * the connection Node would read, and the client have to send, the rest of it first (whatever the
 * status: `POST emails` sends its refusals as HTTP 200). Every 413 closes too, also one for a body
 * read whole.
 */
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { isDraining } from '../draining.js';
import { carriesBody } from '../rest/body.js';

/**
 * Whether Node's request (none under app.fetch) has a body not yet received whole. One that says
 * it has none (carriesBody) has none, though `complete` is still false while an answer given at
 * once on its head (a health check) is made.
 */
function bodyArriving(request: Request, req: IncomingMessage | undefined): boolean {
  return req?.complete === false && carriesBody(request);
}

export function useConnectionClose(): Plugin {
  return {
    onResponse({ request, response, serverContext }) {
      const req = (serverContext as { req?: IncomingMessage } | undefined)?.req;
      if (isDraining() || response.status === 413 || bodyArriving(request, req)) response.headers.set('connection', 'close');
    },
  };
}
