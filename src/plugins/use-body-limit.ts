/**
 * MAX_BODY_BYTES on both faces (more on upload routes: `limitOf`, src/rest/body-limit.ts). A
 * Content-Length is checked up front for every request and bounds the body (the HTTP parser reads
 * no further). A body without one (chunked) is counted as
 * it streams in: by the REST runner's `readBody`, and on /graphql by the request parser set
 * here. Yoga's built-in limit pipes every body through a transform stream instead, which cost
 * more than the rest of a small query's parsing.
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../log.js';
import { throwAsGraphQL } from '../graphql-errors.js';
import { declaredLength, readBodyBytes } from '../rest/body.js';
import { errorAnswer } from './error-answer.js';

export function useBodyLimit(maxBytes: number, limitOf: (request: Request, url: URL) => number, log: Logger): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      try {
        // Number(null) is 0, and a malformed length NaN: declaredLength refuses it.
        declaredLength(request, Number(request.headers.get('content-length')) > maxBytes ? limitOf(request, url) : maxBytes);
      } catch (e) {
        endResponse(errorAnswer(request, url, e, log));
      }
    },
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      if (request.headers.has('content-length') || !requestParser || !request.body) return;
      setRequestParser(async (req) => {
        // Bytes, not text: a multipart body may carry binary parts.
        const body = await readBodyBytes(req, maxBytes).catch(throwAsGraphQL);
        return requestParser(new fetchAPI.Request(req.url, { method: req.method, headers: req.headers, body: new Uint8Array(body) }));
      });
    },
  };
}
