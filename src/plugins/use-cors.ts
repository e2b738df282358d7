/**
 * CORS for the origins of CORS_ORIGINS (src/rest/cors.ts), by @whatwg-node/server's useCORS as
 * Yoga's built-in one was, but only a preflight (OPTIONS with Origin and
 * Access-Control-Request-Method) gets its empty 204. Yoga's answered every OPTIONS so, unknown
 * paths and requests without Origin too; any other OPTIONS now routes as any method does (a 405
 * with Allow on a REST path, a 404 off it). The CORS headers go on every answer, as before.
 */
import type { Plugin } from 'graphql-yoga';
import { useCORS } from '@whatwg-node/server';
import { corsFor } from '../rest/cors.js';

const isPreflight = (request: Request) =>
  request.method.toUpperCase() === 'OPTIONS' && request.headers.has('origin') && request.headers.has('access-control-request-method');

export function useCors(origins: string[]): Plugin {
  const cors = useCORS(corsFor(origins)) as Plugin;
  return {
    onRequest(payload) {
      if (isPreflight(payload.request)) return cors.onRequest?.(payload);
    },
    onResponse: cors.onResponse,
  };
}
