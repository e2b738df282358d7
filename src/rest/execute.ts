/**
 * How REST runs SOFA's operations: compiled with graphql-jit once per document and called
 * directly. REST documents are fixed at start-up (SOFA's, and the variants of src/rest/expand.ts),
 * so the /graphql pipeline's per-request work (envelop's context and execute hooks, parse,
 * validation and armor's limits, none of which a fixed document needs) cost a REST read about
 * 13% of its CPU for nothing. The caller maps errors (src/rest/run-route.ts, with `mapError`).
 */
import type { DocumentNode, ExecutionArgs, ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { placedRefusals, tooManyRefusals } from '../variable-refusals.js';

type RestExecute = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;

export function createRestExecute(): RestExecute {
  const compiled = new WeakMap<DocumentNode, CompiledQuery>();
  return (args) => {
    let c = compiled.get(args.document);
    if (!c) {
      const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
      // A fixed document that does not compile is our bug, not the caller's: a 500 with the reason logged.
      if (!isCompiledQuery(result)) throw new Error(`REST document does not compile: ${result.errors?.map((e) => e.message).join('; ')}`);
      compiled.set(args.document, (c = result));
    }
    // jit words every refused value: past the limit, graphql-js's coercion answers (it stops there).
    const refused = tooManyRefusals(args);
    if (refused) return refused;
    const result = c.query(args.rootValue, args.contextValue, args.variableValues) as ExecutionResult | Promise<ExecutionResult>;
    // Refused variables come back at once, never in a promise.
    return result instanceof Promise ? result : placedRefusals(args, result);
  };
}
