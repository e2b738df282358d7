/**
 * SOFA, through its public API only: `useSofa` builds one pre-made operation per root field named
 * in the route table, on a copy of the schema that keeps only those root fields and drops
 * relation fields (REST records are flat; relations come back only through `expand=`).
 *
 * Each root field gets one internal route, `POST /sofa/<Type.field>`: legacy paths overlap
 * (`/meta` twice, one field under two methods), these never do. The REST runner
 * (src/rest/run-route.ts) matches the legacy path itself and hands the router (`handleRequest`)
 * a real request for the internal route, every argument in its JSON body: SOFA reads a body with
 * one JSON.parse, where it would parse a query string once per argument. SOFA answers a Response,
 * which the runner reads.
 */
import { filterSchema } from '@graphql-tools/utils';
import { getNamedType, isObjectType, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { useSofa } from 'sofa-api';
import { dataTypes } from '../datatypes.js';
import { CODE_SCALARS } from '../scalars.js';
import { isSofaRoute, routes, type SofaRoute } from './routes.js';

export const SOFA_BASE = '/sofa';

/** A DateTime as the server writes it (src/scalars.ts): UTC, milliseconds, no zone. */
export const DATE_TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}$';

type SofaConfig = Parameters<typeof useSofa>[0];
type RouteConfig = NonNullable<SofaConfig['routes']>[string];
export type SofaRouter = ReturnType<typeof useSofa>;

/** The root fields the route table names, each with its first row (for its success status). */
export function sofaFields(table = routes): Map<string, SofaRoute> {
  const out = new Map<string, SofaRoute>();
  for (const r of table) if (isSofaRoute(r) && !out.has(r.field)) out.set(r.field, r);
  return out;
}

/** A root field's internal route under SOFA_BASE. */
export const sofaPath = (field: string) => `/${field}`;

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

export interface SofaHooks<Call, Ctx> {
  /** SOFA's `context`: the GraphQL context of one call, from the server context the runner passed. */
  context(call: Call): Promise<Ctx>;
  /** SOFA's `execute`. */
  execute(args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult>;
  /** SOFA's `errorHandler`: every error SOFA sees, mapped into one Response. */
  errorHandler(errors: readonly unknown[]): Response;
}

export function createSofaRouter<Call extends object, Ctx>(schema: GraphQLSchema, hooks: SofaHooks<Call, Ctx>): SofaRouter {
  const fields = sofaFields();
  const config: Record<string, RouteConfig> = {};
  for (const [field, row] of fields) config[field] = { method: 'POST', path: sofaPath(field), responseStatus: row.status ?? 200 };
  return useSofa({
    basePath: SOFA_BASE,
    schema: sofaSchema(schema, new Set(fields.keys())),
    routes: config,
    // SOFA adds its internal request to the server context; the rest of it is what the runner passed.
    context: (serverContext: Record<string, unknown>) => hooks.context(serverContext as Call) as Promise<never>,
    execute: hooks.execute as SofaConfig['execute'],
    errorHandler: hooks.errorHandler as SofaConfig['errorHandler'],
    // How the OpenAPI document (src/rest/openapi.ts) shows our scalars.
    customScalars: {
      UUID: { type: 'string', format: 'uuid' },
      // Not `format: date-time`: RFC 3339 wants a zone, which the legacy format has none of.
      DateTime: { type: 'string', pattern: DATE_TIME_PATTERN, description: 'UTC, written yyyy-mm-ddThh:mm:ss.fff (no zone)' },
      JSON: {},
      ...Object.fromEntries(CODE_SCALARS.map((c) => [c.type.name, c.openApi])),
    },
    // fets' own reference page would load from a CDN; ours is src/rest/docs.ts.
    swaggerUI: { endpoint: false },
  } as SofaConfig);
}
