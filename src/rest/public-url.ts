/**
 * The URL a client sees for this request. Behind a proxy the request reaches us at an internal
 * address; with PUBLIC_URL set, `meta.href` and every pagination link use its origin and path
 * prefix instead.
 */
import { requestSlot } from '../request-slot.js';

const PUBLIC = requestSlot<string>('publicUrl');

/** Records the public URL of `request` under `base` (no-op when PUBLIC_URL is unset). */
export function markPublicUrl(request: Request, base: string | undefined): void {
  if (!base) return;
  // The path and query as sent: a URL object would percent-encode what the client left raw (`'`).
  const url = request.url;
  PUBLIC.set(request, `${base}${url.slice(url.indexOf('/', url.indexOf('//') + 2))}`);
}

/**
 * Query parameters that carry a secret: `p` (`users/{id}/webToken`'s password) and the token
 * endpoint's, which are refused in the query but would be echoed back in the refusal.
 */
const SECRET_PARAMS = new Set(['p', 'password', 'client_secret', 'refresh_token']);

/** Each secret parameter of a query as sent, its value left out (`p=`); the rest as it was written. */
function withoutSecrets(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const pairs = url.slice(q + 1).split('&');
  const keyOf = (pair: string) => {
    const key = pair.split('=')[0].replace(/\+/g, ' ');
    try {
      return decodeURIComponent(key).toLowerCase();
    } catch {
      return key.toLowerCase();
    }
  };
  return `${url.slice(0, q + 1)}${pairs.map((pair) => (SECRET_PARAMS.has(keyOf(pair)) ? `${pair.split('=')[0]}=` : pair)).join('&')}`;
}

/** This request's URL as its answer names it (`meta.href`, pagination links): public, and with no secret in its query. */
export const publicUrlOf = (request: Request): string => withoutSecrets(PUBLIC.get(request) ?? request.url);
