import { near, qError, quote } from './q-error.js';

/**
 * Tokens of the `q` language. Keywords are plain `ident` tokens: the parser decides, case-insensitively,
 * whether an identifier is a keyword, a function name or a field, because that depends on where it is.
 */
export type TokenKind = 'ident' | 'field' | 'string' | 'number' | 'op' | '(' | ')' | ',' | 'eof';

export interface Token {
  kind: TokenKind;
  /** ident: as written; field: the bracketed name, unescaped; string: the value, unescaped; op: normalised symbol. */
  text: string;
  /** Only for `number`. */
  value?: number;
  /** 1-based position of the first character. */
  pos: number;
  /** The exact source text, for messages. */
  raw: string;
}

/** Symbols the language accepts as comparison operators; the first two are spelled out, the rest are courtesies. */
const SYMBOL_OPS = ['<>', '!=', '>=', '<=', '=', '>', '<'];

const isDigit = (c: string) => c >= '0' && c <= '9';
const isIdentStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isIdentPart = (c: string) => isIdentStart(c) || isDigit(c) || c === '.';
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

/** One left-to-right pass; every branch consumes at least one character, so it is linear in the input. */
export function lex(input: string): Token[] {
  const tokens: Token[] = [];
  const n = input.length;
  let i = 0;
  const fail = (problem: string, at: number, detail = '') => qError(problem, at + 1, detail, `Near: ${near(input, at + 1)}`);

  while (i < n) {
    const c = input[i];
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    const push = (kind: TokenKind, text: string, value?: number) =>
      tokens.push({ kind, text, value, pos: start + 1, raw: input.slice(start, i) });

    if (c === '(' || c === ')' || c === ',') {
      i++;
      push(c, c);
    } else if (c === "'") {
      i = readQuoted(input, i, "'");
      if (i < 0) throw fail('unterminated string starting', start);
      push('string', input.slice(start + 1, i - 1).replaceAll("''", "'"));
    } else if (c === '[') {
      const field = readBracketed(input, i);
      if (!field) throw fail('unterminated field name starting', start);
      if (field.name.trim() === '') throw fail('empty field name', start);
      i = field.end;
      push('field', field.name);
    } else if (isDigit(c) || (c === '-' && i + 1 < n && isDigit(input[i + 1]))) {
      i = readNumber(input, i);
      const raw = input.slice(start, i);
      const value = Number(raw);
      if (!Number.isFinite(value)) throw fail(`number ${quote(raw)} is out of range`, start);
      push('number', raw, value);
    } else if (isIdentStart(c)) {
      while (i < n && isIdentPart(input[i])) i++;
      push('ident', input.slice(start, i));
    } else {
      const op = SYMBOL_OPS.find((s) => input.startsWith(s, i));
      // `[a]b]` for the field `a]b` ends the name at the first `]`: say how to write one inside it.
      if (!op) throw fail(`unexpected character ${describeChar(input, i)}`, start, c === ']' ? ` (a ']' inside a bracketed field name is written ']]')` : '');
      i += op.length;
      push('op', op === '!=' ? '<>' : op);
    }
  }
  tokens.push({ kind: 'eof', text: '', pos: n + 1, raw: '' });
  return tokens;
}

/**
 * The field name in `[...]` at `open` (T-SQL quoting: `]]` is one `]`, nothing else is special) and
 * the index just past its `]`; undefined when no `]` closes it. `q` and `fields=` both read names so.
 */
export function readBracketed(input: string, open: number): { name: string; end: number } | undefined {
  const end = readQuoted(input, open, ']');
  return end < 0 ? undefined : { name: input.slice(open + 1, end - 1).replaceAll(']]', ']'), end };
}

/**
 * Reads `'...'` or `[...]` starting at `open`, where a doubled closing character is an escaped one.
 * Returns the index just past the closing character, or -1 when none closes it.
 */
function readQuoted(input: string, open: number, close: string): number {
  let i = open + 1;
  for (;;) {
    const j = input.indexOf(close, i);
    if (j < 0) return -1;
    if (input[j + 1] === close) {
      i = j + 2;
      continue;
    }
    return j + 1;
  }
}

/** `-?digits(.digits)?([eE][+-]?digits)?`; the caller has checked the first digit is there. */
function readNumber(input: string, i: number): number {
  if (input[i] === '-') i++;
  while (i < input.length && isDigit(input[i])) i++;
  if (input[i] === '.' && isDigit(input[i + 1] ?? '')) {
    i++;
    while (i < input.length && isDigit(input[i])) i++;
  }
  if (input[i] === 'e' || input[i] === 'E') {
    let j = i + 1;
    if (input[j] === '+' || input[j] === '-') j++;
    if (isDigit(input[j] ?? '')) {
      while (j < input.length && isDigit(input[j])) j++;
      i = j;
    }
  }
  return i;
}

/** Printable characters are shown quoted; control and invisible ones by code point. */
function describeChar(input: string, i: number): string {
  const cp = input.codePointAt(i) ?? 0;
  const ch = String.fromCodePoint(cp);
  if (/[\p{L}\p{N}\p{P}\p{S}]/u.test(ch)) return `'${ch}'`;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}
