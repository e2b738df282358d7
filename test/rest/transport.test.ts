/**
 * The transport rules of client-compatibility.md: path and query leniency, headers clients send,
 * Content-Length on the wire, the envelope on every error, limits, the configuration probes,
 * health checks and request ids — and a fuzz-ish batch that must never produce a 500.
 */
import http from 'node:http';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { BASE, Harness, type Reply, type TestTenant } from '../harness.js';
import { parseForm } from '../../src/rest/body.js';
import { withoutTrailingSlashes } from '../../src/rest/match.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

let h: Harness;
let t: TestTenant;
let token: string;

beforeAll(async () => ({ h, t, token } = await Harness.withTenant()));
afterAll(() => h.stop());

/** Every error body: the envelope with meta.errors[{code, message, developerMessage}], status == meta.status. */
function expectErrorEnvelope(r: Reply, status?: number) {
  if (status !== undefined) expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(r.body).toBeDefined();
  expect(r.body.meta).toMatchObject({ status: r.status, statusMsg: expect.any(String), method: expect.any(String), href: expect.any(String) });
  expect(Array.isArray(r.body.meta.errors)).toBe(true);
  expect(r.body.meta.errors.length).toBeGreaterThan(0);
  for (const e of r.body.meta.errors) {
    expect(typeof e.code).toBe('string');
    expect(typeof e.message).toBe('string');
    expect(e.message.length).toBeGreaterThan(0);
    expect(typeof e.developerMessage).toBe('string');
  }
  expect(r.body).not.toHaveProperty('data');
}

/** Any reply at all: JSON, an envelope whose meta.status is the HTTP status, never a 5xx. */
function expectSane(r: Reply, what: string) {
  expect([what, r.status < 500]).toEqual([what, true]);
  expect([what, r.headers.get('content-type') ?? '']).toEqual([what, expect.stringMatching(/^application\/json/)]);
  expect([what, r.body?.meta?.status]).toEqual([what, r.status]);
  expect(r.headers.get('content-length')).toBe(String(Buffer.byteLength(r.text)));
  if (r.status >= 400) expectErrorEnvelope(r);
}

/** h.request with a raw body (text or bytes) and raw headers. */
const send = (method: string, path: string, body?: Uint8Array | string, headers: Record<string, string> = {}): Promise<Reply> =>
  h.request(method, path, { raw: body, headers });

describe('paths', () => {
  test('are matched case-insensitively, with or without a trailing slash', async () => {
    const upper = `/API/V1/${t.customerAlias.toUpperCase()}/${t.databaseAlias.toUpperCase()}`;
    for (const path of [`${t.root}/sites`, `${t.root}/sites/`, `${upper}/Sites/`, `${upper}/SITES`, `${t.root}/Users/${t.adminId}/`, `${t.root}/users/ME`]) {
      const r = await h.request('GET', path, { token });
      expect([path, r.status]).toEqual([path, 200]);
      expect(r.body.data).toBeTruthy();
    }
  });

  test('tolerate a double slash after /api/v1 and elsewhere', async () => {
    for (const path of [`/api/v1//${t.customerAlias}/${t.databaseAlias}/sites`, `/api/v1/${t.customerAlias}//${t.databaseAlias}//sites//`, `//api/v1/${t.customerAlias}/${t.databaseAlias}/sites`]) {
      const r = await h.request('GET', path, { token });
      expect([path, r.status]).toEqual([path, 200]);
      expect(r.body.data.map((s: { name: string }) => s.name)).toContain('Home');
    }
  });

  test('an unknown route is a 404 envelope', async () => {
    for (const path of ['/', '/nothing', '/api', '/api/v1', `/api/v1/${t.customerAlias}`, `${t.root}`, `${t.root}/nothing`, `${t.root}/sites/${t.homeSiteId}/nothing`, '/api/v2/a/b/sites']) {
      const r = await h.request('GET', path, { token });
      expect([path, r.status]).toEqual([path, 404]);
      expectErrorEnvelope(r, 404);
      expect(r.body.meta.errors[0].code).toBe('NOT_FOUND');
    }
    // A long path or data type is named cut, not echoed whole.
    const long = await h.request('GET', `${t.root}/${'x'.repeat(7000)}`, { token });
    expect([long.status, long.body.meta.errors[0].message]).toEqual([404, `No resource matches GET ${`${t.root}/${'x'.repeat(7000)}`.slice(0, 256)}….`]);
    const type = await h.request('GET', `${t.root}/meta/${'y'.repeat(3000)}`, { token });
    expect([type.status, type.body.meta.errors[0].message]).toEqual([404, `Unknown data type '${'y'.repeat(64)}'. GET /meta lists the data types.`]);
  });

  test('a wrong method is a 405 envelope with Allow', async () => {
    const cases: [string, string, RegExp][] = [
      ['PATCH', `${t.root}/sites`, /GET/],
      ['DELETE', `${t.root}/users`, /GET/],
      ['POST', `${t.root}/users/me`, /GET/],
      ['DELETE', `${t.root}/sites`, /POST/],
      ['PUT', `/oauth/token`, /POST/],
      // Outside the route table alike: the same envelope, code and Allow (/graphql: test/rest/cors.test.ts).
      ['DELETE', '/healthz', /^GET, HEAD$/],
      ['POST', '/readyz/', /^GET, HEAD$/],
      ['POST', '/metrics', /^GET, HEAD$/],
    ];
    for (const [method, path, allow] of cases) {
      const r = await h.request(method, path, { token, headers: JSON_HEADERS });
      expect([method, path, r.status]).toEqual([method, path, 405]);
      expectErrorEnvelope(r, 405);
      expect([path, r.body.meta.method, r.body.meta.errors[0].code]).toEqual([path, method, 'METHOD_NOT_ALLOWED']);
      expect(r.headers.get('allow')).toMatch(allow);
    }
  });
});

