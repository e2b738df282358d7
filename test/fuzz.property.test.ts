/**
 * Requests made of the route table's paths with junk put in every place a client can put it
 * (methods, path segments, q/fields/expand/limit/offset, bodies, content types) and /graphql
 * bodies of every shape, sent as an administrator of a real tenant. Whatever comes in, the answer
 * is a 4xx or a 2xx, never a 5xx, and every refusal is an envelope whose meta.status is the
 * HTTP status (GraphQL's own answers: JSON with `data` or `errors`). FUZZ_RUNS sets the number of requests
 * per property (default 500; the issue's check used 40,000).
 */
import fc from 'fast-check';
import { getNamedType, isInputObjectType } from 'graphql';
import { RouteMatcher, segmentsOf } from '../src/rest/match.js';
import { isSofaRoute, routes } from '../src/rest/routes.js';
import { buildSchema } from '../src/schema.js';
import { Harness, type Reply, type TestTenant } from './harness.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 500);

let h: Harness;
let t: TestTenant;
let token: string;

beforeAll(async () => ({ h, t, token } = await Harness.withTenant()));

afterAll(() => h.stop());

const JUNK = ["'", '%', '%zz', '..', '\u0000', '\uD800', '😀', ' ', '[', ']', '()', 'null', '-1', '1e309', 'NaN', '9'.repeat(40), 'a'.repeat(300)];
const junkArb = fc.oneof(fc.constantFrom(...JUNK), fc.string({ maxLength: 20 }), fc.uuid(), fc.integer().map(String));
const encode = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80'; // a lone surrogate, as raw bytes
  }
};

const pathArb = fc
  .constantFrom(...routes.map((r) => ({ template: r.path, root: r.scope === 'root' })))
  .chain(({ template, root }) =>
    fc
      .tuple(...template.split('/').map((seg) => (seg.startsWith(':') ? junkArb.map(encode) : fc.oneof({ weight: 5, arbitrary: fc.constant(seg) }, { weight: 1, arbitrary: junkArb.map(encode) }))))
      .map((segs) => ({ path: segs.join('/'), root })),
  );

/**
 * Whether the row that serves a request answers refusals as HTTP 200 (`POST emails`; `GET emails`
 * does not). Asked of the server's own matcher, not the template the path was made from: junk
 * can turn one row's path into another's (`/emails/:id` with an empty id is `POST /emails/`).
 */
const matcher = new RouteMatcher();
const refusalsAs200 = (method: string, url: string) => {
  const [path, query = ''] = url.split('?');
  const found = matcher.match(method, segmentsOf(path) ?? [], new URLSearchParams(query));
  return 'match' in found && isSofaRoute(found.match.route) && found.match.route.refusalsAs200 === true;
};

/** Every root field the route table serves, with the row's body argument. */
const schema = buildSchema();
const served = routes.filter(isSofaRoute).map((r) => {
  const [op, name] = r.field.split('.');
  return { row: r, field: (op === 'Query' ? schema.getQueryType() : schema.getMutationType())!.getFields()[name] };
});

/** The legacy parameters, and every argument a route reads from the query string. */
const PARAMS = [...new Set(['q', 'fields', 'expand', 'limit', 'offset', 'suppress_response_codes', ...served.flatMap(({ field }) => field.args.map((a) => a.name))])];
const queryArb = fc
  .array(fc.tuple(fc.constantFrom(...PARAMS), junkArb), { maxLength: 3 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${encode(v)}`).join('&')}` : ''));

/** Keys the route table's bodies read (their input types' fields), each with junk (or a value of another type) to reach past the parsing. */
const KEYS = [
  ...new Set(
    served.flatMap(({ row, field }) => {
      const type = row.body ? getNamedType(field.args.find((a) => a.name === row.body)!.type) : undefined;
      // Legacy clients spell keys in any case (`folderpath`, `Name`).
      return type && isInputObjectType(type) ? Object.keys(type.getFields()).flatMap((k) => [k, k.toLowerCase()]) : [];
    }),
  ),
];
const knownKeysArb = fc
  .dictionary(fc.constantFrom(...KEYS), fc.oneof(junkArb, fc.jsonValue()), { maxKeys: 4 })
  .map((o) => ({ raw: JSON.stringify(o), type: 'application/json' }));

const bodyArb = fc.oneof(
  fc.constant(undefined),
  knownKeysArb,
  fc.json().map((j) => ({ raw: j, type: 'application/json' })),
  fc.jsonValue().map((v) => ({ raw: JSON.stringify(v), type: 'application/json' })),
  junkArb.map((s) => ({ raw: s, type: fc.sample(fc.constantFrom('application/json', 'text/plain', 'multipart/form-data', 'application/x-www-form-urlencoded'), 1)[0] })),
);

/**
 * Refusals are always envelopes; a success is one too unless the route serves a document (OpenAPI,
 * its page, a file). A route that answers refusals as HTTP 200 (`POST emails`) keeps the real status in meta.
 */
function expectEnvelope(r: Reply, method: string, refusalsAs200 = false) {
  expect(r.status).toBeLessThan(500);
  if (method === 'HEAD') return;
  if (r.status >= 400) expect(r.body?.meta?.status).toBe(r.status);
  else if (refusalsAs200 && r.status === 200 && r.body?.meta?.status !== 200) expect([400, 404, 413]).toContain(r.body.meta.status);
  else if (r.body?.meta) expect(r.body.meta.status).toBe(r.status);
}

test('REST: junk in every place a client can put it gets a 2xx or 4xx envelope, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH'), pathArb, queryArb, bodyArb, async (method, p, query, body) => {
      const url = `${p.root ? '' : t.root}/${p.path.replace(/^\//, '')}${query}`;
      const withBody = body && method !== 'GET' && method !== 'HEAD';
      const r = await h.request(method, url, { token, raw: withBody ? body.raw : undefined, headers: withBody ? { 'content-type': body.type } : {} });
      expectEnvelope(r, method, refusalsAs200(method, url));
    }),
    // A run once found this: `/emails/:id` with an empty id is `POST /emails/`, whose refusals are 200s.
    { numRuns: RUNS, examples: [['POST', { path: '/emails/', root: false }, '', { raw: '', type: 'multipart/form-data' }]] },
  );
}, 600_000);

const gqlArb = fc.oneof(
  fc.jsonValue(),
  fc.record({ query: fc.oneof(fc.string(), fc.constantFrom('{ sites { totalRecords } }', 'subscription { x }', 'mutation { deleteSite(id: "x") }', '{ __schema { types { name } } }', '{ sites(limit: -1) { items { id } } }', '{ groups { items { users(limit: 100000) { id } } } }')), variables: fc.oneof(fc.constant(undefined), fc.jsonValue()), operationName: fc.oneof(fc.constant(undefined), fc.string(), fc.integer()) }, { requiredKeys: [] }),
);

const queryText = (body: unknown) => {
  const q = (body as { query?: unknown } | null)?.query;
  return typeof q === 'string' ? q : (JSON.stringify(body) ?? '');
};

test('/graphql: bodies of every shape get a 2xx or 4xx, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(gqlArb, fc.constantFrom('POST', 'GET'), async (body, method) => {
      const r =
        method === 'POST'
          ? await h.request('POST', '/graphql', { token, raw: JSON.stringify(body) ?? 'undefined', headers: { 'content-type': 'application/json' } })
          : await h.request('GET', `/graphql?query=${encode(queryText(body))}`, { token, headers: { accept: 'application/json' } });
      expect(r.status).toBeLessThan(500);
      expect(r.body).toBeDefined();
    }),
    { numRuns: RUNS },
  );
}, 600_000);
