/** /graphql's execution errors mapped once, where the request is known (see `mapError`). */
import type { Plugin } from 'graphql-yoga';
import { mapError } from '../graphql-errors.js';
import type { Logger } from '../log.js';

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
