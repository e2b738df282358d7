/**
 * GraphiQL's page on `GET /graphql` with `Accept: text/html` (Yoga's rule), rendered once: about
 * 9 MB of HTML, its assets bundled. It changes only with a deploy (or its options), so it carries a
 * strong ETag, a hash of the page, and `Cache-Control: no-cache`: a browser asks again each time
 * and gets a 304 without the page. A client that takes br or gzip gets the page so compressed,
 * each compressed once, off the event loop, by the first request that asks for it. Yoga's own
 * (its `graphiql` option) rendered the page anew for every request and sent it whole, with no
 * validator; nothing here compresses other answers (src/plugins/use-content-encoding.ts is about
 * request bodies, which are never decompressed).
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { Response } from '@whatwg-node/fetch';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { noneMatchNames } from '../rest/conditional.js';
import { isGraphQLPath } from './error-answer.js';

type Coding = 'br' | 'gzip' | 'identity';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Levels the first request can wait for (about 0.6 s for br, 0.2 s for gzip): br's quality 11 made
 * 1.71 MB of the 9.05 MB in 15 s, 6 makes 1.92 MB; gzip's level 9 saves 10 KB more than its 6.
 */
const compress: Record<Exclude<Coding, 'identity'>, (page: Buffer) => Promise<Buffer>> = {
  br: (page) => brotli(page, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 6, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: page.length } }),
  gzip: (page) => gzip(page, { level: 6 }),
};

/** The coding to send: br, else gzip, where Accept-Encoding takes it (`q=0` refuses one; `*` takes any); else none. */
function codingFor(acceptEncoding: string | null): Coding {
  if (!acceptEncoding) return 'identity';
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.toLowerCase().split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim());
    const q = params.find((p) => p.startsWith('q='));
    weights.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const takes = (c: string) => (weights.get(c) ?? weights.get('*') ?? 0) > 0;
  return takes('br') ? 'br' : takes('gzip') ? 'gzip' : 'identity';
}

/** `map`'s promise for `key`, made by `make` on first call; one that rejects is forgotten, so the next call tries again. */
export function cachedUnlessRejected<K, V>(map: Map<K, Promise<V>>, key: K, make: () => Promise<V>): Promise<V> {
  let p = map.get(key);
  if (!p) {
    map.set(key, (p = make()));
    p.catch(() => map.delete(key));
  }
  return p;
}

export function useGraphiQL(options: GraphiQLOptions): Plugin {
  // Rendered and hashed on the first request for it, not at start-up: most apps (tests, workers) never serve it.
  let page: { html: Buffer; hash: string } | undefined;
  const encoded = new Map<Coding, Promise<Buffer>>();

  const answer = async (request: Request): Promise<Response> => {
    if (!page) {
      const html = Buffer.from(renderGraphiQL(options));
      page = { html, hash: createHash('sha256').update(html).digest('base64url').slice(0, 27) };
    }
    const { html, hash } = page;
    const coding = codingFor(request.headers.get('accept-encoding'));
    // Each coding is its own representation, with its own strong tag (RFC 9110 8.8.3).
    const tag = coding === 'identity' ? `"${hash}"` : `"${hash}-${coding}"`;
    const headers: Record<string, string> = { etag: tag, 'cache-control': 'no-cache', vary: 'Accept, Accept-Encoding' };
    if (noneMatchNames(request.headers.get('if-none-match'), tag)) return new Response(null, { status: 304, headers });
    let body = html;
    if (coding !== 'identity') {
      body = await cachedUnlessRejected(encoded, coding, () => compress[coding](html));
      headers['content-encoding'] = coding;
    }
    return new Response(body as BodyInit, { status: 200, headers: { ...headers, 'content-type': 'text/html; charset=utf-8', 'content-length': String(body.length) } });
  };

  return {
    onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET' || !request.headers.get('accept')?.includes('text/html') || !isGraphQLPath(url)) return;
      return answer(request).then(endResponse);
    },
  };
}
