/** /api/openapi.json describes exactly the route table, validly, and every row's real answers fit it; /api/docs browses it with nothing from elsewhere. */
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { buildNextZip } from '../../src/jobs/zip-builder.js';
import { Harness, type Reply } from '../harness.js';
import { documentedRows } from '../../src/rest/openapi.js';
import { bracedPath, isSofaRoute, routes, type Route, type SofaRoute } from '../../src/rest/routes.js';
import { adminApi, createGroup, createUser, multipart, uniq, UNKNOWN_ID, type Api } from './support.js';
import * as fixture from './route-fixture.js';

type Doc = {
  servers: { url: string; variables?: Record<string, unknown> }[];
  paths: Record<string, Record<string, { responses: Record<string, { description?: string; content?: Record<string, { schema: Record<string, any> }> }> } & { servers?: unknown[] }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
};

let h: Harness;
let A: Api;
let doc: Doc;

beforeAll(async () => {
  h = await Harness.start();
  A = await adminApi(h);
  const r = await h.request('GET', '/api/openapi.json');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  doc = r.body as Doc;
});
afterAll(() => h.stop());

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

test('the document is valid OpenAPI', async () => {
  await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
});

test("the document passes Redocly's recommended rules (what client generators trip on), but those a legacy API or a private service cannot follow", async () => {
  const config = await createConfig({
    extends: ['recommended'],
    rules: {
      // The legacy routes: `/documents/revisions/{revisionId}` beside `/documents/{documentId}/copy`, the literal segment matched first.
      'no-ambiguous-paths': 'off',
      // A private service: no licence to name, and the tags are the routes' first segments.
      'info-license': 'off',
      'tag-description': 'off',
    },
  });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/api/openapi.json', config });
  expect(problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
});

test('every component schema is reached from a path, directly or through other schemas (a generated client makes a type of each)', () => {
  const named = (part: unknown) => [...JSON.stringify(part).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
  const reached = new Set<string>();
  const todo = named(doc.paths);
  for (let name = todo.pop(); name !== undefined; name = todo.pop()) {
    if (reached.has(name)) continue;
    reached.add(name);
    todo.push(...named(doc.components.schemas[name]));
  }
  expect(Object.keys(doc.components.schemas).filter((name) => !reached.has(name))).toEqual([]);
  // Records, their inputs and the envelope's parts stay; the page types of relations only GraphQL reads do not.
  expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Site', 'SiteInput', 'Meta', 'Error', 'ErrorEnvelope', 'Pagination']));
  expect(Object.keys(doc.components.schemas)).not.toContain('UserPage');
});

test('every documented route row is in the document, and the document names nothing else', () => {
  const fromRows = new Set(documentedRows(routes).map((r) => `${r.method} ${bracedPath(r.path)}`));
  const fromDoc = new Set(
    Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((k) => METHODS.includes(k)).map((m) => `${m.toUpperCase()} ${path}`)),
  );
  expect([...fromDoc].sort()).toEqual([...fromRows].sort());
  // The document and its reference page are served, not described.
  expect(fromDoc.has('GET /api/openapi.json')).toBe(false);
});

test('every operation has an operationId of its own (a generated client makes a function of each)', () => {
  const ids = Object.values(doc.paths).flatMap((item) => Object.entries(item).filter(([k]) => METHODS.includes(k)).map(([, op]) => (op as { operationId?: string }).operationId));
  expect(ids.filter((id, i) => !id || ids.indexOf(id) !== i)).toEqual([]);
  // A script runs at two paths: the one naming it in its path says so.
  const run = (path: string) => (doc.paths[path].post as unknown as { operationId: string }).operationId;
  expect([run('/scripts'), run('/scripts/{id}')]).toEqual(['post_runScript', 'post_runScript_by_id']);
});

test("a row chosen by a query parameter adds its arguments (optional) and its answer's shape to the operation it shares", () => {
  type Op = { parameters: { name: string; in: string; required: boolean; description?: string }[]; responses: Record<string, { content: Record<string, { schema: Record<string, any> }> }> };
  const op = (path: string, method: string) => (doc.paths[path] as unknown as Record<string, Op>)[method];
  const relate = op('/forminstance/{formId}/relateForm', 'put').parameters.filter((p) => p.in === 'query' && p.name.startsWith('relateTo'));
  expect(relate).toEqual([expect.objectContaining({ name: 'relateToId', required: false }), expect.objectContaining({ name: 'relateToDocId', required: false, description: expect.stringMatching(/instance name/) })]);
  const answer = op('/meta', 'get').responses['200'].content['application/json'].schema;
  expect(answer.anyOf.map((s: { properties: Record<string, { type?: string }> }) => [s.properties.data.type ?? 'ref', 'pagination' in s.properties])).toEqual([['ref', false], ['array', true]]);
  expect(op('/folders', 'get').parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['folderPath', 'limit', 'offset']));
  // A paged row whose field answers the whole list, which the envelope cuts: its limit and offset are documented too.
  for (const path of ['/meta', '/alertevents', '/folders/{folderId}/indexfields/{id}/selectoptions']) {
    expect([path, op(path, 'get').parameters.filter((p) => p.in === 'query' && /^(limit|offset)$/.test(p.name)).map((p) => p.name)]).toEqual([path, ['limit', 'offset']]);
  }
});