describe('query strings', () => {
  test('+ and %20 both mean a space', async () => {
    for (const qs of ["q=name+eq+'Home'", "q=name%20eq%20'Home'", "q=name+eq%20'Home'", "q=%5Bname%5D+eq+%27Home%27"]) {
      const r = await h.request('GET', `${t.root}/sites?${qs}`, { token });
      expect([qs, r.status]).toEqual([qs, 200]);
      expect(r.body.data.map((s: { name: string }) => s.name)).toEqual(['Home']);
    }
    const site = await h.request('POST', `${t.root}/sites`, { token, body: { name: 'Two Words', description: 'x' } });
    expect(site.status).toBe(200);
    for (const qs of ["q=name+eq+'Two+Words'", "q=name%20eq%20'Two%20Words'"]) {
      const r = await h.request('GET', `${t.root}/sites?${qs}`, { token });
      expect(r.body.data.map((s: { name: string }) => s.name)).toEqual(['Two Words']);
    }
  });

  test('parameter names are case-insensitive and the .NET client\'s extra parameters are harmless', async () => {
    const r = await h.request('GET', `${t.root}/sites?Q=name+eq+'Home'&Fields=id,name&expand=true&Limit=5&Offset=0&suppress_response_codes=true`, { token });
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(1);
    expect(Object.keys(r.body.data[0]).sort()).toEqual(['dataType', 'href', 'id', 'name']);
  });

  test('a parameter sent twice is a 400 naming it unless both copies say the same: the route\'s arguments, paging, fields, the when-row\'s and suppress_response_codes', async () => {
    const get = (qs: string) => h.request('GET', `${t.root}/${qs}`, { token });
    for (const [qs, name] of [
      [`users?q=${encodeURIComponent("userid eq 'admin'")}&q=${encodeURIComponent("userid eq 'x'")}`, 'q'],
      ['sites?limit=5&limit=abc', 'limit'],
      ['sites?limit=5&Limit=-1', 'limit'],
      ['sites?offset=0&OFFSET=1', 'offset'],
      ['sites?fields=id&fields=name', 'fields'],
      ['folders?folderPath=/FF1&folderPath=/', 'folderPath'],
      ['folders?folderPath=/&folderPath=/FF1', 'folderPath'],
      ['users/me?suppress_response_codes=true&suppress_response_codes=false', 'suppress_response_codes'],
    ]) {
      const r = await get(qs);
      expectErrorEnvelope(r, 400);
      expect([qs, r.body.meta.errors[0].message]).toEqual([qs, expect.stringMatching(new RegExp(`^The query parameter '${name}' was sent 2 times with different values`))]);
    }
    const same = await get("sites?q=name+eq+'Home'&Q=name+eq+'Home'&limit=5&limit=5");
    expect(same.status).toBe(200);
    expect(same.body.data.map((s: { name: string }) => s.name)).toEqual(['Home']);
    // Parameters no route reads may repeat: they are ignored, as ever.
    expect((await get('sites?_=1&_=2')).status).toBe(200);
  });
});

describe('q on a route that takes none', () => {
  test('is a 400 saying so, on reads and writes alike; a blank q is not sent; a route that takes q still filters by it', async () => {
    const g = await h.request('POST', `${t.root}/groups`, { token, body: { name: `q${randomUUID().slice(0, 6)}`, description: 'd' } });
    for (const [method, path] of [
      ['GET', `sites/${t.homeSiteId}`],
      ['GET', `users/${t.adminId}`],
      ['GET', 'users/me'],
      ['GET', `documents/${randomUUID()}`],
      ['GET', `persisteddata/${randomUUID()}`],
      ['GET', 'meta'],
      ['DELETE', `sites/${randomUUID()}`],
      ['PUT', `groups/${g.body.data.id}`],
    ]) {
      for (const value of ["name eq 'nomatch'", '((((']) {
        const r = await h.request(method, `${t.root}/${path}?Q=${encodeURIComponent(value)}`, { token, body: method === 'PUT' ? { description: 'changed' } : undefined });
        expectErrorEnvelope(r, 400);
        expect([path, r.body.meta.errors[0].message]).toEqual([path, expect.stringMatching(/^(GET|DELETE|PUT) [^ ]+ takes no q: it filters nothing, so leave the query parameter 'q' out\.$/)]);
      }
    }
    expect((await h.request('GET', `${t.root}/groups/${g.body.data.id}`, { token })).body.data[0].description).toBe('d');
    expect((await h.request('GET', `${t.root}/sites/${t.homeSiteId}?q=`, { token })).status).toBe(200);
    expectErrorEnvelope(await h.request('GET', `${t.root}/groups/${g.body.data.id}?q=${encodeURIComponent("name eq 'nomatch'")}`, { token }), 404);
    // Other parameters a route does not read stay harmless (clients add their own).
    expect((await h.request('GET', `${t.root}/sites/${t.homeSiteId}?cachebuster=1&suppress_response_codes=false`, { token })).status).toBe(200);
  });
});

