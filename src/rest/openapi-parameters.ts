/**
 * A row's parameters in the OpenAPI document (src/rest/openapi.ts): its path's, its root field's
 * other arguments in the query string, those of the rows a query parameter chooses, and the
 * projection and suppress_response_codes every row takes.
 */
import type { GraphQLSchema } from 'graphql';
import { argumentOf } from './check-routes.js';
import { bodyHoldsArgs, pathParams, type SofaRoute } from './routes.js';
import { asDateTimeInput } from './openapi-schemas.js';
import { ARGS } from '../schema-conventions.js';
import { argumentSchemas, descriptionsOf, recordSchema, sofaOperation, type Schema, type SofaDoc } from './openapi-sofa.js';

const queryParameter = (name: string, description: string, schema: Schema = { type: 'string' }) => ({ name, in: 'query', required: false, description, schema });

const PROJECTION = [
  queryParameter('fields', 'Comma-separated field names to return (case-insensitive); a name holding a comma goes in brackets as in `q` (`[x,y]`, `]]` for a `]`); href and dataType always stay.'),
  queryParameter('expand', '`data` or `true` for every available field, or relation names to include (each record\'s first `DEFAULT_PAGE_SIZE` related records; at most `MAX_QUERY_ROWS` in all, else a 400).'),
];
const SUPPRESS = queryParameter('suppress_response_codes', '`true`: answer HTTP 200 with the real status in meta.status.', { type: 'boolean' });

/**
 * The parameters of `row`'s operation, and its arguments taken in the query string or the body
 * (`queryOrBody`, the optional body of a row whose body holds its arguments).
 */
export function parametersOf(doc: SofaDoc, schema: GraphQLSchema, row: SofaRoute, alternatives: SofaRoute[]): { parameters: Schema[]; queryOrBody: Record<string, Schema> } {
  const op = sofaOperation(doc, row.field);
  const args = argumentSchemas(op);
  const described = descriptionsOf(schema, row.field);
  // `arg`: the argument a parameter fills (a path parameter's may differ from its name: the row's `params`).
  const parameter = (name: string, where: 'path' | 'query', required: boolean, s: Schema, arg = name, descriptions = described.args): Schema => {
    const description = descriptions.get(arg);
    return { name, in: where, required, ...(description ? { description } : {}), schema: asDateTimeInput(s) };
  };
  const inPathNames = pathParams(row.path);
  const pathArgs = inPathNames.map((name) => argumentOf(row, name));
  const parameters: Schema[] = inPathNames.map((name, i) => parameter(name, 'path', true, args.properties[pathArgs[i]] ?? { type: 'string' }, pathArgs[i]));
  // A row whose body holds its arguments (`bodyHoldsArgs`) takes them from the query string or the body, so neither documents one as required.
  const queryOrBody: Record<string, Schema> = {};
  for (const [name, s] of Object.entries(args.properties)) {
    if (name === row.body || pathArgs.includes(name)) continue;
    queryOrBody[name] = asDateTimeInput(s)!;
    parameters.push(parameter(name, 'query', args.required.includes(name) && !bodyHoldsArgs(row), s));
  }
  // The arguments of a row chosen by a query parameter (`relateToDocId`), optional: the plain row takes none of them.
  for (const other of alternatives) {
    const inPath = inPathNames.map((p) => argumentOf(other, p));
    const descriptions = descriptionsOf(schema, other.field).args;
    for (const [name, s] of Object.entries(argumentSchemas(sofaOperation(doc, other.field)).properties)) {
      if (!inPath.includes(name) && !parameters.some((p) => p.name === name)) parameters.push(parameter(name, 'query', false, s, name, descriptions));
    }
  }
  // A paged row whose field answers its list whole: the envelope cuts the page (src/rest/envelope.ts).
  for (const name of ['limit', 'offset']) {
    if ([row, ...alternatives].some((r) => r.paged) && !parameters.some((p) => p.name === name)) parameters.push(queryParameter(name, ARGS[name], { type: 'integer' }));
  }
  if (row.shape !== 'none' && recordSchema(op, doc.components?.schemas ?? {})) parameters.push(...PROJECTION);
  parameters.push(SUPPRESS);
  return { parameters, queryOrBody };
}
