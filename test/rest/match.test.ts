/** The matcher's precedence: root-scoped rows before the tenant prefix, literals before parameters, `when` rows, 405 with what is allowed. */
import { queryParam, RouteMatcher } from '../../src/rest/match.js';
import type { Route } from '../../src/rest/routes.js';

const table: Route[] = [
  { method: 'POST', path: '/oauth/token', handler: 'token', scope: 'root' },
  { method: 'POST', path: '/api/v1/resource/area', handler: 'token', scope: 'root' },
  { method: 'GET', path: '/users/:id', field: 'Query.user', shape: 'object' },
  { method: 'GET', path: '/users/me', field: 'Query.me', shape: 'object' },
  { method: 'GET', path: '/meta', field: 'Query.metaDataTypes', shape: 'list', when: { param: 'expand', values: ['true'] } },
  { method: 'GET', path: '/meta', field: 'Query.meta', shape: 'object' },
  { method: 'PUT', path: '/forms/:id/relate', field: 'Mutation.relateByName', shape: 'none', when: { param: 'name', values: ['*'] } },
  { method: 'PUT', path: '/forms/:id/relate', field: 'Mutation.relate', shape: 'none' },
];
const m = new RouteMatcher(table);
const seg = (p: string) => p.split('/').filter(Boolean);
const match = (method: string, path: string, query = '') => m.match(method, seg(path), new URLSearchParams(query));

test('a root-scoped row under /api/v1 wins over reading its segments as a customer and a database', () => {
  const r = match('POST', '/api/v1/resource/area');
  expect(r).toEqual({ match: { route: table[1], params: {}, tenant: undefined } });
});

test('the same path with another method is a 405 naming the root row, not a tenant lookup', () => {
  expect(match('GET', '/api/v1/resource/area')).toEqual({ status: 405, allowed: ['POST'] });
});

test('tenant rows are matched after the prefix, literals before parameters', () => {
  const me = match('GET', '/api/v1/acme/main/users/me');
  expect('match' in me && me.match.route).toBe(table[3]);
  expect('match' in me && me.match.tenant).toEqual({ customerAlias: 'acme', databaseAlias: 'main' });
  const byId = match('GET', '/api/v1/acme/main/users/42');
  expect('match' in byId && byId.match.params).toEqual({ id: '42' });
});

test('a when-row is chosen only with its query value (any case of the name)', () => {
  const expanded = match('GET', '/api/v1/a/b/meta', 'EXPAND=true');
  expect('match' in expanded && expanded.match.route).toBe(table[4]);
  const plain = match('GET', '/api/v1/a/b/meta', 'expand=other');
  expect('match' in plain && plain.match.route).toBe(table[5]);
});

test("a when-row for '*' is chosen when its parameter has any value that is not blank", () => {
  const route = (query: string) => {
    const r = match('PUT', '/api/v1/a/b/forms/1/relate', query);
    return 'match' in r ? r.match.route : undefined;
  };
  expect(route('NAME=Report%201')).toBe(table[6]);
  for (const q of ['', 'name=', 'name=%20', 'other=x']) expect([q, route(q)]).toEqual([q, table[7]]);
});

test('a parameter sent more than once, names compared in any case, is one value when every copy agrees, else a 400 naming it; so is the when-row parameter', () => {
  const p = (query: string, name: string) => queryParam(new URLSearchParams(query), name);
  expect(p('q=a&Q=a', 'q')).toBe('a');
  expect(p('limit=', 'limit')).toBe('');
  expect(p('x=1', 'limit')).toBeUndefined();
  expect(() => p('q=a&q=b', 'q')).toThrow("The query parameter 'q' was sent 2 times with different values ('a' and 'b'): send it once.");
  expect(() => p('limit=5&Limit=-1', 'limit')).toThrow("The query parameter 'limit' was sent 2 times with different values ('5' and '-1')");
  expect(() => p('limit=5&limit=5&limit=', 'limit')).toThrow(/'limit' was sent 3 times/);
  expect(() => match('GET', '/api/v1/a/b/meta', 'expand=true&Expand=other')).toThrow(/'expand' was sent 2 times/);
  const same = match('GET', '/api/v1/a/b/meta', 'expand=true&EXPAND=true');
  expect('match' in same && same.match.route).toBe(table[4]);
});

test('unknown paths are a 404; known tenant paths with another method a 405', () => {
  expect(match('GET', '/nowhere')).toEqual({ status: 404 });
  expect(match('DELETE', '/api/v1/a/b/users/me')).toEqual({ status: 405, allowed: ['GET'] });
});

test('a row that spells out a segment owns that path: its other methods are a 405, not a row that reads the word as a parameter', () => {
  const rows: Route[] = [
    { method: 'GET', path: '/documents/:documentId', field: 'Query.document', shape: 'object' },
    { method: 'DELETE', path: '/documents/:documentId', field: 'Mutation.deleteDocument', shape: 'none' },
    { method: 'POST', path: '/documents/CreateDocumentZipFile', field: 'Mutation.createDocumentZipFile', shape: 'object' },
    { method: 'DELETE', path: '/documents/revisions/:revisionId', field: 'Mutation.deleteDocumentRevision', shape: 'none' },
    { method: 'GET', path: '/documents/:documentId/indexfields', field: 'Query.documentIndexFields', shape: 'list' },
  ];
  const docs = new RouteMatcher(rows);
  const at = (method: string, path: string) => docs.match(method, seg(`/api/v1/a/b${path}`), new URLSearchParams());
  for (const method of ['GET', 'DELETE', 'PUT']) expect([method, at(method, '/documents/createdocumentzipfile')]).toEqual([method, { status: 405, allowed: ['POST'] }]);
  expect(at('POST', '/documents/CreateDocumentZipFile')).toMatchObject({ match: { route: rows[2] } });
  // Ids still reach the parameter rows.
  expect(at('DELETE', '/documents/42')).toMatchObject({ match: { route: rows[1], params: { documentId: '42' } } });
  // Literals in different places outrank neither: each row still answers its own method.
  expect(at('GET', '/documents/revisions/indexfields')).toMatchObject({ match: { route: rows[4], params: { documentId: 'revisions' } } });
  expect(at('DELETE', '/documents/revisions/indexfields')).toMatchObject({ match: { route: rows[3], params: { revisionId: 'indexfields' } } });
});

test('literals match in any case; parameters and the tenant aliases come back as sent; a row of another length never matches', () => {
  const r = match('get', '/API/V1/Acme/Main/USERS/Me');
  expect(r).toEqual({ match: { route: table[3], params: {}, tenant: { customerAlias: 'Acme', databaseAlias: 'Main' } } });
  expect(match('GET', '/api/v1/a/b/Users/AbC')).toMatchObject({ match: { route: table[2], params: { id: 'AbC' } } });
  expect(match('GET', '/api/v1/a/b/users')).toEqual({ status: 404 });
  expect(match('GET', '/api/v1/a/b/users/me/more')).toEqual({ status: 404 });
});
