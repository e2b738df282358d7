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
      allowedHeaders: ['authorization', 'content-type', 'x-request-id'],
      exposedHeaders: ['x-request-id', 'retry-after'],
      maxAge: 600,
    };
  };
}