describe('input that once cost time out of proportion (each would time the test out before its fix)', () => {
  test('a form key sent 16,000 times (as many as a token request holds), before any login: answered, every value kept', async () => {
    const body = 'grant_type=password&' + 'a=1&'.repeat(16_000);
    const r = await send('POST', '/oauth/token', body, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(r.status).toBe(401); // no client: refused, after the whole body was read
    const parts = parseForm('a=1&'.repeat(50_000));
    expect((parts.a as string[]).length).toBe(50_000);
  });

  test('a token request body over 64 KiB is a 413 in the OAuth shape, however much MAX_BODY_BYTES allows: anyone may send one', async () => {
    // A parameter no grant reads, so what fits goes on to the grant (no client: a 401).
    const fits = 'grant_type=password&a=' + 'u'.repeat(64 * 1024 - 'grant_type=password&a='.length);
    expect((await send('POST', '/oauth/token', fits, { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(401);
    const over = await send('POST', '/oauth/token', fits + 'u', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ error: 'invalid_request', meta: { status: 413, errors: [{ code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than the limit of 65536 bytes.' }] } });
  });

  test('a path of 60,000 slashes is a 404 envelope; trailing slashes go in one pass', async () => {
    expectErrorEnvelope(await send('GET', `/${'/'.repeat(60_000)}x`), 404);
    expect(withoutTrailingSlashes(`${'/'.repeat(1_000_000)}x`)).toBe(`${'/'.repeat(1_000_000)}x`);
    expect(withoutTrailingSlashes('/metrics///')).toBe('/metrics');
  });

  test('a body of long numbers is read once; a number past a double\'s range is a 400', async () => {
    const numbers = `[${Array.from({ length: 3000 }, () => '9'.repeat(308)).join(',')}]`;
    expectErrorEnvelope(await send('POST', `${t.root}/sites`, numbers, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }), 400);
    const r = await send('POST', `${t.root}/sites`, '{"name":"n","description":1e400}', { authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    expectErrorEnvelope(r, 400);
    expect(r.body.meta.errors[0].message).toMatch(/number too large to keep/);
  });
});

describe('headers and bodies', () => {
  test('Content-Type: application/json on GET and DELETE with no body', async () => {
    const get = await h.request('GET', `${t.root}/sites`, { token, headers: JSON_HEADERS });
    expect(get.status).toBe(200);
    const g = await h.request('POST', `${t.root}/groups`, { token, body: { name: `g${randomUUID().slice(0, 6)}`, description: 'd' } });
    expect(g.status).toBe(200);
    const del = await h.request('DELETE', `${t.root}/groups/${g.body.data.id}`, { token, headers: JSON_HEADERS });
    expect(del.status).toBe(200);
    expect(del.body.meta.status).toBe(200);
    const gone = await h.request('GET', `${t.root}/groups/${g.body.data.id}`, { token, headers: JSON_HEADERS });
    expectErrorEnvelope(gone, 404);
  });

  test('a lone UTF-16 surrogate in a body or GraphQL variables is a 400 and nothing is made; a whole pair is kept', async () => {
    const name = `s${randomUUID().slice(0, 6)}`;
    for (const raw of [`{"name":"${name}\\ud800","description":"d"}`, `{"name":"${name}","description":"\\udc00x"}`, `{"name":"${name}","description":"d","\\ud800":1}`]) {
      const r = await h.request('POST', `${t.root}/sites`, { token, raw, headers: JSON_HEADERS });
      expectErrorEnvelope(r, 400);
      expect(r.body.meta.errors[0].message).toMatch(/lone UTF-16 surrogate/);
    }
    const gql = await h.request('POST', '/graphql', {
      token, headers: JSON_HEADERS, raw: `{"query":"mutation ($n: String!) { createSite(input: { name: $n, description: \\"d\\" }) { id } }","variables":{"n":"${name}\\udfff"}}`,
    });
    expect(gql.body.errors[0].message).toMatch(/lone UTF-16 surrogate/);
    expect((await h.request('GET', `${t.root}/sites?q=${encodeURIComponent(`name like '${name}%'`)}`, { token })).body.data).toEqual([]);
    const kept = await h.request('POST', `${t.root}/sites`, { token, raw: `{"name":"${name}\\ud83d\\ude00","description":"d"}`, headers: JSON_HEADERS });
    expect(kept.body.data.name).toBe(`${name}\u{1F600}`);
  });

  test('text that is not UTF-8 is a 400 saying so and nothing is made: JSON, form, multipart text parts, /graphql, the query string', async () => {
    const name = `u${randomUUID().slice(0, 6)}`;
    const bytes = (...parts: (string | number[] | Buffer)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
    // \xff\xfe; a sequence cut short; an encoded surrogate; an overlong '/'.
    for (const bad of [[0xff, 0xfe], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xc0, 0xaf]]) {
      for (const [raw, headers] of [
        [bytes(`{"name":"${name}`, bad, '","description":"d"}'), JSON_HEADERS],
        [bytes(`name=${name}`, bad, '&description=d'), FORM],
      ] as const) {
        const r = await h.request('POST', `${t.root}/sites`, { token, raw: new Uint8Array(raw), headers });
        expectErrorEnvelope(r, 400);
        expect(r.body.meta.errors[0].message).toMatch(/request body is not valid UTF-8/);
      }
    }
    // Escaped in a form, labelled so or not: the key is named.
    for (const headers of [FORM, {}, JSON_HEADERS]) {
      for (const raw of [`name=${name}%FFname&description=d`, `description=d&name=${name}%C3%28`, `name=${name}%E9t%E9&description=d`]) {
        const r = await h.request('POST', `${t.root}/sites`, { token, raw, headers });
        expectErrorEnvelope(r, 400);
        expect(r.body.meta.errors[0].message).toMatch(/value of 'name' has percent-escapes that are not valid UTF-8/);
      }
    }
    // Multipart text parts, with no charset or declaring UTF-8 (the Java client declares its caller's).
    const b = 'xYz';
    const part = (field: string, value: (string | number[])[], contentType?: string) =>
      bytes(`--${b}\r\nContent-Disposition: form-data; name="${field}"\r\n${contentType ? `Content-Type: ${contentType}\r\n` : ''}\r\n`, ...value, '\r\n');
    const MULTIPART = { 'content-type': `multipart/form-data; boundary=${b}` };
    for (const type of [undefined, 'text/plain; charset=UTF-8']) {
      const raw = bytes(part('name', [name, [0xff]], type), part('description', ['d']), `--${b}--\r\n`);
      const r = await h.request('POST', `${t.root}/sites`, { token, raw: new Uint8Array(raw), headers: MULTIPART });
      expectErrorEnvelope(r, 400);
      expect(r.body.meta.errors[0].message).toMatch(/multipart text part 'name' is not valid text in its charset/);
    }
    // /graphql, with and without a Content-Length, as JSON and as a form.
    const query = 'mutation ($n: String!) { createSite(input: { name: $n, description: "d" }) { id } }';
    const gqlJson = bytes(`{"query":${JSON.stringify(query)},"variables":{"n":"${name}`, [0xff], '"}}');
    for (const headers of [JSON_HEADERS, { ...JSON_HEADERS, 'content-length': String(gqlJson.length) }]) {
      const r = await h.request('POST', '/graphql', { token, raw: new Uint8Array(gqlJson), headers });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].message).toMatch(/request body is not valid UTF-8/);
    }
    const gqlForm = `query=${encodeURIComponent(`mutation { createSite(input: { name: "${name}", description: "d" }) { id } }`).replace(name, `${name}%FF`)}`;
    const form = await h.request('POST', '/graphql', { token, raw: gqlForm, headers: FORM });
    expect(form.status).toBe(400);
    expect(form.body.errors[0].message).toMatch(/percent-escapes that are not valid UTF-8/);
    // A multipart /graphql request (Yoga decodes its parts itself).
    const [before, after] = JSON.stringify({ query, variables: { n: `${name}MARK` } }).split('MARK');
    const gqlMultipart = bytes(part('operations', [before, [0xff], after]), part('map', ['{}']), `--${b}--\r\n`);
    const mp = await h.request('POST', '/graphql', { token, raw: new Uint8Array(gqlMultipart), headers: MULTIPART });
    expect(mp.status).toBe(400);
    expect(mp.body.errors[0].message).toMatch(/multipart request body is not valid text/);
    // The query string, on both faces.
    const q = await h.request('GET', `${t.root}/sites?q=${encodeURIComponent(`name eq '${name}`)}%E9'`, { token });
    expectErrorEnvelope(q, 400);
    expect(q.body.meta.errors[0].message).toMatch(/query string has percent-escapes that are not valid UTF-8/);
    const gqlGet = await h.request('GET', `/graphql?query=${encodeURIComponent('{ sites(q: "name eq \'x')}%FF${encodeURIComponent('\'") { totalRecords } }')}`, { token });
    expect(gqlGet.status).toBe(400);
    expect(gqlGet.body.errors[0].message).toMatch(/query string has percent-escapes that are not valid UTF-8/);
    expect((await h.request('GET', `${t.root}/sites?q=${encodeURIComponent(`name like '${name}%'`)}`, { token })).body.data).toEqual([]);

    // Valid UTF-8 is kept as sent, U+FFFD itself included where bytes show it was sent; a part declaring Latin-1 is read as Latin-1.
    const kept = async (raw: Buffer | string, headers: Record<string, string>, expected: string) => {
      const r = await h.request('POST', `${t.root}/sites`, { token, raw: typeof raw === 'string' ? raw : new Uint8Array(raw), headers });
      expect([expected, r.status]).toEqual([expected, 200]);
      expect(r.body.data.name).toBe(expected);
    };
    await kept(bytes(`{"name":"${name}-1caf`, [0xc3, 0xa9], '","description":"d"}'), JSON_HEADERS, `${name}-1café`);
    await kept(bytes(`{"name":"${name}-2`, [0xef, 0xbf, 0xbd], '","description":"d"}'), JSON_HEADERS, `${name}-2\ufffd`);
    await kept(`name=${name}-3caf%C3%A9%EF%BF%BD%F0%9F%98%80%25FF&description=d`, FORM, `${name}-3café\ufffd\u{1F600}%FF`);
    await kept(bytes(part('name', [`${name}-4caf`, [0xe9]], 'text/plain; charset=ISO-8859-1'), part('description', ['d']), `--${b}--\r\n`), MULTIPART, `${name}-4café`);
    await kept(bytes(part('name', [`${name}-5caf`, [0xc3, 0xa9]]), part('description', ['d']), `--${b}--\r\n`), MULTIPART, `${name}-5café`);
    const ok = await h.request('GET', `${t.root}/sites?q=${encodeURIComponent(`name eq '${name}-1caf`)}%C3%A9'`, { token });
    expect(ok.body.data.map((s: { name: string }) => s.name)).toEqual([`${name}-1café`]);
  });

  test('a body labelled with a charset other than UTF-8 is a 415 that says to send UTF-8, as /graphql answers, and nothing is made: JSON, form, multipart, an upload, the token endpoint', async () => {
    const name = `c${randomUUID().slice(0, 6)}`;
    const auth = { authorization: `Bearer ${token}` };
    const json = (n: string) => JSON.stringify({ name: n, description: 'd' });
    const multipart = (n: string) => `--XX\r\nContent-Disposition: form-data; name="name"\r\n\r\n${n}\r\n--XX\r\nContent-Disposition: form-data; name="description"\r\n\r\nd\r\n--XX--\r\n`;
    const refusal = (charset: string) => `The request body is declared as charset=${charset}: send it as UTF-8 (charset=utf-8, or no charset).`;
    for (const [type, raw, charset] of [
      ['application/json; charset=latin1', json(name), 'latin1'],
      ['application/JSON;charset="ISO-8859-1"', json(name), 'ISO-8859-1'],
      ['application/x-www-form-urlencoded; charset=windows-1252', `name=${name}&description=d`, 'windows-1252'],
      ['text/plain; charset=utf-16', json(name), 'utf-16'],
      ['multipart/form-data; boundary=XX; charset=latin1', multipart(name), 'latin1'],
    ]) {
      const r = await send('POST', `${t.root}/sites`, raw, { ...auth, 'content-type': type });
      expectErrorEnvelope(r, 415);
      expect([type, r.body.meta.errors[0]]).toEqual([type, expect.objectContaining({ code: 'UNSUPPORTED_MEDIA_TYPE', message: refusal(charset) })]);
    }
    // /graphql's refusal says the same.
    const gql = await send('POST', '/graphql', JSON.stringify({ query: '{ __typename }' }), { ...auth, 'content-type': 'application/json; charset=latin1' });
    expect([gql.status, gql.body.errors[0].message]).toEqual([415, refusal('latin1')]);
    const upload = await send('POST', `${t.root}/files`, multipart(name), { ...auth, 'content-type': 'multipart/form-data; boundary=XX; charset=latin1' });
    expectErrorEnvelope(upload, 415);
    expect(upload.body.meta.errors[0].message).toBe(refusal('latin1'));
    const form = new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username: t.adminUserId, password: t.password }).toString();
    const tokenAsked = await send('POST', '/oauth/token', form, { 'content-type': 'application/x-www-form-urlencoded; charset=latin1' });
    expect([tokenAsked.status, tokenAsked.body.error, tokenAsked.body.error_description]).toEqual([415, 'invalid_request', refusal('latin1')]);
    expect((await h.request('GET', `${t.root}/sites?q=${encodeURIComponent(`name like '${name}%'`)}`, { token })).body.data).toEqual([]);
    // UTF-8 in any spelling, its subset US-ASCII, or no charset: read.
    for (const [i, type] of ['application/json; charset=utf-8', 'application/json;charset=UTF8', 'application/json; charset="us-ascii"', 'application/json', 'multipart/form-data; boundary=XX; charset=UTF-8'].entries()) {
      const r = await send('POST', `${t.root}/sites`, type.startsWith('multipart') ? multipart(`${name}-${i}`) : json(`${name}-${i}`), { ...auth, 'content-type': type });
      expect([type, r.status, r.body.data?.name]).toEqual([type, 200, `${name}-${i}`]);
    }
    const utf8Token = await send('POST', '/oauth/token', form, { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' });
    expect(utf8Token.status).toBe(200);
  });

  test('successful responses carry the envelope with meta', async () => {
    const r = await h.request('GET', `${t.root}/sites?q=name+eq+'Home'`, { token });
    expect(r.body.meta).toEqual({ status: 200, statusMsg: 'OK', method: 'GET', href: expect.any(String) });
    // The address as received, query string included (a URL parser may percent-encode the quotes).
    expect(decodeURIComponent(r.body.meta.href)).toBe(`${BASE}${t.root}/sites?q=name+eq+'Home'`);
    expect(r.headers.get('content-length')).toBe(String(Buffer.byteLength(r.text)));
    expect(r.headers.get('transfer-encoding')).toBeNull();
  });

  test('a multipart body that is not one says so: an empty boundary, garbage (the token endpoint reads it as REST does); a well-formed one gets a token', async () => {
    const auth = { authorization: `Bearer ${token}` };
    for (const type of ['multipart/form-data; boundary=', 'multipart/form-data; boundary=""', 'multipart/form-data; boundary=; charset=utf-8']) {
      for (const path of [`${t.root}/sites`, `${t.root}/files`]) {
        const r = await send('POST', path, '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nn\r\n--x--\r\n', { ...auth, 'content-type': type });
        expectErrorEnvelope(r, 400);
        expect([type, path, r.body.meta.errors[0].message]).toEqual([type, path, expect.stringMatching(/^The multipart request body is malformed: the boundary its Content-Type names is empty/)]);
      }
    }
    const garbage = await send('POST', '/oauth/token', 'garbage', { 'content-type': 'multipart/form-data; boundary=XX' });
    expect([garbage.status, garbage.body.error]).toEqual([400, 'invalid_request']);
    expect(garbage.body.error_description).toMatch(/^The multipart request body is malformed/);
    const empty = await send('POST', '/oauth/token', 'garbage', { 'content-type': 'multipart/form-data; boundary=' });
    expect(empty.body.error_description).toMatch(/^The multipart request body is malformed: the boundary its Content-Type names is empty/);
    const fields = { grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username: t.adminUserId, password: t.password };
    const body = Object.entries(fields).map(([k, v]) => `--XX\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + '--XX--\r\n';
    const ok = await send('POST', '/oauth/token', body, { 'content-type': 'multipart/form-data; boundary=XX' });
    expect([ok.status, typeof ok.body.access_token]).toEqual([200, 'string']);
  });

  test('JSON labelled as a form is read as JSON, as a form labelled JSON is read as a form', async () => {
    const name = `j${randomUUID().slice(0, 6)}`;
    const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
    const r = await h.request('POST', `${t.root}/sites`, { token, raw: JSON.stringify({ name, description: 'labelled a form' }), headers: FORM });
    expect([r.status, r.body.data?.name, r.body.data?.description]).toEqual([200, name, 'labelled a form']);
    // Malformed JSON so labelled stays a form, whose key is then unknown: the name is missing.
    expectErrorEnvelope(await h.request('POST', `${t.root}/sites`, { token, raw: '{"name":', headers: FORM }), 400);
  });

  test('malformed JSON is a 400 envelope', async () => {
    for (const raw of ['{"name":', '{name: "x"}', "{'name':'x'}", '{"name":"x",}', '{"a":1}{"b":2}', '[1,2']) {
      const r = await h.request('POST', `${t.root}/sites`, { token, raw, headers: JSON_HEADERS });
      expect([raw, r.status]).toEqual([raw, 400]);
      expectErrorEnvelope(r, 400);
    }
  });

  test('a JSON body that is not an object is a 400 envelope', async () => {
    for (const raw of ['[]', '[{"name":"x","description":"y"}]', '"text"', '42', 'null', 'true']) {
      const r = await h.request('POST', `${t.root}/sites`, { token, raw, headers: JSON_HEADERS });
      expect([raw, r.status]).toEqual([raw, 400]);
      expectErrorEnvelope(r, 400);
    }
  });
});

describe('body size limit', () => {
  let hs: Harness;
  let ts: TestTenant;
  let tok: string;
  beforeAll(async () => {
    hs = await Harness.start({ maxBodyBytes: 2048 });
    ts = await hs.tenant();
    tok = await hs.login(ts);
  });
  afterAll(() => hs.stop());

  test('a body over the limit is a 413 envelope; one under it is fine', async () => {
    const big = JSON.stringify({ name: 'big', description: 'x'.repeat(4000) });
    const r = await hs.request('POST', `${ts.root}/sites`, { token: tok, raw: big, headers: JSON_HEADERS });
    expectErrorEnvelope(r, 413);
    expect(r.body.meta.errors[0].code).toBe('PAYLOAD_TOO_LARGE');
    const declared = await hs.request('POST', `${ts.root}/sites`, { token: tok, raw: big, headers: { ...JSON_HEADERS, 'content-length': String(big.length) } });
    expectErrorEnvelope(declared, 413);
    const small = await hs.request('POST', `${ts.root}/sites`, { token: tok, body: { name: 'small', description: 'x'.repeat(1000) } });
    expect(small.status).toBe(200);
    const badLength = await hs.request('POST', `${ts.root}/sites`, { token: tok, raw: '{"name":"x"}', headers: { ...JSON_HEADERS, 'content-length': '12abc' } });
    expectErrorEnvelope(badLength, 400);
    expect(badLength.body.meta.errors[0].message).toBe('The Content-Length header must be a whole number of bytes.');
    // The limit's own route lookup passes over a when-row's parameter sent twice: the 413, not a 500.
    const path = `${ts.root}/forminstance/${randomUUID()}/relateForm?relateToDocId=a&relateToDocId=b`;
    expectErrorEnvelope(await hs.request('PUT', path, { token: tok, raw: big, headers: { ...JSON_HEADERS, 'content-length': String(big.length) } }), 413);
  });

  test('/graphql has the same limit, with or without a Content-Length, and nothing oversized runs', async () => {
    const name = `gql-big-${randomUUID().slice(0, 6)}`;
    const big = JSON.stringify({
      query: 'mutation($s: SiteInput!) { createSite(input: $s) { id } }',
      variables: { s: { name, description: 'x'.repeat(4000) } },
    });
    const streamed = await hs.request('POST', '/graphql', { token: tok, raw: big, headers: JSON_HEADERS });
    const declared = await hs.request('POST', '/graphql', { token: tok, raw: big, headers: { ...JSON_HEADERS, 'content-length': String(big.length) } });
    for (const r of [streamed, declared]) {
      expect(r.status).toBe(413);
      expect(r.body.errors[0].message).toBe('The request body is larger than the limit of 2048 bytes.');
      expect(r.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    }
    const sites = await hs.request('GET', `${ts.root}/sites?q=${encodeURIComponent(`name eq '${name}'`)}`, { token: tok });
    expect(sites.body.data).toEqual([]);

    const badLength = await hs.request('POST', '/graphql', { token: tok, raw: '{"query":"{ __typename }"}', headers: { ...JSON_HEADERS, 'content-length': '12abc' } });
    expect(badLength.status).toBe(400);
    expect(badLength.body.errors[0].message).toBe('The Content-Length header must be a whole number of bytes.');

    const small = JSON.stringify({ query: '{ __typename }' });
    for (const headers of [JSON_HEADERS, { ...JSON_HEADERS, 'content-length': String(small.length) }]) {
      const r = await hs.request('POST', '/graphql', { token: tok, raw: small, headers });
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual({ __typename: 'Query' });
    }
  });

  test('the token endpoint has the same limit, answered with the OAuth keys too', async () => {
    const raw = new URLSearchParams({ grant_type: 'password', client_id: ts.clientId, client_secret: ts.clientSecret, username: 'admin', password: 'x'.repeat(5000) }).toString();
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    for (const headers of [form, { ...form, 'content-length': String(raw.length) }]) {
      const r = await hs.request('POST', `${ts.root}/OAuth/Token`, { raw, headers });
      expectErrorEnvelope(r, 413);
      expect(r.body).toMatchObject({ error: 'invalid_request', error_description: 'The request body is larger than the limit of 2048 bytes.' });
      expect(r.headers.get('cache-control')).toMatch(/no-store/);
    }
  });
});

describe('configuration probes, health and request ids', () => {
  test.each(['docapi', 'formsapi', 'objectsapi', 'studioapi', 'notificationapi', 'DocApi'])('GET configuration/%s says it is not enabled', async (name) => {
    const r = await h.request('GET', `${t.root}/configuration/${name}`, { token, headers: JSON_HEADERS });
    expect(r.status).toBe(200);
    expect(r.body.meta.status).toBe(200);
    expect(r.body.data.isEnabled).toBe(false);
  });

  test('/healthz and /readyz answer JSON without a token', async () => {
    for (const path of ['/healthz', '/readyz', '/healthz/', '/READYZ']) {
      const r = await h.request('GET', path);
      expect([path, r.status]).toEqual([path, 200]);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.body.status).toMatch(/ok|ready/);
    }
  });

  test('x-request-id is echoed on successes, errors and the token endpoint; a missing or insane one is replaced', async () => {
    const id = `req-${randomUUID()}`;
    const ok = await h.request('GET', `${t.root}/sites`, { token, headers: { 'x-request-id': id } });
    expect(ok.headers.get('x-request-id')).toBe(id);
    const missing = await h.request('GET', `${t.root}/nope`, { token, headers: { 'X-Request-Id': id } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toBe(id);
    const unauth = await h.request('GET', `${t.root}/sites`, { headers: { 'x-request-id': id } });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('x-request-id')).toBe(id);
    const tok = await h.request('POST', '/oauth/token', { raw: 'grant_type=password', headers: { 'x-request-id': id } });
    expect(tok.headers.get('x-request-id')).toBe(id);
    const none = await h.request('GET', `${t.root}/sites`, { token });
    expect(none.headers.get('x-request-id')).toMatch(/^[\w.-]{8,}$/);
    const insane = await h.request('GET', `${t.root}/sites`, { token, headers: { 'x-request-id': 'a b\tc<script>' } });
    expect(insane.headers.get('x-request-id')).not.toBe('a b\tc<script>');
    expect(insane.headers.get('x-request-id')).toMatch(/^[\w.-]+$/);
  });

  test('missing, expired and foreign tokens are error envelopes', async () => {
    expectErrorEnvelope(await h.request('GET', `${t.root}/sites`), 401);
    expectErrorEnvelope(await h.request('GET', `${t.root}/sites`, { token: 'garbage' }), 401);
    const other = await h.tenant();
    expectErrorEnvelope(await h.request('GET', `${t.root}/sites`, { token: await h.login(other) }), 403);
  });
});

/** A real HTTP server: what goes over the wire. */
describe('on the wire', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer(h.app.handle);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  interface Raw {
    status: number;
    headers: Record<string, string>;
    text: string;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    body: any;
  }

  /** Sends bytes as written (no client-side URL clean-up) and reads the whole reply. */
  function raw(head: string, body: Buffer = Buffer.alloc(0), toPort = port): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(toPort, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (c) => chunks.push(c));
      socket.on('error', reject);
      socket.on('end', () => {
        const all = Buffer.concat(chunks);
        const split = all.indexOf('\r\n\r\n');
        const lines = all.subarray(0, split).toString('latin1').split('\r\n');
        const status = Number(lines[0].split(' ')[1]);
        const headers: Record<string, string> = {};
        for (const l of lines.slice(1)) {
          const i = l.indexOf(':');
          headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
        }
        const text = all.subarray(split + 4).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status, headers, text, body: parsed });
      });
      const full = head.replace(/\r?\n/g, '\r\n') + '\r\n';
      socket.write(Buffer.concat([Buffer.from(full, 'latin1'), body]));
    });
  }

  function request(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer) {
    const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    if (body) lines.push(`Content-Length: ${body.length}`);
    return raw(lines.join('\r\n') + '\r\n', body);
  }

  function expectWireEnvelope(r: Raw, status: number) {
    expect(r.status).toBe(status);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.text)));
    expect(r.headers['transfer-encoding']).toBeUndefined();
    expect(r.body.meta.status).toBe(status);
  }

  test('successes and errors carry Content-Length and are not chunked', async () => {
    const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    expectWireEnvelope(await request('GET', `${t.root}/sites`, auth), 200);
    const body = Buffer.from(JSON.stringify({ name: `wire-${randomUUID().slice(0, 6)}`, description: 'd', siteType: 'Location' }));
    const post = await request('POST', `${t.root}/sites`, auth, body);
    expectWireEnvelope(post, 200);
    expect(Number(post.headers['content-length'])).toBeGreaterThan(0);
    expectWireEnvelope(await request('GET', `${t.root}/nothing`, auth), 404);
    expectWireEnvelope(await request('PATCH', `${t.root}/sites`, auth), 405);
    expectWireEnvelope(await request('GET', `${t.root}/sites`), 401);
    const form = Buffer.from(new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username: 'admin', password: t.password, scope: 'vault' }).toString());
    const tok = await request('POST', '/OAuth/Token', { 'Content-Type': 'application/x-www-form-urlencoded' }, form);
    expect(tok.status).toBe(200);
    expect(tok.headers['content-length']).toBe(String(Buffer.byteLength(tok.text)));
    expect(tok.headers['transfer-encoding']).toBeUndefined();
    const health = await request('GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.headers['content-length']).toBe(String(Buffer.byteLength(health.text)));
  });

  test('a chunked request body is read, and one over the limit is a 413', async () => {
    const json = JSON.stringify({ name: `chunked-${randomUUID().slice(0, 6)}`, description: 'd' });
    const chunked = `${json.length.toString(16)}\r\n${json}\r\n0\r\n\r\n`;
    const lines = [`POST ${t.root}/sites HTTP/1.1`, `Host: x`, 'Connection: close', `Authorization: Bearer ${token}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked'];
    const ok = await raw(lines.join('\r\n') + '\r\n', Buffer.from(chunked));
    expectWireEnvelope(ok, 200);

    // No Content-Length to go by: the limit must hold while the chunks stream in.
    const hs = await Harness.start({ maxBodyBytes: 2048 });
    const small = http.createServer(hs.app.handle);
    try {
      await new Promise<void>((r) => small.listen(0, '127.0.0.1', r));
      const ts = await hs.tenant();
      const tok = await hs.login(ts);
      const big = JSON.stringify({ name: 'big', description: 'x'.repeat(8000) });
      const chunks = big.match(/.{1,1000}/g)!.map((c) => `${c.length.toString(16)}\r\n${c}\r\n`).join('') + '0\r\n\r\n';
      const head = [`POST ${ts.root}/sites HTTP/1.1`, 'Host: x', 'Connection: close', `Authorization: Bearer ${tok}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked'];
      const smallPort = (small.address() as net.AddressInfo).port;
      expectWireEnvelope(await raw(head.join('\r\n') + '\r\n', Buffer.from(chunks), smallPort), 413);
    } finally {
      small.closeAllConnections();
      await new Promise((r) => small.close(r));
      await hs.stop();
    }
  });

  test('invalid percent-encoding and invalid UTF-8 in the path are 400/404 envelopes', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    for (const path of [
      `${t.root}/users/%E0%A4%A`,
      `${t.root}/users/%zz`,
      `${t.root}/sites/%`,
      `/api/v1/%zz/${t.databaseAlias}/sites`,
      `${t.root}/users/%C0%AF`,
      `${t.root}/users/%FF%FE`,
      `${t.root}/sites/${t.homeSiteId}%00`,
      `${t.root}/users/..%2F..%2Fetc%2Fpasswd`,
      `${t.root}/sites?q=%`,
      `${t.root}/sites?q=%E0%A4%A`,
      `${t.root}/sites?%zz=1`,
    ]) {
      const r = await request('GET', path, auth);
      expect([path, r.status]).toEqual([path, expect.any(Number)]);
      expect([path, r.status < 500]).toEqual([path, true]);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.body.meta.status).toBe(r.status);
      if (r.status >= 400) expect(r.body.meta.errors[0].message).toEqual(expect.any(String));
    }
    // Raw bytes that are not UTF-8 at all.
    const r = await raw(`GET ${t.root}/users/\xff\xfe HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\n`);
    expect(r.status).toBeLessThan(500);
    if (r.body) expect(r.body.meta.status).toBe(r.status);
  });
});

