/**
 * The OpenAPI document of the REST face, served at /api/openapi.json. SOFA's generator gives the
 * schemas (components from the GraphQL types, each argument's schema and each field's result);
 * this turns them from SOFA's internal routes into the legacy routes of the table: the tenant
 * prefix as server variables, path and query parameters, the body, and the envelope around
 * every answer. Every documented row of the route table is here, and nothing else.
 *
 * Its parts: openapi-sofa.ts reads SOFA's document, openapi-operation.ts builds a row's operation
 * (its parameters from openapi-parameters.ts, a download's from openapi-downloads.ts, the envelope
 * and errors from openapi-envelope.ts), openapi-schemas.ts corrects the component schemas and
 * openapi-reachable.ts keeps those the paths reach.
 */
import type { GraphQLSchema } from 'graphql';
import { tokenOperation } from './token.js';
import { bracedPath, isSofaRoute, pathParams, routes as allRoutes, type Route, type SofaRoute } from './routes.js';
import { ENVELOPE_SCHEMAS, withRetryAfter } from './openapi-envelope.js';
import { rowOperation, tagOf } from './openapi-operation.js';
import { reachableSchemas } from './openapi-reachable.js';
import { truthfulSchemas } from './openapi-schemas.js';
import type { Operation, SofaDoc } from './openapi-sofa.js';

/** The servers, under PUBLIC_URL when it is set (else relative to the document's own address). */
const tenantServer = (base: string) => ({
  url: `${base}/api/v1/{customeralias}/{databasealias}`,
  description: "A customer database's API",
  variables: {
    customeralias: { default: 'demo', description: 'The customer alias' },
    databasealias: { default: 'main', description: 'The database alias' },
  },
});
const rootServer = (base: string) => ({ url: `${base}/`, description: 'The service root' });

/**
 * The operation with an operationId no other has taken: a field served at two paths (`runScript`
 * at /scripts and /scripts/:id) names the later one's path parameters. Generated clients make a
 * function of each id, and two alike collide.
 */
function withUniqueId(op: Operation, path: string, taken: Set<string>): Operation {
  const params = pathParams(path);
  const id = taken.has(op.operationId as string) && params.length ? `${op.operationId}_by_${params.join('_')}` : (op.operationId as string);
  if (taken.has(id)) throw new Error(`Two operations of the OpenAPI document would share the operationId ${id}`);
  taken.add(id);
  return { ...op, operationId: id };
}

/** Rows the document describes: API routes, not the document and its reference page. */
export const documentedRows = (table: readonly Route[] = allRoutes) => table.filter((r) => isSofaRoute(r) || r.handler === 'token');

export function buildOpenApi(sofaDoc: SofaDoc, schema: GraphQLSchema, publicUrl = '', table: readonly Route[] = allRoutes): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const scopes = new Map<string, Set<'tenant' | 'root'>>();
  const operationIds = new Set<string>();
  for (const row of documentedRows(table)) {
    const key = bracedPath(row.path);
    const method = row.method.toLowerCase();
    const item = (paths[key] ??= {});
    const scope = row.scope === 'root' ? 'root' : 'tenant';
    (scopes.get(key) ?? scopes.set(key, new Set()).get(key)!).add(scope);
    if (item[method]) continue;
    if (!isSofaRoute(row)) {
      item[method] = withUniqueId(withRetryAfter(tokenOperation), row.path, operationIds);
      continue;
    }
    // Rows chosen by a query parameter share their path and method with a plain row: one operation.
    const same = table.filter((r): r is SofaRoute => isSofaRoute(r) && r.method === row.method && r.path === row.path);
    const main = same.find((r) => !r.when) ?? row;
    item[method] = withUniqueId(withRetryAfter(rowOperation(sofaDoc, schema, main, same.filter((r) => r !== main))), row.path, operationIds);
  }
  for (const [key, s] of scopes) {
    // Paths served at the root (the token endpoint) name their servers; the rest use the tenant server.
    if (s.has('root')) paths[key].servers = [rootServer(publicUrl), ...(s.has('tenant') ? [tenantServer(publicUrl)] : [])];
  }
  // Only the schemas the paths reach: not Query and Mutation, nor what only GraphQL reads or takes.
  const schemas = reachableSchemas({ ...truthfulSchemas(sofaDoc.components?.schemas ?? {}, schema), ...ENVELOPE_SCHEMAS }, paths);
  return {
    openapi: '3.0.3',
    info: {
      title: 'quire REST API v1',
      version: '1.0.0',
      description:
        'The legacy REST API, generated from the GraphQL schema. Every answer is an envelope: `meta` with the status, ' +
        '`data` shaped per route, and `pagination` on paged lists; errors carry `meta.errors`. Get a token at `POST /oauth/token`.',
    },
    servers: [tenantServer(publicUrl)],
    tags: [...new Set(documentedRows(table).map((r) => tagOf(r.path)))].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}
