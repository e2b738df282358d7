/** With a CORS allowlist, answers differ by Origin: say so, so that a shared cache keeps them apart. */
import type { Plugin } from 'graphql-yoga';

export function useVaryOrigin(origins: string[]): Plugin {
  if (origins.length === 0) return {};
  return {
    onResponse({ response }) {
      const vary = response.headers.get('vary');
      if (!vary?.toLowerCase().split(/\s*,\s*/).includes('origin')) response.headers.set('vary', vary ? `${vary}, Origin` : 'Origin');
    },
  };
}
