/**
 * /graphql's refusals as GraphQL error bodies with a 4xx, where Yoga would answer an empty 415 or
 * a 500: a body in a media type Yoga does not parse (text/plain), and an operation type the schema
 * has none of (a `subscription`, which the compiled executor would otherwise throw on), and a GET
 * whose `variables` or `extensions` are not JSON.
 */
import type { Plugin } from 'graphql-yoga';
import { GraphQLError, type ValidationRule } from 'graphql';
import { AppError, badRequest } from '../errors.js';
import type { Logger } from '../log.js';
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
    onRequestParse({ request, url, requestParser, endResponse }) {
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
    },
    onValidate({ addValidationRule }) {
      addValidationRule(knownOperationType);
    },
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
