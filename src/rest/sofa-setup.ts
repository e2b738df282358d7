/**
 * Builds the SOFA router from the route table: one SOFA route per root field named in the table,
 * on a copy of the schema that keeps only those root fields and drops relation fields (REST
 * records are flat; relations come back only through `expand=`).
 */
import { filterSchema } from '@graphql-tools/utils';
import { dataTypes } from '../datatypes.js';
import { getNamedType, isObjectType, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { useSofa } from 'sofa-api';
import { isSofaRoute, routes, type SofaRoute } from './routes.js';

export const SOFA_BASE = '/sofa';

type RouteConfig = NonNullable<Parameters<typeof useSofa>[0]['routes']>[string];

export interface SofaEndpoint {
  method: string;
  path: string;
}

/**
 * The internal SOFA route of each root field: `/<Type.field>` with the method of the first table
 * row naming it. Legacy paths may overlap (`/meta` twice); these never do. They are static (every
 * argument travels in the request's `params`), so SOFA's router finds them by exact match.
 */
export function sofaEndpoints(): Map<string, SofaEndpoint> {
  const out = new Map<string, SofaEndpoint>();
  for (const r of routes) {
    if (isSofaRoute(r) && !out.has(r.field)) out.set(r.field, { method: r.method, path: `/${r.field}` });
  }
  return out;
}

function sofaSchema(schema: GraphQLSchema, fields: Set<string>): GraphQLSchema {
  return filterSchema({
    schema,
    rootFieldFilter: (op, name) => fields.has(`${op}.${name}`),
    objectFieldFilter: (typeName, fieldName) => {
      const type = schema.getType(typeName);
      if (!isObjectType(type) || !dataTypes.byTypeName.has(typeName)) return true;
      return !isObjectType(getNamedType(type.getFields()[fieldName].type));
    },
  });
}

/** What SOFA's route handlers read of a request: its URL (for a query string), params and body text. */
export interface SofaRequest {
  url: string;
  params: Record<string, string>;
  body: string | null;
  text(): Promise<string>;
}

export type SofaHandler = (request: SofaRequest, serverContext: { contextValue: object }) => Promise<Response>;

/**
 * SOFA's handler for each root field, taken from its router's route list and called directly:
 * we have matched the legacy path already, so a second request object and a second routing
 * pass would only cost time.
 */
export function createSofaHandlers(
  schema: GraphQLSchema,
  execute: (args: ExecutionArgs) => unknown,
  errorHandler: (errors: readonly unknown[]) => Response,
): Map<string, SofaHandler> {
  const router = createSofaRouter(schema, execute, errorHandler);
  const handlers = new Map<string, SofaHandler>();
  for (const [field, e] of sofaEndpoints()) {
    const route = router.__routes.find((r) => r.path === e.path && r.method === e.method);
    if (!route) throw new Error(`SOFA built no route for ${field}`);
    handlers.set(field, route.handler as unknown as SofaHandler);
  }
  return handlers;
}

function createSofaRouter(
  schema: GraphQLSchema,
  execute: (args: ExecutionArgs) => unknown,
  errorHandler: (errors: readonly unknown[]) => Response,
) {
  const endpoints = sofaEndpoints();
  const config: Record<string, RouteConfig> = {};
  for (const [field, e] of endpoints) {
    const row = routes.find((r): r is SofaRoute => isSofaRoute(r) && r.field === field)!;
    config[field] = { method: e.method as RouteConfig['method'], path: e.path, responseStatus: row.status ?? 200 };
  }
  return useSofa({
    basePath: SOFA_BASE,
    schema: sofaSchema(schema, new Set(endpoints.keys())),
    routes: config,
    // The context is built before SOFA runs (see use-rest.ts) and passed in as the server context.
    context: (serverContext: Record<string, unknown>) => serverContext.contextValue as Record<string, unknown>,
    execute: execute as never,
    errorHandler: errorHandler as never,
  });
}