describe('fuzz: malformed input never yields a 500 and always the envelope', () => {
  let ft: TestTenant;
  let ftok: string;
  let userId: string;
  let groupId: string;
  beforeAll(async () => {
    ft = await h.tenant();
    ftok = await h.login(ft);
    const u = await h.request('POST', `${ft.root}/users?siteId=${ft.homeSiteId}`, {
      token: ftok,
      body: { userid: 'fuzzed', firstName: 'F', lastName: 'L', emailaddress: 'f@x.test', password: 'pw-fuzz' },
    });
    userId = u.body.data.id;
    const g = await h.request('POST', `${ft.root}/groups`, { token: ftok, body: { name: 'fuzz-group', description: 'd' } });
    groupId = g.body.data.id;
  });

  /** The write routes, with real ids so that bodies reach the resolvers. */
  const writes = () => [
    ['POST', `${ft.root}/sites`],
    ['PUT', `${ft.root}/sites/${ft.homeSiteId}`],
    ['POST', `${ft.root}/sites/${ft.homeSiteId}/groups`],
    ['POST', `${ft.root}/sites/${ft.homeSiteId}/users`],
    ['PUT', `${ft.root}/sites/${ft.homeSiteId}/users/${userId}`],
    ['PUT', `${ft.root}/sites/changeusersite`],
    ['PUT', `${ft.root}/sites/changegroupsite`],
    ['POST', `${ft.root}/groups`],
    ['PUT', `${ft.root}/groups/${groupId}`],
    ['POST', `${ft.root}/groups/${groupId}/users`],
    ['PUT', `${ft.root}/groups/${groupId}/users`],
    ['POST', `${ft.root}/users?siteId=${ft.homeSiteId}`],
    ['PUT', `${ft.root}/users/${userId}`],
    ['PUT', `${ft.root}/users/${userId}/password`],
    ['PUT', `${ft.root}/users/${userId}/userId`],
    ['POST', '/oauth/token'],
    ['POST', `${ft.root}/oauth/token`],
  ] as const;

  const reads = () => [
    `${ft.root}/sites`,
    `${ft.root}/users`,
    `${ft.root}/groups`,
    `${ft.root}/groups/${groupId}/users`,
    `${ft.root}/sites/${ft.homeSiteId}/users`,
    `${ft.root}/users/${userId}/groups`,
    `${ft.root}/meta`,
  ];

  const CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'text/plain', 'application/octet-stream', 'multipart/form-data; boundary=xyz', 'application/json; charset=utf-16', ''];

  async function check(method: string, path: string, body?: Uint8Array | string, contentType = 'application/json') {
    const headers: Record<string, string> = { authorization: `Bearer ${ftok}` };
    if (contentType) headers['content-type'] = contentType;
    const r = await send(method, path, body, headers);
    expectSane(r, `${method} ${path.slice(0, 200)} [${contentType}] ${typeof body === 'string' ? body.slice(0, 120) : body ? `<${body.length} bytes>` : ''}`);
    return r;
  }

  test('hand-picked bodies: wrong shapes, wrong types, deep nesting, invalid UTF-8', async () => {
    const deepArray = '['.repeat(20000) + ']'.repeat(20000);
    const deepObject = '{"a":'.repeat(20000) + '1' + '}'.repeat(20000);
    const bodies: (string | Uint8Array)[] = [
      '',
      ' ',
      '[]',
      '[{"name":"x","description":"y"}]',
      '"string"',
      '123',
      'null',
      'true',
      '{}',
      '{"name":123,"description":[]}',
      '{"name":{"a":1},"description":true}',
      '{"name":["a","b"],"description":"d"}',
      '{"name":null,"description":null}',
      '{"siteId":5,"name":"n","description":"d"}',
      '{"siteId":"not-a-guid","name":"n","description":"d"}',
      '{"enabled":"maybe","firstName":1e309}',
      '{"passwordExpires":123,"userIdExpires":"tomorrow"}',
      '{"passwordExpires":"2024-02-30T25:61:00"}',
      '{"userIds":{"x":1}}',
      '{"userIds":[1,2,3]}',
      '{"userIds":"a,b,,c"}',
      '{"id":123}',
      '{"id":["00000000-0000-0000-0000-000000000000"]}',
      '{"UserId":[],"NewSiteId":{}}',
      '{"groupId":true,"newSiteId":"x"}',
      '{"oldPassword":1,"newPassword":2}',
      '{"newPassword":"' + 'p'.repeat(10000) + '"}',
      '{"userId":""}',
      '{"name":"' + 'n'.repeat(100000) + '","description":"d"}',
      '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{}}}',
      '{"name":"\\u0000","description":"\\ud800"}',
      `{"name":${deepArray},"description":"d"}`,
      `{"userIds":${deepArray}}`,
      `{"name":${deepObject}}`,
      `{"userIds":${deepObject}}`,
      deepArray,
      deepObject,
      'name=a&name=b&description=c',
      'name=%zz&description=%',
      'enabled=maybe&userid=&firstName=%00',
      'a=' + 'b'.repeat(50000),
      '&&&===&&&',
      '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--xyz--\r\n',
      new Uint8Array([0xff, 0xfe, 0x00, 0x7b, 0x22]),
      new Uint8Array([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
    ];
    for (const [method, path] of writes()) {
      for (const body of bodies) {
        for (const ct of ['application/json', 'application/x-www-form-urlencoded']) await check(method, path, body, ct);
      }
    }
  }, 180_000);

  test('NUL characters in the path, the query, a body or a token request are 400s', async () => {
    const cases: [string, string, string?, string?][] = [
      ['GET', `${ft.root}/users/%00`],
      ['GET', `${ft.root}/sites?q=${encodeURIComponent("name eq '\u0000'")}`],
      ['GET', `${ft.root}/users?q=%00`],
      ['POST', `${ft.root}/sites`, JSON.stringify({ name: 'a\u0000b', description: 'd' })],
      ['POST', `${ft.root}/sites`, 'name=a%00b&description=d', 'application/x-www-form-urlencoded'],
      ['PUT', `${ft.root}/users/${userId}`, JSON.stringify({ firstName: 'x', ['k\u0000']: 1 })],
      ['DELETE', `${ft.root}/groups/${groupId}/users?userName=%00`],
      ['POST', '/oauth/token', `grant_type=password&client_id=${ft.clientId}&client_secret=${ft.clientSecret}&username=ad%00min&password=x`, 'application/x-www-form-urlencoded'],
      ['POST', `/api/v1/c%00/d/oauth/token`, `grant_type=password&client_id=${ft.clientId}&client_secret=${ft.clientSecret}&username=admin&password=x`, 'application/x-www-form-urlencoded'],
      ['POST', `/api/v1/c/d%00/oauth/token`, `grant_type=password&username=admin&password=x`, 'application/x-www-form-urlencoded'],
    ];
    for (const [method, path, body, ct] of cases) {
      const r = await check(method, path, body, ct);
      expect([method, path, r.status]).toEqual([method, path, 400]);
    }
  });

  test('random byte bodies under assorted content types', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...writes()),
        fc.oneof(fc.uint8Array({ maxLength: 3000 }), fc.string({ maxLength: 500 }), fc.json({ maxDepth: 6 }), fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v))),
        fc.constantFrom(...CONTENT_TYPES),
        async ([method, path], body, ct) => {
          await check(method, path, typeof body === 'string' ? body : body, ct);
        },
      ),
      { numRuns: 300, seed: 20240601 },
    );
  }, 180_000);

  test('hand-picked query strings', async () => {
    const queries = [
      'q=' + 'a'.repeat(100000),
      'q=' + encodeURIComponent("name eq '" + 'x'.repeat(50000) + "'"),
      'q=' + encodeURIComponent('('.repeat(5000) + "name eq 'x'" + ')'.repeat(5000)),
      'q=' + encodeURIComponent(Array(2000).fill("name eq 'x'").join(' and ')),
      'q=' + encodeURIComponent("name in (" + Array(5000).fill("'x'").join(',') + ')'),
      'q=%',
      'q=%zz',
      'q=%00',
      "q=name eq '%00'",
      "q=name eq '\u0000'",
      'q=' + encodeURIComponent("substring(name,-1,99999999999) eq 'x'"),
      'q=' + encodeURIComponent("dateadd(year,99999999,createDate) gt '2020-01-01'"),
      'q=' + encodeURIComponent("id eq 'not-a-guid'"),
      'q=' + encodeURIComponent("enabled eq 'maybe'"),
      'q=' + encodeURIComponent("name like '%%%%%%%%%%%%%%%%%%%%%'"),
      'limit=1e309',
      'limit=99999999999999',
      'limit=-0',
      'limit=0',
      'limit=0x10',
      'limit= 5 ',
      'offset=-1',
      'offset=1e3',
      'offset=99999999999999999999',
      'limit=1&limit=2&offset=0&offset=x',
      'fields=,,,',
      'fields=' + 'x,'.repeat(5000),
      'fields=%00',
      'expand=%00',
      'expand=' + 'users,'.repeat(1000),
      'expand=data&fields=nonexistent',
      'q&fields&limit&offset&expand',
      '=&=&=',
      '&&&&',
      '?',
      '#fragment',
      'a'.repeat(60000),
    ];
    for (const path of reads()) {
      for (const qs of queries) await check('GET', `${path}?${qs}`, undefined, 'application/json');
    }
  }, 180_000);

  test('random query strings and path segments', async () => {
    const segment = fc.oneof(fc.string({ maxLength: 40 }), fc.uuid(), fc.constantFrom('me', 'getjwt', '..', '.', '%', '%zz', '%00', '00000000-0000-0000-0000-000000000000'));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('users', 'sites', 'groups', 'configuration', 'meta'),
        fc.array(segment, { maxLength: 3 }),
        fc.array(fc.tuple(fc.constantFrom('q', 'fields', 'limit', 'offset', 'expand', 'siteId', 'audience', 'x'), fc.string({ maxLength: 60 })), { maxLength: 5 }),
        fc.boolean(),
        fc.constantFrom('GET', 'DELETE', 'PUT', 'POST'),
        async (resource, segs, params, encode, method) => {
          const tail = segs.map((s) => (encode ? encodeURIComponent(s) : s.replace(/[/?#]/g, ''))).join('/');
          const qs = params.map(([k, v]) => `${k}=${encode ? encodeURIComponent(v) : v.replace(/[#&]/g, '')}`).join('&');
          // A DELETE or write here could hit a real record: only the tenant's own fuzz records exist.
          await check(method, `${ft.root}/${resource}${tail ? `/${tail}` : ''}${qs ? `?${qs}` : ''}`, method === 'GET' || method === 'DELETE' ? undefined : '{}', 'application/json');
        },
      ),
      { numRuns: 400, seed: 424242 },
    );
  }, 180_000);

  test('the service still works afterwards', async () => {
    const r = await h.request('GET', `${ft.root}/users/me`, { token: ftok });
    expect(r.status).toBe(200);
    expect(r.body.data.userid).toBe('admin');
  });
});

