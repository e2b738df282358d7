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

export const publicUrlOf = (request: Request): string => PUBLIC.get(request) ?? request.url;
