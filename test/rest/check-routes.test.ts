/** The route table is checked against the schema at start-up, naming the row that cannot work. */
import { buildSchema } from '../../src/schema.js';
import { checkRouteTable } from '../../src/rest/check-routes.js';
import { routes, type Route } from '../../src/rest/routes.js';

const schema = buildSchema();

test("the project's own table passes", () => {
  expect(() => checkRouteTable(schema, routes)).not.toThrow();
});

test("a path parameter renamed onto the field's argument passes", () => {
  expect(() => checkRouteTable(schema, [{ method: 'GET', path: '/sites/:siteKey', field: 'Query.site', shape: 'one', params: { siteKey: 'id' } }])).not.toThrow();
});

test.each<[string, Route, string]>([
  ['an unknown root field', { method: 'GET', path: '/sites', field: 'Query.nope', shape: 'list' }, 'Route GET /sites names Query.nope'],
  ['a path parameter the field lacks', { method: 'GET', path: '/sites/:siteKey', field: 'Query.site', shape: 'one' }, "Query.site has no argument 'siteKey'"],
  ['a renamed path parameter whose argument the field lacks', { method: 'GET', path: '/sites/:siteKey', field: 'Query.site', shape: 'one', params: { siteKey: 'key' } }, "Query.site has no argument 'key'"],
  ['a body argument the field lacks', { method: 'POST', path: '/sites', field: 'Mutation.createSite', shape: 'object', body: 'payload' }, "Mutation.createSite has no argument 'payload'"],
])('stops at %s', (_, row, message) => {
  expect(() => checkRouteTable(schema, [row])).toThrow(message);
});
