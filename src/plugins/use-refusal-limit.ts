/**
 * /graphql's variables held to `MAX_REFUSALS` refused values before they reach graphql-jit, which
 * would word every one (src/variable-refusals.ts), as REST's executor holds them
 * (src/rest/execute.ts). Listed after the compiled-execution plugin, so that it wraps the executor
 * that really runs, and before the session check, which wraps it in turn.
 */
import type { ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { tooManyRefusals } from '../variable-refusals.js';

export function useRefusalLimit(): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args: ExecutionArgs) => tooManyRefusals(args) ?? executeFn(args));
    },
  };
}
