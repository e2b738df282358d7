/** PUBLIC_URL: behind a proxy, meta.href and every pagination link show the public address, never ours. */
import { BASE, Harness } from '../harness.js';
import { adminApi, type Api } from './support.js';

const PUBLIC = 'https://api.example.test/quire';
let h: Harness;
let A: Api;

beforeAll(async () => {
  h = await Harness.start({ publicUrl: PUBLIC });
  A = await adminApi(h);
});
afterAll(() => h.stop());

test('meta.href and the pagination links are built on PUBLIC_URL', async () => {
  const path = `/groups/${(await A.get('/groups')).body.data[0].id}/users`;
  const r = await A.get(`${path}?limit=1&offset=1`);
  expect(r.status).toBe(200);
  expect(r.body.meta.href).toBe(`${PUBLIC}${A.t.root}${path}?limit=1&offset=1`);
  const links = ['href', 'first', 'last', 'next', 'previous'].map((k) => r.body.pagination[k]).filter(Boolean);
  expect(links.length).toBeGreaterThanOrEqual(4);
  for (const link of links) expect(link.startsWith(`${PUBLIC}${A.t.root}${path}?`)).toBe(true);
  expect(r.text).not.toContain(BASE);
});

test('errors and the token endpoint show it too', async () => {
  const missing = await A.get('/sites/0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f');
  expect(missing.body.meta.href).toBe(`${PUBLIC}${A.t.root}/sites/0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f`);
  const refused = await h.request('POST', '/oauth/token', { raw: 'grant_type=password&username=x&password=y&client_id=z&client_secret=w', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expect(refused.body.meta.href).toBe(`${PUBLIC}/oauth/token`);
});
