/**
 * How large a request body may be: MAX_BODY_BYTES, or on a route that streams an upload into the
 * file store (a row marked `upload`), FILE_MAX_BYTES more. Asked only of a body declared larger
 * than MAX_BODY_BYTES, so other requests are not matched twice.
 */
import type { Config } from '../config.js';
import { RouteMatcher, segmentsOf } from './match.js';
import { isSofaRoute } from './routes.js';

export function bodyLimitOf(config: Pick<Config, 'maxBodyBytes' | 'fileMaxBytes'>): (request: Request, url: URL) => number {
  const matcher = new RouteMatcher();
  return (request, url) => {
    const segments = segmentsOf(url.pathname);
    const found = segments && matcher.match(request.method, segments, url.searchParams);
    const route = found && 'match' in found ? found.match.route : undefined;
    return route && isSofaRoute(route) && route.upload ? config.maxBodyBytes + config.fileMaxBytes : config.maxBodyBytes;
  };
}
