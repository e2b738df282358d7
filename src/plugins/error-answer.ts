/**
 * The one answer to an error thrown outside GraphQL execution (by a plugin, the REST runner or
 * the token endpoint), in the face the request came in on: the REST envelope, or a GraphQL
 * `{errors}` body on /graphql. The error is mapped by `mapError` either way, as execution errors are.
 */
import { mapError, outcomeOf } from '../graphql-errors.js';
import type { Logger } from '../log.js';
import { errorEnvelope, jsonResponse } from '../rest/envelope.js';
import { requestIdOf } from '../rest/request-id.js';
import { isTokenPath, oauthErrorCode, oauthErrorResponse } from '../rest/token.js';

/** `/graphql` in any case, with or without a trailing slash: Yoga's endpoint (src/app.ts). */
export const isGraphQLPath = (url: URL) => /^\/graphql\/?$/i.test(url.pathname);

export function errorAnswer(request: Request, url: URL, error: unknown, log: Logger): Response {
  const mapped = mapError(error, requestIdOf(request), log);
  const o = outcomeOf([mapped]);
  // The token endpoint's errors all carry the OAuth keys, also those no grant gave (a 413, NUL in the path, a 405).
  if (isTokenPath(url)) return oauthErrorResponse(request, o.status, oauthErrorCode(o.status), o.errors, o.meta, o.headers);
  if (!isGraphQLPath(url)) return errorEnvelope(request, o.status, o.errors, o.meta, o.headers);
  // As Yoga renders its own errors: the HTTP status and headers are the response's, not an extension.
  const { http: _http, ...extensions } = mapped.extensions as Record<string, unknown>;
  return jsonResponse(o.status, { errors: [{ message: mapped.message, extensions }] }, { ...o.headers, 'x-request-id': requestIdOf(request) });
}
