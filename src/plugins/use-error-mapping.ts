/**
 * /graphql's errors mapped once, where the request is known (see `mapError`): execution errors
 * as execution ends, and those Yoga caught elsewhere (`Unmapped`) as the result is answered.
 * Refused values are placed (`extensions.field`): a variable's as execution ends, a literal's as
 * validation ends, on every request, the result cached for its document or not.
 */
import { GraphQLError, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { mapError, placedInSource, Unmapped } from '../graphql-errors.js';
import { placedLiterals } from '../literal-refusals.js';
import { placedRefusals } from '../variable-refusals.js';
import type { Logger } from '../log.js';
import { requestIdOf } from '../rest/request-id.js';
import { requestSlot } from '../request-slot.js';

export function useErrorMapping(log: Logger): Plugin {
  // Requests whose operation ran and raised errors: their statuses are set as execution's (`answeredAs`).
  const executed = requestSlot<true>('executedWithErrors');
  return {
    onValidate({ params }) {
      return ({ result, setResult }) => {
        if (result.length) setResult(placedLiterals(params.documentAST, result));
      };
    },
    onExecute({ args }) {
      const ctx = args.contextValue as { requestId?: string; request?: Request };
      const requestId = ctx.requestId ?? 'unknown';
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.length) return;
          if (ctx.request) executed.set(ctx.request, true);
          const placed = placedRefusals(args, result);
          const source = (args.document as DocumentNode).loc?.source;
          setResult({ ...placed, errors: placed.errors?.map((e) => asRequestError(mapError(placedInSource(e, source), requestId, log))) });
        },
      };
    },
    onResultProcess({ request, result, setResult }) {
      const r = result as ExecutionResult;
      if (!r.errors?.length) return;
      const ran = executed.get(request) === true;
      if (!ran && !r.errors.some((e) => e instanceof Unmapped)) return;
      const requestId = requestIdOf(request);
      const mapped = r.errors.map((e) => (e instanceof Unmapped ? mapError(e.error, requestId, log) : e));
      setResult({ ...r, errors: ran ? mapped.map((e) => answeredAs(e, r.data != null)) : mapped });
    },
  };
}

/**
 * The HTTP status an execution error gives /graphql's answer, by Yoga's `extensions.http` (which
 * is never sent; `extensions.code` says the same to the client). Under `application/json` a
 * 200, as the GraphQL-over-HTTP spec asks for any well-formed request (`spec: true` makes Yoga
 * skip the status there): clients such as Apollo take any other status for a network failure and
 * hide the errors. Under `application/graphql-response+json` the error's status while `data` is
 * null, and a 200 once any field was answered (`partial`), which that media type requires. While
 * `data` is null, a 401 (the token's session ended) and a 5xx (the database away) keep their
 * status under both: nothing was served, and clients log in again or retry by the status. A
 * script server's 502 or 504 never does: `runScript`, like every root field, is nullable.
 */
function answeredAs(e: GraphQLError, partial: boolean): GraphQLError {
  const http = e.extensions?.http as { status?: number; spec?: boolean } | undefined;
  const status = http?.status;
  if (!http || !status || (!partial && (status === 401 || status >= 500))) return e;
  return new GraphQLError(e.message, {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    path: e.path,
    originalError: e.originalError,
    extensions: { ...e.extensions, http: partial ? { ...http, status: undefined } : { ...http, spec: true } },
  });
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
