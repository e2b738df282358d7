/** HEAD on a GET route answers as GET would, without the body. */
import { Harness, type TestTenant } from '../harness.js';

let h: Harness;
let t: TestTenant;
let token: string;

beforeAll(async () => ({ h, t, token } = await Harness.withTenant()));
afterAll(() => h.stop());

test('HEAD gives GET\'s status and headers and no body, for successes and errors alike', async () => {
  for (const [path, status] of [
    [`${t.root}/sites`, 200],
    [`${t.root}/sites/00000000-0000-7000-8000-000000000001`, 404],
    [`${t.root}/nowhere`, 404],
  ] as const) {
    const get = await h.request('GET', path, { token });
    const head = await h.request('HEAD', path, { token });
    expect([path, get.status, head.status]).toEqual([path, status, status]);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    // The length of the envelope GET would send (with meta.method "HEAD").
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(Buffer.byteLength(get.text));
  }
});

test('HEAD on a route with no GET is still a 405 naming the methods', async () => {
  const r = await h.request('HEAD', '/oauth/token');
  expect(r.status).toBe(405);
  expect(r.headers.get('allow')).toBe('POST');
});
