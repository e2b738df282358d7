/** /graphql's operations run with the session check around them (src/auth/session.ts), as REST's do. */
import type { Plugin } from 'graphql-yoga';
import { withSessionCheck } from '../auth/session.js';

/** Listed after the compiled-execution plugin, so that it wraps the executor that really runs. */
export function useSessionCheck(): Plugin {
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn(withSessionCheck(executeFn));
    },
  };
}
