/**
 * A /graphql query whose brackets, braces or parentheses nest deeper than any real one is refused
 * before it is parsed. graphql-js parses a list or object literal recursively, some frames a level,
 * and at about 2000 levels, still under the token limit, the stack ran out: a 500 and an error
 * line for `persistedData: [[[[...]]]]`. The levels are counted by graphql-js's own lexer over the
 * tokens the token limit lets through; a token it cannot read is left to the parser to report.
 */
import { GraphQLError, Lexer, Source, TokenKind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { MAX_JSON_DEPTH } from '../nesting.js';

/** A selection 8 fields deep with arguments, holding a JSON literal as deep as the JSON scalar takes, stays well inside. */
export const MAX_QUERY_NESTING = 2 * MAX_JSON_DEPTH;

const OPENING = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

function nestsTooDeep(source: string | Source, maxTokens: number): boolean {
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
  let depth = 0;
  try {
    for (let n = 0, token = lexer.advance(); token.kind !== TokenKind.EOF && n <= maxTokens; n++, token = lexer.advance()) {
      if (OPENING.has(token.kind) && ++depth > MAX_QUERY_NESTING) return true;
      if (CLOSING.has(token.kind)) depth--;
    }
  } catch {
    // Not readable as tokens: the parser says where.
  }
  return false;
}

/** Registered after the token limit's plugin, whose parser it wraps. */
export function useNestingLimit(maxTokens: number): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        if (nestsTooDeep(source, maxTokens)) {
          throw new GraphQLError(`The query nests brackets, braces and parentheses more than ${MAX_QUERY_NESTING} levels deep.`);
        }
        return parseFn(source, options);
      });
    },
  };
}
