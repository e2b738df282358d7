import { Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.stop());

test('a new tenant logs in and lists its Home site', async () => {
  const t = await h.tenant();
  const token = await h.login(t);
  const r = await h.request('GET', `${t.root}/sites`, { token });
  expect(r.status).toBe(200);
  expect(r.body.data.map((s: { name: string }) => s.name)).toEqual(['Home']);
});
