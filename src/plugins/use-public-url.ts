/** PUBLIC_URL, when set, is the address every href and pagination link of the answer shows (src/rest/public-url.ts). */
import type { Plugin } from 'graphql-yoga';
import { markPublicUrl } from '../rest/public-url.js';

export function usePublicUrl(publicUrl: string | undefined): Plugin {
  return {
    onRequest({ request }) {
      markPublicUrl(request, publicUrl);
    },
  };
}