describe('paging parameters', () => {
  test.each(['/sites?limit=abc', '/sites?offset=-1', '/meta?expand=true&limit=abc', '/users/me?limit=1.5', '/groups/00000000-0000-0000-0000-000000000000/users?offset=x'])(
    '%s is a 400 naming the parameter, on routes with and without a limit argument',
    async (path) => {
      const r = await h.request('GET', `${t.root}${path}`, { token });
      expectErrorEnvelope(r, 400);
      expect(r.body.meta.errors[0].message).toMatch(/'(limit|offset)' must be a whole number/);
      expect(r.text).not.toContain('NaN');
    },
  );

  test('a whole number too large says how large it may be', async () => {
    const r = await h.request('GET', `${t.root}/sites?offset=99999999999`, { token });
    expectErrorEnvelope(r, 400);
    expect(r.body.meta.errors[0].message).toBe("The query parameter 'offset' must be at most 999999999, got '99999999999'.");
  });
});

describe('suppress_response_codes=true', () => {
  test('answers HTTP 200 with the real status kept in meta.status, for errors and successes alike', async () => {
    const missing = await h.request('GET', `${t.root}/sites/${randomUUID()}?suppress_response_codes=true`, { token });
    expect(missing.status).toBe(200);
    expect(missing.body.meta).toMatchObject({ status: 404, statusMsg: 'Not Found' });
    expect(missing.body.meta.errors[0].code).toBe('NOT_FOUND');
    expect(missing.headers.get('content-length')).toBe(String(Buffer.byteLength(missing.text)));

    const noToken = await h.request('GET', `${t.root}/sites?SUPPRESS_RESPONSE_CODES=True`);
    expect(noToken.status).toBe(200);
    expect(noToken.body.meta.status).toBe(401);

    const ok = await h.request('GET', `${t.root}/sites?suppress_response_codes=true`, { token });
    expect([ok.status, ok.body.meta.status]).toEqual([200, 200]);

    const plain = await h.request('GET', `${t.root}/sites/${randomUUID()}?suppress_response_codes=false`, { token });
    expect(plain.status).toBe(404);
  });

  test('holds for answers the shared checks give before the REST plugin, and not for /graphql', async () => {
    const nul = await h.request('GET', `${t.root}/sites/%00?suppress_response_codes=true`, { token });
    expect([nul.status, nul.body.meta.status]).toEqual([200, 400]);
    const tooBig = await h.request('POST', `${t.root}/sites?suppress_response_codes=true`, { token, raw: '{}', headers: { 'content-type': 'application/json', 'content-length': '99999999999' } });
    expect([tooBig.status, tooBig.body.meta.status]).toEqual([200, 413]);
    const gql = await h.request('GET', `/graphql?query=%7B__typename%7D%00&suppress_response_codes=true`, { token });
    expect(gql.status).toBe(400);
  });
});
