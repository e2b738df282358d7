/** CORS: only the origins of CORS_ORIGINS get cross-origin access; every other origin gets no CORS headers. */
import { Harness } from '../harness.js';

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
