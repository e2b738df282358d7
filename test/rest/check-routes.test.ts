/** The route table is checked against the schema at start-up, naming the row that cannot work (its field, arguments, shape and paging); and every root field has a row but the GraphQL-only ones. */
import { buildSchema } from '../../src/schema.js';
import { checkRouteTable } from '../../src/rest/check-routes.js';
import { isSofaRoute, routes, type Route } from '../../src/rest/routes.js';

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
  // The shape and paging its root field's type allows (src/rest/envelope.ts reads them).
  ['a list of a record', { method: 'GET', path: '/sites/:id', field: 'Query.site', shape: 'list' }, "Route GET /sites/:id: shape 'list' does not fit Query.site, which answers Site, a record"],
  ['an object of a page', { method: 'GET', path: '/sites', field: 'Query.sites', shape: 'object' }, "shape 'object' does not fit Query.sites, which answers SitePage!, a page"],
  ['a one-element array of a list', { method: 'GET', path: '/alertevents', field: 'Query.alertEvents', shape: 'one' }, "shape 'one' does not fit Query.alertEvents"],
  ['an object of a Boolean', { method: 'DELETE', path: '/sites/:id', field: 'Mutation.deleteSite', shape: 'object' }, "shape 'object' does not fit Mutation.deleteSite, which answers Boolean"],
  ['no data from a read', { method: 'GET', path: '/sites/:id', field: 'Query.site', shape: 'none' }, "shape 'none' does not fit Query.site"],
  ['a paged object', { method: 'GET', path: '/users/:id', field: 'Query.user', shape: 'object', paged: true }, "Route GET /users/:id: paged, but its shape 'object' is no array"],
  ['a paged page whose field takes no limit', { method: 'PUT', path: '/documents/:documentId/indexfields', field: 'Mutation.setDocumentIndexFields', shape: 'list', paged: true, body: 'input' }, 'Mutation.setDocumentIndexFields takes no limit and offset'],
  // Every list read honours limit and offset (test/rest/conformance.test.ts checks each row's answer).
  ['a list read whose field takes no limit, not paged', { method: 'GET', path: '/alertevents', field: 'Query.alertEvents', shape: 'list' }, 'Query.alertEvents takes no limit and offset, so the list ignores them'],
])('stops at %s', (_, row, message) => {
  expect(() => checkRouteTable(schema, [row])).toThrow(message);
});

/** Root fields GraphQL alone serves, each with why no route row names it (docs/decisions.md). */
const GRAPHQL_ONLY: Record<string, string> = {
  'Query.file': 'GET files/{id} streams the bytes (documentFile); this answers them in base64',
  'Query.fileByQuery': 'GET files?q= streams the bytes (documentFileByQuery); this answers them in base64',
  'Mutation.noop': 'keeps the Mutation type from being empty',
  'Mutation.setDocumentDates': 'no route of the spec sets a review date',
  'Mutation.addFormTemplateField': 'the spec edits a template by import; field edits are GraphQL\'s',
  'Mutation.updateFormTemplateField': 'as addFormTemplateField',
  'Mutation.deleteFormTemplateField': 'as addFormTemplateField',
  'Mutation.createScript': 'the spec shows no way to make a script (Scripts)',
  'Mutation.updateScript': 'as createScript',
  'Mutation.deleteScript': 'as createScript',
  'Mutation.createScheduledProcess': 'administrators manage them through GraphQL (Scheduled processes)',
  'Mutation.updateScheduledProcess': 'as createScheduledProcess',
  'Mutation.deleteScheduledProcess': 'as createScheduledProcess',
  'Mutation.addUserSupervisor': 'the spec and the clients read supervisors, and set them by no route',
  'Mutation.removeUserSupervisor': 'as addUserSupervisor',
};

test('every root field is served by a row of the route table, but the GraphQL-only ones named here', () => {
  const routed = new Set(routes.filter(isSofaRoute).map((r) => r.field));
  const fields = [schema.getQueryType()!, schema.getMutationType()!].flatMap((t) => Object.keys(t.getFields()).map((f) => `${t.name}.${f}`));
  const unrouted = fields.filter((f) => !routed.has(f) && !(f in GRAPHQL_ONLY));
  // A new resource's operation without its row: add the row to src/rest/routes.ts (docs/architecture.md, "Adding a resource", step 5).
  expect(unrouted.map((f) => `${f} has no row in src/rest/routes.ts`)).toEqual([]);
  // The exceptions stay exceptions: one that gains a row, or leaves the schema, leaves the list.
  expect(Object.keys(GRAPHQL_ONLY).filter((f) => routed.has(f) || !fields.includes(f))).toEqual([]);
});