test('no two paths differ only in the names of their parameters (OpenAPI holds them to be one path)', () => {
  const shapes = Object.keys(doc.paths).map((p) => p.replace(/\{[^}]+\}/g, '{}').toLowerCase());
  expect(shapes.filter((p, i) => shapes.indexOf(p) !== i)).toEqual([]);
  // A run is read where its script reports it, the parameter named alike and described as the argument it fills.
  const read = (doc.paths['/scheduledProcess/{token}'].get as unknown as { parameters: { name: string; in: string; description?: string }[] }).parameters;
  expect(read.filter((p) => p.in === 'path')).toEqual([expect.objectContaining({ name: 'token', description: expect.stringContaining('token') })]);
  expect(read.some((p) => p.name === 'id')).toBe(false);
});

test('the tenant prefix is a pair of server variables; the token endpoint also lives at the root', () => {
  expect(doc.servers[0].url).toBe('/api/v1/{customeralias}/{databasealias}');
  expect(Object.keys(doc.servers[0].variables ?? {})).toEqual(['customeralias', 'databasealias']);
  const token = doc.paths['/oauth/token'];
  expect(token.servers).toEqual([expect.objectContaining({ url: '/' }), expect.objectContaining({ url: '/api/v1/{customeralias}/{databasealias}' })]);
});

