/**
 * MAX_BODY_BYTES on /graphql, as on the REST routes (Yoga's own default would be 25 MB). A
 * Content-Length is checked up front and bounds the body (the HTTP parser reads no further), so
 * only a body without one (chunked) is read here, counted as it streams in. Yoga's built-in limit
 * pipes every body through a transform stream instead, which cost more than the rest of a small
 * query's parsing.
 */
import type { Plugin } from 'graphql-yoga';
import { throwAsGraphQL } from './graphql-errors.js';
import { declaredLength, readBodyBytes } from './rest/body.js';

export function useGraphQLBodyLimit(maxBytes: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      try {
        if (declaredLength(request, maxBytes) !== undefined) return;
      } catch (e) {
        throwAsGraphQL(e);
      }
      if (!requestParser || !request.body) return;
      setRequestParser(async (req) => {
        // Bytes, not text: a multipart body may carry binary parts.
        const body = await readBodyBytes(req, maxBytes).catch(throwAsGraphQL);
        return requestParser(new fetchAPI.Request(req.url, { method: req.method, headers: req.headers, body: new Uint8Array(body) }));
      });
    },
  };
}
