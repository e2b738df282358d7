/**
 * /graphql's refusals as GraphQL error bodies with a 4xx, where Yoga would answer an empty 415 or
 * a 500: a body in a media type Yoga does not parse (text/plain), and an operation type the schema
 * has none of (a `subscription`, which the compiled executor would otherwise throw on), and a GET
 * whose `variables` or `extensions` are not JSON; and a multipart request whose `operations` or
 * `map` is missing or malformed, which Yoga answered with no code (a 200), or a 500.
 */
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { GraphQLError, type ValidationRule } from 'graphql';
import { AppError, badRequest } from '../errors.js';
import { findAppError, throwAsGraphQL } from '../graphql-errors.js';
import type { Logger } from '../log.js';
import { isMultipart } from '../rest/body.js';
import { errorAnswer } from './error-answer.js';

const knownOperationType: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (context.getSchema().getRootType(node.operation)) return;
    const message = `This service has no ${node.operation} operations: send a query or a mutation.`;
    // A 400 whatever the Accept header (spec: false): Yoga answers other validation errors to application/json with a 200.
    context.reportError(new GraphQLError(message, { nodes: node, extensions: { code: 'BAD_REQUEST', http: { status: 400, spec: false } } }));
  },
});

export function useGraphQLTransport(log: Logger): Plugin {
  return {
    onRequestParse({ request, url, requestParser, setRequestParser, endResponse }) {
      // Yoga's method check answers any other (OPTIONS, PUT): a 405 with Allow, not this 415.
      if (request.method !== 'GET' && request.method !== 'POST') return;
      if (!requestParser) {
        const type = request.headers.get('content-type') ?? 'none';
        const message = `A GraphQL request is sent as application/json (or GET with a query string), not ${type}.`;
        return endResponse(errorAnswer(request, url, new AppError('UNSUPPORTED_MEDIA_TYPE', message), log));
      }
      // Yoga's GET parser throws on these when they are not JSON: a 500.
      for (const name of ['variables', 'extensions']) {
        const value = request.method === 'GET' ? url.searchParams.get(name) : null;
        if (value && !isJson(value)) {
          return endResponse(errorAnswer(request, url, badRequest(`The query parameter '${name}' must be a JSON object, got '${value.slice(0, 64)}'.`), log));
        }
      }
      if (isMultipart(request.headers.get('content-type'))) setRequestParser((req) => parseMultipart(req, requestParser));
    },
    onValidate({ addValidationRule }) {
      addValidationRule(knownOperationType);
    },
  };
}

const MAP_RULE = 'Multipart form field "map" must be a JSON object whose values are arrays of paths into "operations", such as {"0": ["variables.file"]}.';

type Parsed = GraphQLParams | GraphQLParams[] | Response;

/**
 * Yoga's multipart parser, its refusals made 400s with a code: it throws a missing or non-JSON
 * `operations` or `map` without one, a `map` entry that is not an array of paths as a TypeError,
 * and passes on `operations` that is not an object (a TypeError later). Refusals that have a
 * code (not multipart at all, a 413) pass as they are.
 */
async function parseMultipart(request: Request, parse: (request: Request) => Parsed | Promise<Parsed>): Promise<Parsed> {
  let operations: Parsed;
  try {
    operations = await parse(request);
  } catch (e) {
    if (findAppError(e) || (e instanceof GraphQLError && e.extensions?.code)) throw e;
    if (e instanceof GraphQLError) throwAsGraphQL(badRequest(`${e.message}.`));
    if (e instanceof TypeError) throwAsGraphQL(badRequest(MAP_RULE));
    throw e;
  }
  if (typeof operations !== 'object' || operations === null) {
    throwAsGraphQL(badRequest(`Multipart form field "operations" must be a JSON object (the GraphQL request: query, variables), got ${JSON.stringify(operations)?.slice(0, 64)}.`));
  }
  return operations;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
