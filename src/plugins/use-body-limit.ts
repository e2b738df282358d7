/**
 * MAX_BODY_BYTES on both faces (more on routes that take files: `limitOf`, src/rest/body-limit.ts). A
 * Content-Length is checked up front for every request and bounds the body (the HTTP parser reads
 * no further). A body without one (chunked) is counted as
 * it streams in: by the REST runner's `readBody`, and on /graphql by the request parser set
 * here. Yoga's built-in limit pipes every body through a transform stream instead, which cost
 * more than the rest of a small query's parsing.
 *
 * The same parser reads a /graphql body that is text (any but multipart) as bytes first, to refuse
 * one that is not UTF-8 (and a form whose escapes are not) as the REST runner does: Yoga's own
 * parser decodes with U+FFFD in place of such bytes, and a variable would be stored so.
 *
 * Every /graphql body is read here, taken from the budget of bodies held at once
 * (src/body-budget.ts) and at its least pace (src/body-pace.ts), a multipart one too, whose parts
 * Yoga's own parser then reads from the bytes; what any request took, on
 * either face, is given back here once its answer is ready, and again (which gives back nothing
 * more) when Node's response closes: if a hook before this one's onResponse throws, or the handler
 * fails without an answer, the connection's end still gives it back.
 */
import type { ServerResponse } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../log.js';
import { throwAsGraphQL } from '../graphql-errors.js';
import { declaredLength, isMultipart, nonUtf8Escape, readBodyBytes, refuseNotUtf8 } from '../rest/body.js';
import { badRequest } from '../errors.js';
import type { BodyLimit } from '../rest/body-limit.js';
import type { BodyBudget } from '../body-budget.js';
import { asRouteSends } from '../rest/envelope.js';
import { errorAnswer } from './error-answer.js';

export function useBodyLimit(maxBytes: number, limitOf: (request: Request, url: URL) => BodyLimit, budget: BodyBudget, log: Logger): Plugin {
  return {
    onRequest({ request, url, endResponse, serverContext }) {
      // Given back however the exchange ends, also when an earlier answer's hooks never run.
      (serverContext as { res?: ServerResponse } | undefined)?.res?.once('close', () => budget.release(request));
      // Number(null) is 0, and a malformed length NaN: declaredLength refuses it.
      const limit = Number(request.headers.get('content-length')) <= maxBytes ? undefined : limitOf(request, url);
      try {
        declaredLength(request, limit?.bytes ?? maxBytes);
      } catch (e) {
        // In the form its route gives refusals: POST emails answers them as HTTP 200 (the connection still closes, src/plugins/use-connection-close.ts).
        endResponse(asRouteSends(limit?.route, errorAnswer(request, url, e, log)));
      }
    },
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      if (!requestParser || !request.body) return;
      const contentType = request.headers.get('content-type');
      // A multipart body may carry binary parts: its bytes are only counted.
      const text = !isMultipart(contentType);
      setRequestParser(async (req) => {
        const body = await readBodyBytes(req, maxBytes, budget).catch(throwAsGraphQL);
        if (text) {
          try {
            refuseNotUtf8(body, 'request body');
            if (/application\/x-www-form-urlencoded/i.test(contentType ?? '') && nonUtf8Escape(body.toString('utf8')) !== undefined) {
              throw badRequest('The form-encoded request body has percent-escapes that are not valid UTF-8 (such as %FF): escape the text\'s UTF-8 bytes.');
            }
          } catch (e) {
            throwAsGraphQL(e);
          }
        }
        return requestParser(new fetchAPI.Request(req.url, { method: req.method, headers: req.headers, body: new Uint8Array(body) }));
      });
    },
    // Every answer comes here, also one to a request whose client went away or that failed.
    onResponse({ request }) {
      budget.release(request);
    },
  };
}
