/**
 * One structured log line per request, with its id, status and duration, and its sender's tenant
 * and user ids when its token was verified; the id is echoed back.
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../log.js';
import { senderOfRequest } from '../request-sender.js';
import { requestIdOf } from '../rest/request-id.js';
import { requestSlot } from '../request-slot.js';

export function useRequestLog(log: Logger): Plugin {
  const started = requestSlot<number>('loggedStart');
  return {
    onRequest({ request, url }) {
      if (log.isLevelEnabled('info')) started.set(request, performance.now());
      const requestId = requestIdOf(request);
      // With LOG_LEVEL=debug, a line as each request's head arrives (before its body is read).
      if (log.isLevelEnabled('debug')) log.debug({ requestId, method: request.method, path: url.pathname }, 'request received');
    },
    onResponse({ request, response }) {
      const requestId = requestIdOf(request);
      // REST responses carry it from the start; setting a header later costs the adapter its fast path.
      if (!response.headers.has('x-request-id')) response.headers.set('x-request-id', requestId);
      if (!log.isLevelEnabled('info')) return;
      const start = started.get(request);
      const url = new URL(request.url);
      const sender = senderOfRequest(request);
      log.info(
        {
          requestId,
          method: request.method,
          path: url.pathname,
          status: response.status,
          ms: start === undefined ? undefined : Math.round((performance.now() - start) * 10) / 10,
          tenantId: sender?.tenantId,
          userId: sender?.userId,
        },
        'request',
      );
    },
  };
}
