/**
 * PostgreSQL text cannot hold U+0000. A GraphQL request carrying one (in the query or its
 * variables) is refused as a 400 before execution, instead of failing in the database as a 500.
 * REST requests are checked where their path, query and body are read (src/rest/).
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export function useNoNul(): Plugin {
  return {
    onParams({ params }) {
      if (params.query?.includes('\u0000') || (params.variables && JSON.stringify(params.variables).includes('\\u0000'))) {
        throw new GraphQLError('The request must not contain NUL (U+0000) characters.', {
          extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
        });
      }
    },
  };
}
