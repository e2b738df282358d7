/** CORS: only the origins of CORS_ORIGINS get cross-origin access; every other origin gets no CORS headers. */
import { Harness } from '../harness.js';
import { startServer, stop, type Started } from '../server-process.js';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://evil.example.net';

const preflight = (h: Harness, origin: string) =>
  h.request('OPTIONS', '/api/v1/c/d/users', {
    headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, content-type' },
  });

describe('with an allowlist', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ corsOrigins: [ALLOWED, 'http://localhost:3000'] });
  });
  afterAll(() => h.stop());

  test('a preflight from an allowed origin is answered for that origin, with credentials', async () => {
    const r = await preflight(h, ALLOWED);
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    expect(r.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(r.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(r.headers.get('vary')).toContain('Origin');
  });

  test("an allowed origin may send a download's Range and validators and read its range headers", async () => {
    const r = await h.request('OPTIONS', '/api/v1/c/d/files/x', {
      headers: { origin: ALLOWED, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization, range, if-range, if-none-match' },
    });
    const allowed = (r.headers.get('access-control-allow-headers') ?? '').split(',').map((x) => x.trim());
    expect(allowed).toEqual(expect.arrayContaining(['range', 'if-range', 'if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since']));
    const get = await h.request('GET', '/api/openapi.json', { headers: { origin: ALLOWED } });
    const exposed = (get.headers.get('access-control-expose-headers') ?? '').split(',').map((x) => x.trim());
    expect(exposed).toEqual(expect.arrayContaining(['accept-ranges', 'content-range', 'etag', 'content-disposition', 'www-authenticate']));
  });

  test('a preflight or a request from another origin gets no CORS headers', async () => {
    const r = await preflight(h, OTHER);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    const get = await h.request('GET', '/api/openapi.json', { headers: { origin: OTHER } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
    expect(get.headers.get('vary')).toContain('Origin');
  });

  test('an allowed origin\'s simple request names that origin', async () => {
    const get = await h.request('GET', '/api/openapi.json', { headers: { origin: 'http://localhost:3000' } });
    expect(get.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });
});

describe('by default (no CORS_ORIGINS)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  test('no origin is reflected, on REST or /graphql', async () => {
    expect((await preflight(h, OTHER)).headers.get('access-control-allow-origin')).toBeNull();
    const g = await h.request('POST', '/graphql', { headers: { origin: OTHER }, body: { query: '{ __typename }' } });
    expect(g.status).toBe(401);
    expect(g.headers.get('access-control-allow-origin')).toBeNull();
    expect(g.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('OPTIONS that is not a preflight, on the real server', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, CORS_ORIGINS: ALLOWED });
  }, 60_000);
  afterAll(async () => {
    if (s?.child.exitCode === null) await stop(s);
  });
  const options = (path: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${s.port}${path}`, { method: 'OPTIONS', headers });

  test('a preflight is still the empty 204, with CORS headers for an allowed origin only', async () => {
    for (const path of ['/api/v1/c/d/users', '/graphql', '/nothing']) {
      const allowed = await options(path, { origin: ALLOWED, 'access-control-request-method': 'PUT' });
      expect([path, allowed.status, await allowed.text()]).toEqual([path, 204, '']);
      expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      const other = await options(path, { origin: OTHER, 'access-control-request-method': 'PUT' });
      expect([path, other.status]).toEqual([path, 204]);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  test('is routed like any method: the 405 envelope with Allow on a REST path, the 404 envelope off it', async () => {
    // Without Origin, or with one but no Access-Control-Request-Method: no preflight either way.
    for (const headers of [{}, { origin: ALLOWED }] as Record<string, string>[]) {
      const rest = await options('/api/v1/c/d/users', headers);
      expect(rest.status).toBe(405);
      expect(rest.headers.get('allow')).toMatch(/GET/);
      expect(await rest.json()).toMatchObject({ meta: { status: 405, method: 'OPTIONS', errors: [{ code: 'METHOD_NOT_ALLOWED' }] } });
      const token = await options('/oauth/token', headers);
      expect([token.status, token.headers.get('allow')]).toEqual([405, 'POST']);
      const unknown = await options('/nothing', headers);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ meta: { status: 404, errors: [{ code: 'NOT_FOUND' }] } });
    }
    // An allowed origin still gets its CORS headers on the envelope.
    expect((await options('/nothing', { origin: ALLOWED })).headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  test('on /graphql is a 405 GraphQL error with the code every 405 has (METHOD_NOT_ALLOWED) and Allow, as any method but GET and POST', async () => {
    for (const method of ['OPTIONS', 'PUT', 'DELETE']) {
      const r = await fetch(`http://127.0.0.1:${s.port}/graphql`, { method, headers: { 'content-type': 'application/json' } });
      expect([method, r.status, r.headers.get('allow')]).toEqual([method, 405, 'GET, POST']);
      const message = `${method} is not allowed on /graphql; use GET or POST.`;
      expect(await r.json()).toEqual({ errors: [{ message, extensions: { code: 'METHOD_NOT_ALLOWED', developerMessage: message } }] });
    }
  });
});