test('answers are shown in their envelope: shapes, paging and errors as the route table says', () => {
  const ok = (path: string, method: string, status = '200') => doc.paths[path][method].responses[status].content!['application/json'].schema;
  const list = ok('/groups/{groupId}/users', 'get');
  expect(list.required).toEqual(['meta', 'data', 'pagination']);
  expect(list.properties.data.type).toBe('array');
  expect(list.properties.data.items).toEqual({ $ref: '#/components/schemas/User' });
  const one = ok('/sites/{id}', 'get');
  expect(one.properties.data).toMatchObject({ type: 'array', minItems: 1, maxItems: 1, items: { $ref: '#/components/schemas/Site' } });
  expect(one.properties.pagination).toBeUndefined();
  expect(ok('/users/{id}', 'get').properties.data).toEqual({ $ref: '#/components/schemas/User' });
  expect(ok('/sites/{id}', 'delete').properties.data).toBeUndefined();
  expect(ok('/groups/{groupId}/users', 'put', '201').properties.data.type).toBe('array');
  for (const status of ['400', '401', '403', '404']) {
    expect(doc.paths['/sites/{id}'].get.responses[status].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
  }
});

test('file downloads declare the type their bytes go out as: a zip application/zip, a form PDF application/pdf, a stored file or attachment its own (any)', () => {
  const types = (path: string) => Object.keys(doc.paths[path].get.responses['200'].content!);
  expect(types('/documents/DownloadDocumentZipFile')).toEqual(['application/zip']);
  expect(types('/formtemplates/{templateId}/forms/{revisionId}/pdf')).toEqual(['application/pdf']);
  for (const path of ['/files/{id}', '/files', '/emails/{messageId}/attachments/{id}']) expect([path, types(path)]).toEqual([path, ['*/*']]);
});

test('downloads document their Range and conditional headers, ETag, and 206, 304, 412 and 416; stored files Last-Modified and the date headers too, a form PDF and an attachment (a tag of their bytes) neither', () => {
  const op = (path: string) => doc.paths[path].get as unknown as { parameters: { name: string; in: string }[]; responses: Record<string, { headers?: Record<string, unknown> }> };
  for (const path of ['/files/{id}', '/files', '/documents/DownloadDocumentZipFile']) {
    expect([path, op(path).parameters.filter((p) => p.in === 'header').map((p) => p.name)]).toEqual([path, ['Range', 'If-Range', 'If-None-Match', 'If-Modified-Since', 'If-Match', 'If-Unmodified-Since']]);
    expect([path, Object.keys(op(path).responses).filter((s) => ['206', '304', '412', '416'].includes(s))]).toEqual([path, ['206', '304', '412', '416']]);
    expect(Object.keys(op(path).responses['200'].headers!)).toEqual(['ETag', 'Last-Modified', 'Accept-Ranges']);
    expect(Object.keys(op(path).responses['206'].headers!)).toContain('Content-Range');
  }
  for (const path of ['/formtemplates/{templateId}/forms/{revisionId}/pdf', '/emails/{messageId}/attachments/{id}']) {
    expect([path, op(path).parameters.filter((p) => p.in === 'header').map((p) => p.name)]).toEqual([path, ['Range', 'If-Range', 'If-None-Match', 'If-Match']]);
    expect([path, Object.keys(op(path).responses).filter((s) => ['206', '304', '412', '416'].includes(s))]).toEqual([path, ['206', '304', '412', '416']]);
    expect([path, Object.keys(op(path).responses['200'].headers!)]).toEqual([path, ['ETag', 'Accept-Ranges']]);
    expect([path, Object.keys(op(path).responses['304'].headers!)]).toEqual([path, ['ETag']]);
  }
});

test('an operation that takes a body documents its 413, the 415 of a compressed one and the 408 of a slow one; one without a body none', () => {
  for (const [path, method] of [['/sites', 'post'], ['/formtemplates/{id}/import', 'put'], ['/oauth/token', 'post']]) {
    const responses = doc.paths[path][method].responses;
    expect([path, method, '413' in responses, '415' in responses, '408' in responses]).toEqual([path, method, true, true, true]);
  }
  expect(doc.paths['/sites'].post.responses['408'].description).toMatch(/BODY_MIN_BYTES_PER_SECOND/);
  expect(Object.keys(doc.paths['/sites/{id}'].get.responses)).not.toContain('408');
  expect(doc.paths['/sites/{id}'].put.responses['415'].content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
  expect(Object.keys(doc.paths['/sites/{id}'].get.responses)).not.toContain('415');
  expect(Object.keys(doc.paths['/sites/{id}'].get.responses)).not.toContain('413');
});

test('an upload (POST files, POST documents) documents the 507 of a file store with no room; other operations do not', () => {
  for (const path of ['/files', '/documents']) expect([path, doc.paths[path].post.responses['507']?.description]).toEqual([path, expect.stringMatching(/^The file store has no room for the file/)]);
  expect(Object.keys(doc.paths['/sites'].post.responses)).not.toContain('507');
});

test('every operation documents its 503 with Retry-After: the database away, or for one that reads a body the budget of bodies full; the token endpoint\'s in its OAuth shape', () => {
  type Response = { description: string; headers?: Record<string, { schema: Record<string, unknown> }>; content?: Record<string, { schema: Record<string, any> }> };
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).filter(([k]) => METHODS.includes(k)).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, unavailable: (op as unknown as { responses: Record<string, Response> }).responses['503'] })),
  );
  expect(operations.length).toBe(new Set(documentedRows(routes).map((r) => `${r.method} ${bracedPath(r.path)}`)).size);
  for (const { at, unavailable } of operations) {
    expect([at, unavailable?.headers?.['Retry-After']?.schema]).toEqual([at, { type: 'integer', example: 5 }]);
  }
  const unavailable = (path: string, method: string) => doc.paths[path][method].responses['503'] as unknown as Response;
  expect(unavailable('/sites/{id}', 'get').content!['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
  expect(unavailable('/sites/{id}', 'get').description).not.toMatch(/BODY_MEMORY_BYTES/);
  expect(unavailable('/sites', 'post').description).toMatch(/database.*BODY_MEMORY_BYTES/);
  expect(unavailable('/oauth/token', 'post').description).toMatch(/^temporarily_unavailable: the database .* too many token requests/);
  expect(unavailable('/oauth/token', 'post').content!['application/json'].schema.required).toEqual(['error', 'error_description', 'meta']);
});

