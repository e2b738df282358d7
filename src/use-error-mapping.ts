/**
 * Maps execution errors once, where the request is known: our AppErrors become GraphQL errors
 * with extensions.code and http.status; errors GraphQL raised itself pass; anything else is
 * logged with the request id and replaced by a 500 that quotes it (details only in the log).
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { appToGraphQL, findAppError, unexpected } from './graphql-errors.js';
import type { Logger } from './log.js';

export function mapError(error: unknown, requestId: string, log: Logger): GraphQLError {
  const app = findAppError(error);
  if (app) return appToGraphQL(app, error instanceof GraphQLError ? error : undefined);
  const ge = error as GraphQLError;
  if (ge instanceof GraphQLError && ge.extensions?.code === 'INTERNAL_SERVER_ERROR') return ge;
  // Errors without a path come from parsing, validation or variable coercion: the request was
  // bad and the message says how. An error with a path and no AppError behind it is our fault.
  if (ge instanceof GraphQLError && !ge.path) return ge;
  log.error({ err: ge?.originalError ?? error, requestId }, 'unexpected error');
  return unexpected(requestId);
}

export function useErrorMapping(log: Logger): Plugin {
  return {
    onExecute({ args }) {
      const requestId = (args.contextValue as { requestId?: string }).requestId ?? 'unknown';
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.length) return;
          setResult({ ...result, errors: result.errors.map((e) => mapError(e, requestId, log)) });
        },
      };
    },
  };
}
