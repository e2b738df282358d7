/**
 * GET /metrics in the Prometheus text format, outside the tenant paths; behind
 * `Authorization: Bearer <METRICS_TOKEN>` when that is set. Every answer is counted and timed
 * under its route-table row (src/rest/route-label.ts), or under its fixed path, or `unmatched`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { Response } from '@whatwg-node/fetch';
import type { Services } from '../context.js';
import { createMetrics } from '../metrics.js';
import { errorEnvelope, methodNotAllowed } from '../rest/envelope.js';
import { withoutTrailingSlashes } from '../rest/match.js';
import { routeLabelOf } from '../rest/route-label.js';
import { isGraphQLPath } from './error-answer.js';
import { requestSlot } from '../request-slot.js';

const FIXED = new Set(['/healthz', '/readyz', '/metrics']);
const digest = (s: string) => createHash('sha256').update(s).digest();

export function useMetrics(services: Services): Plugin {
  const metrics = createMetrics(services.orm, services.reads, services.bodies, services.connections);
  const expected = services.config.metricsToken === undefined ? undefined : digest(`Bearer ${services.config.metricsToken}`);
  const started = requestSlot<number>('timedStart');

  const labelOf = (request: Request) => {
    const row = routeLabelOf(request);
    if (row) return row;
    // Parsed only for answers outside the route table: REST rows, the hot path, need no URL here.
    const url = new URL(request.url);
    if (isGraphQLPath(url)) return '/graphql';
    const path = withoutTrailingSlashes(url.pathname).toLowerCase();
    return FIXED.has(path) ? path : 'unmatched';
  };

  const scrape = async (request: Request) => {
    // Compared as digests: equal lengths, and no early exit that would time the token.
    if (expected && !timingSafeEqual(digest(request.headers.get('authorization') ?? ''), expected)) {
      const message = 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.';
      return errorEnvelope(request, 401, [{ code: 'UNAUTHORIZED', message, developerMessage: message }], {}, { 'www-authenticate': 'Bearer' });
    }
    const text = await metrics.registry.metrics();
    return new Response(text, { headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' } });
  };

  return {
    onRequest({ request, url, endResponse }) {
      started.set(request, performance.now());
      if (withoutTrailingSlashes(url.pathname).toLowerCase() !== '/metrics') return;
      if (request.method !== 'GET' && request.method !== 'HEAD') return endResponse(methodNotAllowed(request, ['GET']));
      return scrape(request).then(endResponse);
    },
    onResponse({ request, response }) {
      const start = started.get(request);
      if (start === undefined) return;
      metrics.observe(request.method, labelOf(request), response.status, (performance.now() - start) / 1000);
    },
  };
}