test('bodies are JSON, form-encoded or multipart (the form template import sends its XML as a file part)', () => {
  const body = (doc.paths['/formtemplates/{id}/import'].put as unknown as { requestBody: { content: Record<string, { schema: object }> } }).requestBody;
  expect(Object.keys(body.content)).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
  expect(body.content['multipart/form-data'].schema).toEqual(body.content['application/json'].schema);
  // The body argument's description is the body's, not a sibling of its schema's $ref (which OpenAPI 3.0 ignores).
  const site = (doc.paths['/sites'].post as unknown as { requestBody: { description?: string; content: Record<string, { schema: object }> } }).requestBody;
  expect([site.description, site.content['application/json'].schema]).toEqual(["The new site's fields.", { $ref: '#/components/schemas/SiteInput' }]);
});

test('a run report takes its values in the query string or in an optional body of the same keys (JSON, form or multipart), neither place required alone', () => {
  type Op = { parameters: { name: string; in: string; required: boolean }[]; requestBody?: { required: boolean; content: Record<string, { schema: Record<string, any> }> }; responses: Record<string, unknown> };
  const report = (doc.paths['/scheduledProcess/{token}'] as unknown as Record<string, Op>).post;
  const query = report.parameters.filter((p) => ['action', 'result', 'message'].includes(p.name));
  expect(query.map((p) => [p.name, p.in, p.required])).toEqual([['action', 'query', false], ['result', 'query', false], ['message', 'query', false]]);
  expect(report.requestBody?.required).toBe(false);
  expect(Object.keys(report.requestBody!.content)).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
  const body = report.requestBody!.content['application/json'].schema;
  expect(body).toMatchObject({ type: 'object', properties: { action: { type: 'string' }, result: { type: 'boolean' }, message: { type: 'string' } } });
  // The path names the run; the body does not.
  expect(Object.keys(body.properties)).toEqual(['action', 'result', 'message']);
  for (const status of ['409', '413', '415']) expect([status, status in report.responses]).toEqual([status, true]);
});

test('every row without a body argument, but GET, takes its arguments in the query string or an optional body; GET keeps a mandatory one required', () => {
  type Op = { parameters: { name: string; required: boolean }[]; requestBody?: { required: boolean; content: Record<string, { schema: Record<string, any> }> }; responses: Record<string, unknown> };
  const path = (p: string) => doc.paths[p] as unknown as Record<string, Op>;
  const items = path('/lists/{id}/items').delete;
  expect(items.parameters.find((p) => p.name === 'itemIds')?.required).toBe(false);
  expect(items.requestBody?.required).toBe(false);
  expect(Object.keys(items.requestBody!.content['application/json'].schema.properties)).toEqual(['itemIds']);
  expect(Object.keys(path('/folders/{id}/alerts/{eventId}').post.requestBody!.content['application/json'].schema.properties)).toEqual(['usId']);
  // The path fills every argument: no body to show, though a malformed one is still refused (400) and a large one a 413.
  expect(path('/sites/{id}').delete.requestBody).toBeUndefined();
  expect('413' in path('/sites/{id}').delete.responses).toBe(true);
  expect(path('/folders').get.parameters.find((p) => p.name === 'folderPath')?.required).toBe(true);
  expect(path('/folders').get.requestBody).toBeUndefined();
});

test("a record's documented fields are the fields it really has", async () => {
  const site = (await A.get(`/sites/${A.t.homeSiteId}?expand=data`)).body.data[0];
  expect(Object.keys(doc.components.schemas.Site.properties ?? {}).sort()).toEqual(Object.keys(site).sort());
  const user = (await A.get(`/users/me?expand=data`)).body.data;
  expect(Object.keys(doc.components.schemas.User.properties ?? {}).sort()).toEqual(Object.keys(user).sort());
});

test('PUBLIC_URL puts the servers under the public address', async () => {
  const hp = await Harness.start({ publicUrl: 'https://api.example.test/quire' });
  try {
    const r = await hp.request('GET', '/api/openapi.json');
    expect(r.body.servers[0].url).toBe('https://api.example.test/quire/api/v1/{customeralias}/{databasealias}');
  } finally {
    await hp.stop();
  }
});

