/** GET /healthz: the process is up. GET /readyz: the database answers. */
import type { Plugin } from 'graphql-yoga';
import type { Services } from '../context.js';
import { jsonResponse } from './envelope.js';

export function useHealth(services: Services): Plugin {
  return {
    async onRequest({ url, request, endResponse }) {
      const path = url.pathname.replace(/\/+$/, '').toLowerCase();
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      if (path === '/healthz') return endResponse(jsonResponse(200, { status: 'ok' }));
      if (path !== '/readyz') return;
      try {
        await services.orm.em.getConnection().execute('select 1');
        endResponse(jsonResponse(200, { status: 'ready' }));
      } catch {
        endResponse(jsonResponse(503, { status: 'unavailable', reason: 'The database does not answer.' }));
      }
    },
  };
}
