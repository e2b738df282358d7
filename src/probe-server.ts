/**
 * HEALTH_PORT: a second listener for an orchestrator's probes and the metrics scraper (GET
 * /healthz, /readyz, /metrics, answered by the app as on PORT). MAX_CONNECTIONS and
 * MAX_CONNECTIONS_PER_ADDRESS count only PORT's connections: there a probe is one more, and at the
 * limit it was closed unanswered like any other, so a liveness probe had a process that was only
 * busy restarted, and metrics went dark exactly when they were needed. Every other path is a 404
 * here, so the API is never served past its limits; this listener bounds its own connections
 * (PROBE_CONNECTIONS), so probes cannot run the process out of file descriptors either.
 */
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from './log.js';
import { createHttpServer, refuse } from './http-server.js';
import { withoutTrailingSlashes } from './rest/match.js';

const PROBE_PATHS = ['/healthz', '/readyz', '/metrics'];

/** Connections the probe listener holds at once; past it Node closes a new one as it comes. */
const PROBE_CONNECTIONS = 64;

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** `handle` for the probe paths, a 404 naming them for every other. */
function probesOnly(handle: Handler, log: Logger): Handler {
  return (req, res) => {
    const path = withoutTrailingSlashes((req.url ?? '').split('?')[0]).toLowerCase();
    if (PROBE_PATHS.includes(path)) return handle(req, res);
    refuse(req, res, `HEALTH_PORT serves only ${PROBE_PATHS.join(', ')}; the API is on PORT.`, log, 404, 'NOT_FOUND');
  };
}

/** The probe listener on `port` (0 picks a free one), listening when this resolves. */
export async function listenForProbes(options: http.ServerOptions, handle: Handler, log: Logger, port: number, host: string): Promise<http.Server> {
  const server = createHttpServer(options, probesOnly(handle, log), log);
  server.maxConnections = PROBE_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    // A failure to listen names HEALTH_PORT, not PORT (src/start-failure.ts).
    const failed = (e: Error) => reject(Object.assign(e, { setting: 'HEALTH_PORT' }));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  return server;
}
