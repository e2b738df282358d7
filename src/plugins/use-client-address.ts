/** Works out each request's caller address once (src/rest/client-address.ts), for REST and /graphql alike. */
import type { Plugin } from 'graphql-yoga';
import { trustList } from '../addresses.js';
import { setClientAddress, type ServerContext } from '../rest/client-address.js';

export function useClientAddress(trustedProxies: string[]): Plugin {
  const list = trustList(trustedProxies);
  return {
    onRequest({ request, serverContext }) {
      setClientAddress(request, list, serverContext as ServerContext | undefined);
    },
  };
}
