/** The route table checked against the schema at start-up: a row that cannot work stops the start. */
import type { GraphQLField, GraphQLSchema } from 'graphql';
import { isSofaRoute, type Route, type SofaRoute } from './routes.js';

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
    for (const seg of r.path.split('/')) {
      if (!seg.startsWith(':')) continue;
      const arg = argumentOf(r, seg.slice(1));
      if (!args.has(arg)) throw new Error(`${row}: ${r.field} has no argument '${arg}' for the path parameter`);
    }
    if (r.body && !args.has(r.body)) throw new Error(`${row}: ${r.field} has no argument '${r.body}' to receive the body`);
  }
}
