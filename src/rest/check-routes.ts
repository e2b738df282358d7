/** The route table checked against the schema at start-up: a row that cannot work stops the start. */
import { getNullableType, isListType, isObjectType, type GraphQLField, type GraphQLOutputType, type GraphQLSchema } from 'graphql';
import { isPageType } from '../schema-conventions.js';
import { isSofaRoute, pathParams, type Route, type Shape, type SofaRoute } from './routes.js';

/** The argument a row's path parameter fills: its own name unless the row's `params` renames it. */
export const argumentOf = (row: SofaRoute, param: string): string => row.params?.[param] ?? param;

/** The root field a route row names (`Query.x` or `Mutation.x`), if the schema has it. */
export function rootField(schema: GraphQLSchema, field: string): GraphQLField<unknown, unknown> | undefined {
  const [op, name] = field.split('.');
  const root = op === 'Query' ? schema.getQueryType() : op === 'Mutation' ? schema.getMutationType() : undefined;
  return root?.getFields()[name];
}

export function checkRouteTable(schema: GraphQLSchema, table: readonly Route[]): void {
  for (const r of table) {
    if (!isSofaRoute(r)) continue;
    const row = `Route ${r.method} ${r.path}`;
    const field = rootField(schema, r.field);
    if (!field) throw new Error(`${row} names ${r.field}, which the schema does not have`);
    const args = new Set(field.args.map((a) => a.name));
    for (const param of pathParams(r.path)) {
      const arg = argumentOf(r, param);
      if (!args.has(arg)) throw new Error(`${row}: ${r.field} has no argument '${arg}' for the path parameter`);
    }
    if (r.body && !args.has(r.body)) throw new Error(`${row}: ${r.field} has no argument '${r.body}' to receive the body`);
    checkShape(row, r, field.type, args);
  }
}

/** What a root field answers, as a row's `shape` sees it. */
type Answer = 'page' | 'list' | 'record' | 'boolean' | 'scalar';

/**
 * The shapes each answer fits (src/rest/envelope.ts; docs/decisions.md, "Data shapes"): a page's
 * or a list's records are a list; a record an object, or the spec's one-element array, or no data
 * where the legacy write answers none; a Boolean (a write's success) no data; the JSON of a script
 * an object, as it is.
 */
const FITS: Record<Answer, { shapes: readonly Shape[]; what: string }> = {
  page: { shapes: ['list'], what: "a page, whose items are a 'list'" },
  list: { shapes: ['list'], what: "a list: 'list'" },
  record: { shapes: ['object', 'one', 'none'], what: "a record: 'object', 'one', or 'none' on a write" },
  boolean: { shapes: ['none'], what: "a Boolean: 'none'" },
  scalar: { shapes: ['object'], what: "a value: 'object'" },
};

function answerOf(type: GraphQLOutputType): Answer {
  const inner = getNullableType(type);
  if (isListType(inner)) return 'list';
  if (isPageType(inner)) return 'page';
  if (isObjectType(inner)) return 'record';
  return inner.name === 'Boolean' ? 'boolean' : 'scalar';
}

/** A row's `shape` and `paged` against its root field's type: a wrong one would answer the data in another form than the spec's, with no error. */
function checkShape(row: string, r: SofaRoute, type: GraphQLOutputType, args: Set<string>): void {
  const fits = FITS[answerOf(type)];
  if (!fits.shapes.includes(r.shape) || (r.shape === 'none' && r.field.startsWith('Query.'))) {
    throw new Error(`${row}: shape '${r.shape}' does not fit ${r.field}, which answers ${type}, ${fits.what}`);
  }
  if (r.paged && r.shape !== 'list' && r.shape !== 'one') throw new Error(`${row}: paged, but its shape '${r.shape}' is no array for pagination to count`);
  if (r.paged && isPageType(getNullableType(type)) && !(args.has('limit') && args.has('offset'))) {
    throw new Error(`${row}: paged, but ${r.field} takes no limit and offset, so its page is not the one pagination names`);
  }
  // A list read honours limit and offset: its field takes them, or the row is paged and the envelope cuts the whole list.
  if (r.method === 'GET' && r.shape === 'list' && !r.paged && !(args.has('limit') && args.has('offset'))) {
    throw new Error(`${row}: ${r.field} takes no limit and offset, so the list ignores them: give it both, or make the row paged`);
  }
}
