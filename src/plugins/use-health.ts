/** GET /healthz: the process is up. GET /readyz: the database answers. */
import type { Plugin } from 'graphql-yoga';
import type { Services } from '../context.js';
import { jsonResponse } from '../rest/envelope.js';

export function useHealth(services: Services): Plugin {
  const ready = async () => {
    try {
      await services.orm.em.getConnection().execute('select 1');
      return jsonResponse(200, { status: 'ready' });
    } catch {
      return jsonResponse(503, { status: 'unavailable', reason: 'The database does not answer.' });
    }
  };
  return {
    // Synchronous for every other path: a promise here would put each request's remaining
    // onRequest hooks on the asynchronous path.
    onRequest({ url, request, endResponse }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      const path = url.pathname.replace(/\/+$/, '').toLowerCase();
      if (path === '/healthz') return endResponse(jsonResponse(200, { status: 'ok' }));
      if (path === '/readyz') return ready().then(endResponse);
    },
  };
}
