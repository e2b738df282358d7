/**
 * GET /healthz: the process is up. GET /readyz: its dependencies answer, each named
 * (`{"status":"ready","database":"up"}`, or 503 with `"database":"down"`), within a second
 * whatever the database does: a probe that waits longer than that counts as down. Once the
 * process is shutting down, 503 `{"status":"draining"}`.
 */
import type { Plugin } from 'graphql-yoga';
import type { Services } from '../context.js';
import { isDraining } from '../draining.js';
import { jsonResponse, methodNotAllowed } from '../rest/envelope.js';
import { withoutTrailingSlashes } from '../rest/match.js';

/** How long /readyz waits for the database before it calls it down: under a probe's usual 1 s timeout. */
export const READY_TIMEOUT_MS = 800;

function withinDeadline(check: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS)));
  return Promise.race([check.then(() => true, () => false), late]).finally(() => clearTimeout(timer));
}

export function useHealth(services: Services): Plugin {
  const ready = async () => {
    // Shutting down: PORT takes no new connection, and a balancer asking here (HEALTH_PORT stays
    // open through the drain) must send nothing more.
    if (isDraining()) return jsonResponse(503, { status: 'draining' }, { 'cache-control': 'no-store' });
    // On the read pool: pg drops a connection whose query timed out, so probes during a freeze leave none stuck.
    const database = await withinDeadline(services.reads.query('select 1'));
    const body = { status: database ? 'ready' : 'unavailable', database: database ? 'up' : 'down' };
    return jsonResponse(database ? 200 : 503, body, { 'cache-control': 'no-store' });
  };
  return {
    // Synchronous for every other path: a promise here would put each request's remaining
    // onRequest hooks on the asynchronous path.
    onRequest({ url, request, endResponse }) {
      const path = withoutTrailingSlashes(url.pathname).toLowerCase();
      if (path !== '/healthz' && path !== '/readyz') return;
      if (request.method !== 'GET' && request.method !== 'HEAD') return endResponse(methodNotAllowed(request, ['GET']));
      if (path === '/healthz') return endResponse(jsonResponse(200, { status: 'ok' }));
      return ready().then(endResponse);
    },
  };
}
