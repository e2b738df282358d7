/**
 * How large a request body may be: MAX_BODY_BYTES, and on a route whose multipart body carries
 * files as well, as much more as they may come to: FILE_MAX_BYTES where a row is marked `upload`
 * (streamed into the file store), EMAIL_MAX_ATTACHMENT_BYTES where it is marked `attachments`
 * (`POST emails`). Asked only of a body declared larger than MAX_BODY_BYTES (or not declared as a
 * number), so other requests are not matched twice.
 */
import type { Config } from '../config.js';
import { RouteMatcher, segmentsOf } from './match.js';
import { isSofaRoute, type SofaRoute } from './routes.js';

type Limits = Pick<Config, 'maxBodyBytes' | 'fileMaxBytes' | 'emailMaxAttachmentBytes'>;

/** What a route's multipart body may carry in files beside MAX_BODY_BYTES of everything else. */
export const fileBytesOf = (route: SofaRoute, config: Limits): number =>
  route.upload ? config.fileMaxBytes : route.attachments ? config.emailMaxAttachmentBytes : 0;

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
    const route = found && 'match' in found && isSofaRoute(found.match.route) ? found.match.route : undefined;
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
