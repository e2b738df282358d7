/**
 * How large a request body may be: MAX_BODY_BYTES, and on a route whose multipart body carries
 * files as well, as much more as they may come to: FILE_MAX_BYTES where a row is marked `upload`
 * (streamed into the file store), EMAIL_MAX_ATTACHMENT_BYTES where it is marked `attachments`
 * (`POST emails`); a token request's is smaller (`tokenBodyBytes`). Asked only of a body declared
 * larger than MAX_BODY_BYTES (or not declared as a number), so other requests are not matched twice.
 */
import type { Config } from '../config.js';
import { RouteMatcher, segmentsOf } from './match.js';
import { isSofaRoute, type SofaRoute } from './routes.js';

type Limits = Pick<Config, 'maxBodyBytes' | 'fileMaxBytes' | 'emailMaxAttachmentBytes'>;

/** What a route's multipart body may carry in files beside MAX_BODY_BYTES of everything else. */
export const fileBytesOf = (route: SofaRoute, config: Limits): number =>
  route.upload ? config.fileMaxBytes : route.attachments ? config.emailMaxAttachmentBytes : 0;

/**
 * A token request's body limit (MAX_BODY_BYTES when that is lower). Anyone may send one, so the
 * server holds no more than this for it; its parameters (a refresh token is the longest, under
 * 2 KiB) fit many times over.
 */
export const TOKEN_MAX_BODY_BYTES = 64 * 1024;

/** The token endpoint's body limit under this config. */
export const tokenBodyBytes = (config: Pick<Config, 'maxBodyBytes'>) => Math.min(config.maxBodyBytes, TOKEN_MAX_BODY_BYTES);

/** A request's body limit, and the route row it is of (whose answer a refusal takes the form of), if any. */
export interface BodyLimit {
  bytes: number;
  route: SofaRoute | undefined;
}

export function bodyLimitOf(config: Limits): (request: Request, url: URL) => BodyLimit {
  const matcher = new RouteMatcher();
  return (request, url) => {
    const segments = segmentsOf(url.pathname);
    const found = segments && matchOrNone(matcher, request.method, segments, url.searchParams);
    const row = found && 'match' in found ? found.match.route : undefined;
    if (row && !isSofaRoute(row) && row.handler === 'token') return { bytes: tokenBodyBytes(config), route: undefined };
    const route = row && isSofaRoute(row) ? row : undefined;
    return { bytes: config.maxBodyBytes + (route ? fileBytesOf(route, config) : 0), route };
  };
}

/** The match, or none where choosing a row refuses the query string (the REST plugin answers that 400). */
function matchOrNone(matcher: RouteMatcher, method: string, segments: string[], query: URLSearchParams) {
  try {
    return matcher.match(method, segments, query);
  } catch {
    return undefined;
  }
}
