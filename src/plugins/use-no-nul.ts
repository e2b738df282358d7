/**
 * PostgreSQL text cannot hold U+0000. A request carrying one is refused as a 400 before anything
 * reads it, on either face: in the URL (path or query, as %00) here for every request (and a query
 * string whose escapes are not UTF-8, which would reach a parameter as U+FFFD), in a
 * GraphQL request's parameters here (its variables, and escapes in its query's literals), and in
 * a REST body where it is parsed (`refuseNul`, the same check).
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../log.js';
import { isMultipart, nonUtf8Escape, refuseNul, refuseReplaced } from '../rest/body.js';
import { throwAsGraphQL } from '../graphql-errors.js';
import { badRequest } from '../errors.js';
import { errorAnswer } from './error-answer.js';

/**
 * Whether the query text writes U+0000 as an escape (`\u0000` in a string literal), which the
 * parser turns into the character itself. One pass: an escaped backslash (`\\`) is skipped whole.
 */
export function escapesNul(query: string): boolean {
  for (let i = query.indexOf('\\'); i !== -1 && i < query.length; i = query.indexOf('\\', i)) {
    if (query[i + 1] === 'u' && query.slice(i + 2, i + 6) === '0000') return true;
    i += query[i + 1] === '\\' ? 2 : 1;
  }
  return false;
}

export function useNoNul(log: Logger): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      // Escapes that are not UTF-8 (`%FF`) would reach a query parameter as U+FFFD; in the path they are refused where it is split.
      // The likeliest cause is a % sent raw, a like wildcard before two hex digits (`like '%ad%'`).
      const escape = nonUtf8Escape(url.search);
      if (escape !== undefined) {
        const message = `The request query string has percent-escapes that are not valid UTF-8, such as '${escape}': send a literal % (such as a like wildcard) as %25, and other text escaped as its UTF-8 bytes.`;
        endResponse(errorAnswer(request, url, badRequest(message), log));
        return;
      }
      if (!/%00/.test(url.pathname + url.search)) return;
      const where = /%00/.test(url.pathname) ? 'path' : 'query string';
      endResponse(errorAnswer(request, url, badRequest(`The request ${where} must not contain NUL (%00) characters.`), log));
    },
    onParams({ params, request }) {
      try {
        refuseNul(params, 'request');
        if (isMultipart(request.headers.get('content-type'))) refuseReplaced(params, 'multipart request body');
        if (typeof params.query === 'string' && escapesNul(params.query)) throw badRequest('The query must not contain NUL (\\u0000) characters.');
      } catch (e) {
        throwAsGraphQL(e);
      }
    },
  };
}
