/**
 * `suppress_response_codes=true` (the .NET client sends it): every REST answer, whichever plugin
 * gave it, goes out as HTTP 200 with the real status kept in `meta.status`. /graphql keeps its status.
 */
import type { Plugin } from 'graphql-yoga';
import { httpOk } from '../rest/envelope.js';
import { queryParam } from '../rest/match.js';
import { isGraphQLPath } from './error-answer.js';

export function useSuppressResponseCodes(): Plugin {
  return {
    onResponse({ request, response, setResponse }) {
      // The cheap test first: nearly no request carries the parameter.
      if (response.status === 200 || !/suppress_response_codes/i.test(request.url)) return;
      const url = new URL(request.url);
      if (isGraphQLPath(url) || (queryParam(url.searchParams, 'suppress_response_codes') ?? '').toLowerCase() !== 'true') return;
      setResponse(httpOk(response));
    },
  };
}
