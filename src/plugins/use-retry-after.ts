/** Every 503 (the database away: src/db/unavailable.ts) tells the client when to try again, on REST and /graphql. */
import type { Plugin } from 'graphql-yoga';
import { RETRY_AFTER_SECONDS } from '../db/unavailable.js';

export function useRetryAfter(): Plugin {
  return {
    onResponse({ response }) {
      if (response.status === 503 && !response.headers.has('retry-after')) response.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
    },
  };
}