describe('/api/docs', () => {
  test('the page and every asset it names come from here, under a policy that allows nothing else', async () => {
    for (const path of ['/api/docs', '/API/Docs/']) {
      const page = await h.request('GET', path);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
      const refs = [...page.text.matchAll(/(?:src|href|data-spec)="([^"]+)"/g)].map((m) => m[1]);
      expect(refs).toHaveLength(5);
      // An icon of its own, so the browser asks for no /favicon.ico.
      expect(page.text).toMatch(/<link rel="icon" type="image\/png" href="\/api\/docs\/favicon-32x32.png">/i);
      for (const ref of refs) {
        expect(ref.startsWith('/')).toBe(true);
        const asset = await h.request('GET', ref);
        expect([ref, asset.status]).toEqual([ref, 200]);
        expect(asset.text.length).toBeGreaterThan(10);
      }
    }
    const init = await h.request('GET', '/api/docs/init.js');
    expect(init.headers.get('content-type')).toMatch(/^text\/javascript/);
    // The only outside request Swagger UI makes by default is its validator badge.
    expect(init.text).toContain('validatorUrl: null');
  });

  test.each(['nope.js', 'toString', '__proto__', 'constructor'])('an unknown asset (%s) is a 404 envelope', async (name) => {
    const r = await h.request('GET', `/api/docs/${name}`);
    expect(r.status).toBe(404);
    expect(r.body.meta.errors[0].code).toBe('NOT_FOUND');
  });
});

test("routes and their parameters are described from the schema, the shared names' descriptions included", () => {
  type Op = { description?: string; parameters: { name: string; in: string; description?: string }[] };
  const sites = (doc.paths['/sites'] as unknown as Record<string, Op>).get;
  expect(sites.parameters.find((p) => p.name === 'q')?.description).toMatch(/query language/);
  expect(sites.parameters.find((p) => p.name === 'limit')?.description).toMatch(/DEFAULT_PAGE_SIZE/);
  // Every operation and every parameter it takes from the root field's arguments says what it is.
  const undescribed: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as unknown as Record<string, Record<string, Op>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method) || path.endsWith('/oauth/token')) continue;
      if (!op.description) undescribed.push(`${method} ${path}`);
      for (const p of op.parameters) if (!p.description) undescribed.push(`${method} ${path} ${p.in} ${p.name}`);
    }
  }
  expect(undescribed).toEqual([]);
});

