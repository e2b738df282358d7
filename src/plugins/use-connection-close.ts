/**
 * `Connection: close` on an answer after which the connection should not go on, and Node closes
 * it once the answer is out. During shutdown, so a keep-alive client learns from its last answer
 * that the connection ends there, and does not send its next request into a reset. On a 413,
 * whose body was not read to its end: to keep the connection Node would read, and the client
 * have to send, the rest of it first.
 */
import type { Plugin } from 'graphql-yoga';
import { isDraining } from '../draining.js';

export function useConnectionClose(): Plugin {
  return {
    onResponse({ response }) {
      if (isDraining() || response.status === 413) response.headers.set('connection', 'close');
    },
  };
}
