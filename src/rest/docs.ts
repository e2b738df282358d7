/**
 * GET /api/docs: a browsable reference of /api/openapi.json (Swagger UI, from the swagger-ui-dist
 * package, served from here: nothing is loaded from another origin, and the page's
 * Content-Security-Policy says so to the browser).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Response } from '@whatwg-node/fetch';
import { notFound } from '../errors.js';
import { publicUrlOf } from './public-url.js';
import { withoutTrailingSlashes, type Match } from './match.js';

const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Our start-up script: no inline script, so the policy can forbid them. */
const INIT = `window.ui = SwaggerUIBundle({
  url: document.currentScript.dataset.spec,
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const ASSETS = new Map<string, { type: string; body: () => string | Uint8Array<ArrayBuffer> }>(Object.entries({
  'swagger-ui.css': { type: 'text/css; charset=utf-8', body: () => fs.readFileSync(path.join(dist, 'swagger-ui.css'), 'utf8') },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: () => fs.readFileSync(path.join(dist, 'swagger-ui-bundle.js'), 'utf8') },
  'init.js': { type: 'text/javascript; charset=utf-8', body: () => INIT },
  // Named by the page, so a browser does not ask for /favicon.ico (a 404 in its console).
  'favicon-32x32.png': { type: 'image/png', body: () => new Uint8Array(fs.readFileSync(path.join(dist, 'favicon-32x32.png'))) },
}));
const loaded = new Map<string, string | Uint8Array<ArrayBuffer>>();

const POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function handleDocs(request: Request, m: Match): Response {
  const asset = m.params.asset;
  if (asset !== undefined) {
    const a = ASSETS.get(asset); // a Map: `toString` or `__proto__` is no asset
    if (!a) throw notFound(`The reference page has no asset '${asset.slice(0, 64)}'.`);
    let body = loaded.get(asset);
    if (body === undefined) loaded.set(asset, (body = a.body()));
    return new Response(body, { headers: { 'content-type': a.type, 'cache-control': 'public, max-age=3600' } });
  }
  // Addresses from the page's own (public) path, so a proxy's path prefix and a trailing slash both work.
  const page = withoutTrailingSlashes(new URL(publicUrlOf(request)).pathname);
  const spec = page.replace(/\/docs$/i, '/openapi.json');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>quire REST API v1 reference</title>
<link rel="icon" type="image/png" href="${escape(page)}/favicon-32x32.png">
<link rel="stylesheet" href="${escape(page)}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${escape(page)}/swagger-ui-bundle.js"></script>
<script src="${escape(page)}/init.js" data-spec="${escape(spec)}"></script>
</body>
</html>
`;
  return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': POLICY } });
}
