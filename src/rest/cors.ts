/**
 * Cross-origin access for the browsers of CORS_ORIGINS only. Yoga's CORS plugin reflects any
 * origin (with credentials) when given no list; this answers per request: an origin on the list
 * gets itself back, any other gets no CORS headers at all, so its browser withholds the answer.
 */
import type { CORSOptions } from 'graphql-yoga';

export function corsFor(origins: string[]): (request: Request) => CORSOptions {
  const allowed = new Set(origins);
  return (request) => {
    const origin = request.headers.get('origin');
    if (!origin || !allowed.has(origin)) return false;
    return {
      origin: [origin],
      credentials: true,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      // A download's ranges and validators (Files): a viewer such as pdf.js asks for ranges and reads
      // Accept-Ranges and Content-Range, a cache revalidates, a page names the file it saved.
      allowedHeaders: ['authorization', 'content-type', 'x-request-id', 'range', 'if-range', 'if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since'],
      exposedHeaders: ['x-request-id', 'retry-after', 'accept-ranges', 'content-range', 'etag', 'content-disposition', 'www-authenticate'],
      maxAge: 600,
    };
  };
}
