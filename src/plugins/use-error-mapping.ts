/**
 * /graphql's errors mapped once, where the request is known (see `mapError`): execution errors
 * as execution ends, and those Yoga caught elsewhere (`Unmapped`) as the result is answered.
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { mapError, Unmapped } from '../graphql-errors.js';
import { placedRefusals } from '../variable-refusals.js';
import type { Logger } from '../log.js';
import { requestIdOf } from '../rest/request-id.js';

export function useErrorMapping(log: Logger): Plugin {
  return {
    onExecute({ args }) {
      const requestId = (args.contextValue as { requestId?: string }).requestId ?? 'unknown';
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.length) return;
          const placed = placedRefusals(args, result);
          setResult({ ...placed, errors: placed.errors?.map((e) => asRequestError(mapError(e, requestId, log))) });
        },
      };
    },
    onResultProcess({ request, result, setResult }) {
      const errors = (result as ExecutionResult).errors;
      if (!errors?.some((e) => e instanceof Unmapped)) return;
      const requestId = requestIdOf(request);
      setResult({ ...result, errors: errors.map((e) => (e instanceof Unmapped ? mapError(e.error, requestId, log) : e)) });
    },
  };
}

/**
 * An execution error without a path is the request's (a variable GraphQL could not take): a
 * `BAD_REQUEST` that gives the scalar's reason, answered as Yoga answers validation errors, 400 under
 * `application/graphql-response+json` (a response without `data` must not be a 2xx there) and
 * 200 under `application/json`, as the GraphQL-over-HTTP spec asks.
 */
function asRequestError(e: GraphQLError): GraphQLError {
  if (e.path || e.extensions?.code) return e;
  // graphql-jit says only "Expected type JSON."; the scalar's own reason says what to change.
  const reason = e.originalError?.message;
  return new GraphQLError(reason && !e.message.includes(reason) ? `${e.message} ${reason}` : e.message, {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    originalError: e.originalError,
    extensions: { ...e.extensions, code: 'BAD_REQUEST', http: { status: 400, spec: true } },
  });
}
