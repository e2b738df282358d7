/** HEAD on a GET route answers as GET would, without the body. */
import { Harness, type TestTenant } from '../harness.js';

let h: Harness;
let t: TestTenant;
let token: string;

beforeAll(async () => ({ h, t, token } = await Harness.withTenant()));
afterAll(() => h.stop());

test('HEAD gives GET\'s status and headers, Content-Length too, and no body, for successes and errors alike', async () => {
  for (const [path, status] of [
    [`${t.root}/sites`, 200],
    [`${t.root}/sites/00000000-0000-7000-8000-000000000001`, 404],
    [`${t.root}/sites/not-a-guid`, 400],
    [`${t.root}/nowhere`, 404],
    [`${t.root}/documents/CreateDocumentZipFile`, 405],
    ['/oauth/token', 405],
  ] as const) {
    const get = await h.request('GET', path, { token });
    const head = await h.request('HEAD', path, { token });
    expect([path, get.status, head.status]).toEqual([path, status, status]);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('allow')).toBe(get.headers.get('allow'));
    // The length of the envelope GET sends: it was one more, the envelope saying "HEAD".
    expect([path, head.headers.get('content-length')]).toEqual([path, String(Buffer.byteLength(get.text))]);
  }
});

test('HEAD on a route with no GET is still a 405 naming the methods', async () => {
  const r = await h.request('HEAD', '/oauth/token');
  expect(r.status).toBe(405);
  expect(r.headers.get('allow')).toBe('POST');
});

test('a 405\'s Allow names HEAD wherever it names GET: HEAD is served on every GET row', async () => {
  for (const [method, path, allow] of [
    ['DELETE', `${t.root}/sites`, 'GET, HEAD, POST'],
    ['POST', `${t.root}/users/me`, 'GET, HEAD'],
    ['DELETE', `${t.root}/documents/getdocumentzipfilestatus`, 'GET, HEAD'],
    ['PUT', '/oauth/token', 'POST'],
    ['POST', '/healthz', 'GET, HEAD'],
  ] as const) {
    const r = await h.request(method, path, { token });
    expect([method, path, r.status, r.headers.get('allow')]).toEqual([method, path, 405, allow]);
    expect(r.body.meta.errors[0].message).toBe(`${method} is not allowed here; use ${allow.split(', ').join(' or ')}.`);
  }
});
