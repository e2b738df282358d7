/**
 * During shutdown every answer says `Connection: close`, so a keep-alive client learns from its
 * last answer that the connection ends there, and does not send its next request into a reset.
 */
import type { Plugin } from 'graphql-yoga';
import { isDraining } from '../draining.js';

export function useConnectionClose(): Plugin {
  return {
    onResponse({ response }) {
      if (isDraining()) response.headers.set('connection', 'close');
    },
  };
}
