/**
 * PostgreSQL text cannot hold U+0000. A request carrying one is refused as a 400 before anything
 * reads it, on either face: in the URL (path or query, as %00) here for every request, in a
 * GraphQL request's parameters here, and in a REST body where it is parsed (`refuseNul`, the
 * same check).
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../log.js';
import { refuseNul } from '../rest/body.js';
import { throwAsGraphQL } from '../graphql-errors.js';
import { badRequest } from '../errors.js';
import { errorAnswer } from './error-answer.js';

export function useNoNul(log: Logger): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if (!/%00/.test(url.pathname + url.search)) return;
      const where = /%00/.test(url.pathname) ? 'path' : 'query string';
      endResponse(errorAnswer(request, url, badRequest(`The request ${where} must not contain NUL (%00) characters.`), log));
    },
    onParams({ params }) {
      try {
        refuseNul(params, 'request');
      } catch (e) {
        throwAsGraphQL(e);
      }
    },
  };
}
