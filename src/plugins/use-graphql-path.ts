/**
 * `/graphql` with doubled slashes (`//graphql`, `/graphql//`, as a client joining a base URL that
 * ends in `/` makes them) is `/graphql`, as REST paths collapse them: Yoga matches its endpoint by
 * a URLPattern, whose polyfill reads a leading `//` as a host, and answered them with a 404.
 * First among the plugins, it gives every other one the plain path: in the URL they are handed
 * (Yoga's own endpoint check reads that one), which the adapter parses once for a request from
 * Node's server and hands on as is, or, for a request given to `fetch`, which it parses from the
 * request when first read, in the request.
 */
import type { Plugin } from 'graphql-yoga';
import { isGraphQLPath } from './error-answer.js';

export function useGraphQLPath(): Plugin {
  return {
    onRequest({ request, url, setRequest, fetchAPI }) {
      const href = request.url;
      // Most requests have no `//` after the scheme's: nothing to parse.
      if (!href.includes('//', href.indexOf('//') + 2)) return;
      const plain = new URL(href);
      if (!plain.pathname.includes('//') || !isGraphQLPath(plain)) return;
      plain.pathname = '/graphql';
      if (url instanceof fetchAPI.URL) url.pathname = plain.pathname;
      else setRequest(new fetchAPI.Request(plain, request));
    },
  };
}
