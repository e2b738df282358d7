/**
 * How REST runs SOFA's operations: compiled with graphql-jit once per document and called
 * directly. REST documents are fixed at start-up (SOFA's, and the variants of src/rest/expand.ts),
 * so the /graphql pipeline's per-request work (envelop's context and execute hooks, parse,
 * validation and armor's limits, none of which a fixed document needs) cost a REST read about
 * 8% of its CPU for nothing. Errors are mapped by the same function as on /graphql.
 */
import type { ExecutionArgs, ExecutionResult, DocumentNode } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import { mapError } from '../use-error-mapping.js';

export type RestExecute = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;

export function createRestExecute(log: Logger): RestExecute {
  const compiled = new WeakMap<DocumentNode, CompiledQuery>();

  const compiledOf = (args: ExecutionArgs): CompiledQuery => {
    let c = compiled.get(args.document);
    if (!c) {
      const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
      // A fixed document that does not compile is our bug, not the caller's: a 500 with the reason logged.
      if (!isCompiledQuery(result)) throw new Error(`REST document does not compile: ${result.errors?.map((e) => e.message).join('; ')}`);
      compiled.set(args.document, (c = result));
    }
    return c;
  };

  const mapped = (result: ExecutionResult, ctx: AppContext): ExecutionResult =>
    result.errors?.length ? { ...result, errors: result.errors.map((e) => mapError(e, ctx.requestId, log)) } : result;

  return (args) => {
    const ctx = args.contextValue as AppContext;
    const result = compiledOf(args).query(args.rootValue, ctx, args.variableValues);
    return result instanceof Promise ? result.then((r) => mapped(r, ctx)) : mapped(result, ctx);
  };
}