describe('real answers fit the documented response schemas', () => {
  const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
  /** The document's schemas as one JSON Schema, with OpenAPI 3.0's `nullable` (which Ajv reads) and the formats it names. */
  let ajv: Ajv;
  beforeAll(() => {
    ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
    ajv.addSchema({ components: doc.components }, 'doc');
  });

  /** Validates a reply against the schema of its path, method and status. */
  const fits = (path: string, method: string, r: { status: number; body: unknown }) => {
    const schema = doc.paths[path][method].responses[String(r.status)]?.content?.['application/json'].schema;
    expect([path, method, r.status, schema === undefined]).toEqual([path, method, r.status, false]);
    const rewritten = JSON.parse(JSON.stringify(schema).replace(/"#\/components/g, '"doc#/components'));
    const validate = ajv.compile(rewritten);
    const ok = validate(r.body);
    expect([path, method, ok ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`)]).toEqual([path, method, []]);
  };

  test('lists, records with nulls and expand-only fields, zips, plain lists and bodies taken', async () => {
    const folder = (await A.post('/folders', { name: `oa-${Date.now()}` })).body.data;
    const list = (await A.post('/lists', { name: `oa-list-${Date.now()}`, items: [{ itemName: 'Red', itemValue: 'R' }] })).body.data;
    const listField = (await A.post('/indexfields', { label: `oa-colour-${Date.now()}`, fieldType: 'DropDownList', dropdownListId: list.listID ?? list.id })).body.data;
    const textField = (await A.post('/indexfields', { label: `oa-text-${Date.now()}`, fieldType: 1 })).body.data;
    for (const f of [listField, textField]) await A.put(`/indexfields/${f.id}/folders/${folder.id}`);
    fits('/folders/{folderId}/indexfields/{id}/selectoptions', 'get', await A.get(`/folders/${folder.id}/indexfields/${listField.id}/selectoptions`));
    fits('/indexfields', 'get', await A.get('/indexfields'));
    fits('/folders/{id}/indexfields', 'get', await A.get(`/folders/${folder.id}/indexfields`));
    fits('/alertevents', 'get', await A.get('/alertevents'));

    // A document with none of its optional dates: reviewDate, expireDate, checkOutDate and changeText are null.
    const d = (await A.post('/documents', { folderId: folder.id, name: 'oa-doc' })).body.data;
    const docs = await A.get(`/folders/${folder.id}/documents`);
    expect(docs.body.data[0]).toMatchObject({ reviewDate: null, checkOutDate: null });
    fits('/folders/{id}/documents', 'get', docs);
    fits('/documents', 'get', await A.get('/documents'));
    expect((await A.post('/files', undefined, await multipart({ documentId: d.documentId, fileName: 'a.txt' }, 'x', 'a.txt'))).status).toBe(200);
    const zip = await A.post('/documents/CreateDocumentZipFile', { documentDhIds: [d.documentId ?? d.id] });
    fits('/documents/CreateDocumentZipFile', 'post', zip);
    const pending = await A.get(`/documents/GetDocumentZipFileStatus?downloadKey=${zip.body.data.downloadKey}`);
    // Pending, with its nulls, unless another server process on this database has built it already.
    expect(pending.body.data).toMatchObject(pending.body.data.status === 'Ready' ? { fileSize: expect.any(Number) } : { status: 'Pending', fileSize: null, sha256: null });
    fits('/documents/GetDocumentZipFileStatus', 'get', pending);
    // Built, its download goes out as the document says.
    for (let i = 0; i < 200 && (await A.get(`/documents/GetDocumentZipFileStatus?downloadKey=${zip.body.data.downloadKey}`)).body.data.status === 'Pending'; i++) {
      if ((await buildNextZip(h.services)) === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    const download = await A.get(`/documents/DownloadDocumentZipFile?downloadKey=${zip.body.data.downloadKey}`);
    expect([download.status, download.headers.get('content-type')]).toEqual([200, Object.keys(doc.paths['/documents/DownloadDocumentZipFile'].get.responses['200'].content!)[0]]);

    const g = await createGroup(A);
    const u = await createUser(A);
    fits('/groups/{groupId}/users', 'post', await A.post(`/groups/${g.id}/users`, { userIds: [u.id] }));
    fits('/groups/{groupId}/users', 'put', await A.put(`/groups/${g.id}/users`, { userIds: [u.id] }));
    fits('/groups/{groupId}/users/{userId}', 'put', await A.put(`/groups/${g.id}/users/${u.id}`));
    fits('/groups/{groupId}/users', 'get', await A.get(`/groups/${g.id}/users`));
    fits('/users', 'get', await A.get('/users'));
    fits('/sites', 'get', await A.get('/sites'));
    fits('/scheduledProcess/Run', 'put', await A.put('/scheduledProcess/Run', undefined, { headers: { 'content-type': 'application/json' } }));
  });

  test('every GET without path parameters answers as documented, by default and with expand=data', async () => {
    // Records to list: a folder with a document in it.
    const folder = (await A.post('/folders', { name: `oa-get-${Date.now()}` })).body.data;
    await A.post('/documents', { folderId: folder.id, name: 'oa-get-doc' });
    const reads = Object.entries(doc.paths).filter(([path, item]) => item.get && !path.includes('{') && item.get.responses['200'].content?.['application/json']);
    expect(reads.length).toBeGreaterThan(20);
    for (const [path] of reads) {
      fits(path, 'get', await A.get(path));
      fits(path, 'get', await A.get(`${path}?expand=data`));
    }
    // The rows chosen by a query parameter answer in their own shape, which the operation names too.
    fits('/folders', 'get', await A.get('/folders?folderPath=/'));
    fits('/folders', 'get', await A.get(`/folders?folderPath=${encodeURIComponent(`/${folder.name}`)}`));
  });

  describe('every route row, generated from the route table', () => {
    fixture.setUpRouteFixture('openapi');
    const { pathOf, bodyOf, send, tenantRoutes } = fixture;
    const label = (r: Route) => `${r.method} ${r.path}${isSofaRoute(r) ? '' : ` (${r.scope})`}`;
    /** Where each answer did not fit its operation's documented responses. */
    const misfits: string[] = [];
    /** Each row's statuses answered. */
    const seen = new Map<string, Set<number>>();
    const compiled = new Map<string, ValidateFunction>();
    /** Checks that `reply` has a status `r`'s operation documents and fits that status's schema, or its content type. */
    const check = (r: Route, how: string, reply: Reply) => {
      const op = doc.paths[bracedPath(r.path)]?.[r.method.toLowerCase()];
      (seen.get(label(r)) ?? seen.set(label(r), new Set()).get(label(r))!).add(reply.status);
      const documented = op?.responses[String(reply.status)];
      const at = `${label(r)} ${how} ${reply.status}`;
      if (!documented) return misfits.push(`${at}: status not documented (${reply.text.slice(0, 200)})`);
      const type = reply.headers.get('content-type') ?? '';
      const json = documented.content?.['application/json'];
      if (!json) {
        const types = Object.keys(documented.content ?? {});
        if (!types.some((t) => t === '*/*' || type.startsWith(t))) misfits.push(`${at}: sent ${type}, documented ${types.join(', ')}`);
        return;
      }
      if (!type.startsWith('application/json')) return misfits.push(`${at}: sent ${type}, documented application/json`);
      const text = JSON.stringify(json.schema).replace(/"#\/components/g, '"doc#/components');
      const validate = compiled.get(text) ?? compiled.set(text, ajv.compile(JSON.parse(text))).get(text)!;
      if (!validate(reply.body)) misfits.push(`${at}: ${validate.errors!.map((e) => `${e.instancePath} ${e.message}`).join('; ')} in ${reply.text.slice(0, 300)}`);
    };
    const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`;
    /** The row's path with each path parameter naming nothing: an unknown GUID for a record's id, else an unknown name. */
    const unknownPath = (r: SofaRoute) => {
      const segments = r.path.split('/');
      const [path, query] = pathOf(r).split('?');
      const unknown = path.split('/').map((s, i) => (segments[i].startsWith(':') ? (/^[0-9a-f-]{36}$/.test(s) ? UNKNOWN_ID : `no-${s}`) : s));
      return [unknown.join('/'), query].filter(Boolean).join('?');
    };
    /** Records others hang from, deleted after the rest at their depth. */
    const CONTAINERS = /^\/(folders|documents|sites|groups|users|lists)\/:[a-zA-Z]+$/;
    /**
     * Statuses a row is not seen to answer here: a success where its body must name a record by a key
     * the fixture gives no record for (a user's or group's id), a 404 where any name is answered.
     */
    const UNSEEN: Record<string, number[]> = { 'PUT /sites/changeusersite': [200], 'PUT /sites/changegroupsite': [200], 'GET /configuration/:name': [404] };
    /** A body whose unique values (names, labels) are new on each call. */
    const uniqueValues = (body: Record<string, unknown> | undefined) => body && Object.fromEntries(Object.entries(body).map(([k, v]) => [k, v === 'conformance' ? uniq('conformance') : v]));

    test('refusals, successes and repeats of every row fit its documented responses', async () => {
      const { A: a, B: b, plain } = fixture;
      const user = a.as(plain.token);
      for (const r of tenantRoutes) {
        for (const [how, api] of [['no token', a.as(undefined)], ['another tenant', b.on(a.t)], ["tenant B's paths", b]] as const) check(r, how, await send(api, r, bodyOf(r)));
        // Malformed: a body that is no JSON where one is read, a limit that is no number, a `fields` with an unclosed bracket.
        if (r.method !== 'GET') check(r, 'malformed body', await a.request(r.method, pathOf(r), { raw: '{', headers: { 'content-type': 'application/json' } }));
        check(r, 'bad limit', await a.request(r.method, withQuery(pathOf(r), 'limit=x')));
        check(r, 'malformed fields', await a.request(r.method, withQuery(pathOf(r), 'fields=%5Bx')));
        if (r.path.includes('/:')) check(r, 'unknown path values', await send(a, r, bodyOf(r), unknownPath(r)));
      }
      // Reads, then writes (each twice: the second may conflict), then deletes, children before their parents.
      const reads = tenantRoutes.filter((r) => r.method === 'GET');
      const writes = tenantRoutes.filter((r) => r.method === 'POST' || r.method === 'PUT');
      const depth = (r: SofaRoute) => r.path.split('/').length;
      const deletes = tenantRoutes.filter((r) => r.method === 'DELETE').sort((x, y) => Number(CONTAINERS.test(x.path)) - Number(CONTAINERS.test(y.path)) || depth(y) - depth(x));
      for (const r of reads) {
        for (const [how, api] of [['administrator', a], ['ordinary user', user]] as const) check(r, how, await send(api, r, bodyOf(r)));
        check(r, 'expand=data', await a.request('GET', withQuery(pathOf(r), 'expand=data')));
      }
      for (const r of [...writes, ...deletes]) {
        check(r, 'ordinary user', await send(user, r, bodyOf(r)));
        for (const how of ['administrator', 'administrator again']) check(r, how, (await fixture.sendLearning(a, r, () => uniqueValues(bodyOf(r)))).reply);
      }
      const missing = tenantRoutes.flatMap((r) => {
        const statuses = seen.get(label(r))!;
        // A refusal of what was sent is an HTTP 200 on a refusalsAs200 row; a delete's success depends on what the deletes before it left.
        const refused = (status: number) => (r.refusalsAs200 ? 200 : status);
        const expected = [...(r.method === 'DELETE' ? [] : [r.status ?? 200]), refused(400), 401, 403, ...(r.path.includes('/:') ? [refused(404)] : [])];
        return expected.filter((s) => !statuses.has(s) && !UNSEEN[label(r)]?.includes(s)).map((s) => `${label(r)} answered no ${s}`);
      });
      expect([...misfits.map((m) => m.slice(0, 400)), ...missing]).toEqual([]);
    }, 300_000);

    test('a script run whose outside process fails answers the 502 its operation documents, at both paths; no other operation documents one', async () => {
      const { A: a } = fixture;
      const source = 'module.exports.main = (f, c, response) => response.json(500, { message: "boom" });';
      const failing = (await a.gql('mutation ($source: String!) { createScript(input: { name: "openapi-failing", source: $source }) { id } }', { source })).body.data.createScript;
      const runs = tenantRoutes.filter((r) => r.outside);
      for (const r of runs) check(r, 'failing script', await a.request('POST', r.path.includes(':id') ? `/scripts/${failing.id}` : `/scripts?id=${failing.id}`, { body: [] }));
      expect(runs.map((r) => [label(r), seen.get(label(r))?.has(502)])).toEqual([['POST /scripts', true], ['POST /scripts/:id', true]]);
      const documenting = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([, op]) => '502' in ((op as { responses?: object }).responses ?? {})).map(([m]) => `${m} ${path}`));
      expect(documenting.sort()).toEqual(['post /scripts', 'post /scripts/{id}']);
    });

    test('the token endpoint, at the root and under a tenant, answers as documented: a token, a bad grant, a bad client', async () => {
      const { A: a } = fixture;
      const form = (o: Record<string, string>) => ({ raw: new URLSearchParams(o).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      const login = { grant_type: 'password', client_id: a.t.clientId, client_secret: a.t.clientSecret, username: a.t.adminUserId, password: a.t.password };
      for (const r of routes.filter((row) => !isSofaRoute(row) && row.handler === 'token')) {
        const at = r.scope === 'root' ? r.path : `${a.t.root}${r.path}`;
        for (const [how, body] of [['password', login], ['unknown grant', { ...login, grant_type: 'nope' }], ['wrong secret', { ...login, client_secret: 'nope' }]] as const) {
          check(r, how, await fixture.h.request('POST', at, form(body)));
        }
        expect([label(r), [...seen.get(label(r))!].sort()]).toEqual([label(r), [200, 400, 401]]);
      }
    });
  });

  test('bodies: fieldType takes a code or a name, a list its items as DropDownListItemInput', () => {
    const s = doc.components.schemas as Record<string, { properties?: Record<string, any> }>;
    const fieldType = s.IndexFieldInput.properties!.fieldType;
    expect(ajv.validate(fieldType, 1) && ajv.validate(fieldType, 'Text')).toBe(true);
    expect(s.DropDownListInput.properties!.items.items).toEqual({ $ref: '#/components/schemas/DropDownListItemInput' });
  });
});
