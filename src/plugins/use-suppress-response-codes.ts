/**
 * `suppress_response_codes=true` (the .NET client sends it): every REST answer, whichever plugin
 * gave it, goes out as HTTP 200 with the real status kept in `meta.status`. /graphql keeps its status,
 * and so do a download's 206 and 304 (src/rest/conditional.ts): they have no `meta`, and as a 200 a
 * range or an empty body would pass for the whole file; only a client that sends Range or a
 * validator gets them.
 */
import type { Plugin } from 'graphql-yoga';
import { httpOk } from '../rest/envelope.js';
import { queryParams } from '../rest/match.js';
import { isGraphQLPath } from './error-answer.js';

const KEPT = new Set([200, 206, 304]);

export function useSuppressResponseCodes(): Plugin {
  return {
    onResponse({ request, response, setResponse }) {
      // The cheap test first: nearly no request carries the parameter.
      if (KEPT.has(response.status) || !/suppress_response_codes/i.test(request.url)) return;
      const url = new URL(request.url);
      // Copies that disagree are the REST plugin's 400 (src/plugins/use-rest.ts), which keeps its status.
      const copies = queryParams(url.searchParams, 'suppress_response_codes');
      if (isGraphQLPath(url) || !copies.length || copies.some((v) => v.toLowerCase() !== 'true')) return;
      setResponse(httpOk(response));
    },
  };
}
