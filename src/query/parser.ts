import type { CompareOp, DatePart, QExpr, QOperand } from './ast.js';
import { DATE_PARTS } from './ast.js';
import { lex, type Token } from './lexer.js';
import { near, qError, quote } from './q-error.js';

/**
 * Longest `q` accepted, in UTF-16 code units: room for an `in` list of MAX_IN_LIST GUIDs (about
 * 41,000 characters; the URL holds it under MAX_HEADER_BYTES' default), and a bound on every later stage.
 */
export const MAX_Q_LENGTH = 50_000;
/** Deepest nesting of parentheses, `not` and function calls; keeps recursion far from the stack limit. */
export const MAX_Q_DEPTH = 64;
/** Most values in one `in (...)` list. */
export const MAX_IN_LIST = 1000;

// Maps, not object literals: a client's `constructor` or `__proto__` must not look like an operator.
const WORD_OPS = new Map<string, CompareOp>([['eq', 'eq'], ['ne', 'ne'], ['gt', 'gt'], ['ge', 'ge'], ['lt', 'lt'], ['le', 'le']]);
const SYMBOL_OPS = new Map<string, CompareOp>([['=', 'eq'], ['<>', 'ne'], ['>', 'gt'], ['>=', 'ge'], ['<', 'lt'], ['<=', 'le']]);

/** Words that can never be a bare field name (bracket them to use them as one). */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'and', 'or', 'not', 'like', 'between', 'in', 'is', 'null', 'true', 'false',
  ...WORD_OPS.keys(),
]);
export const FUNCTION_NAMES: ReadonlySet<string> = new Set(['substring', 'dateadd']);

const PART_LIST = 'year, month, day, hour, minute or second';

/**
 * Parses the text of a `q` filter. Grammar (keywords case-insensitive):
 *   filter    := or EOF
 *   or        := and ('or' and)*
 *   and       := unary ('and' unary)*
 *   unary     := 'not' unary | '(' or ')' | predicate
 *   predicate := operand ( cmp operand | ['not'] 'like' operand | ['not'] 'between' operand 'and' operand
 *                        | ['not'] 'in' '(' operand (',' operand)* ')' | 'is' ['not'] 'null' )
 *   operand   := [field] | ident | 'string' | number | null | true | false
 *              | substring '(' operand ',' operand ',' operand ')' | dateadd '(' part ',' operand ',' operand ')'
 * Recursive descent with one token of lookahead: linear time, and depth bounded by MAX_Q_DEPTH.
 */
export function parseQ(input: string): QExpr {
  if (typeof input !== 'string') throw qError('the filter must be a string', undefined);
  if (input.length > MAX_Q_LENGTH) {
    throw qError(`the filter is too long (${input.length} characters; the maximum is ${MAX_Q_LENGTH})`, undefined);
  }
  if (input.trim() === '') throw qError('the filter is empty', undefined);
  return new Parser(input, lex(input)).parseFilter();
}

class Parser {
  private i = 0;

  constructor(
    private readonly input: string,
    private readonly tokens: Token[],
  ) {}

  parseFilter(): QExpr {
    const expr = this.parseOr(0, '');
    const t = this.peek();
    if (t.kind === ')') throw this.fail(`unexpected ')'`, t);
    if (t.kind !== 'eof') throw this.fail(`expected 'and', 'or' or the end of the filter`, t, t);
    return expr;
  }

  private parseOr(depth: number, after: string): QExpr {
    const items = [this.parseAnd(depth, after)];
    while (this.isWord('or')) items.push(this.parseAnd(depth, `after ${quote(this.next().raw)}`));
    return items.length === 1 ? items[0] : { kind: 'or', items };
  }

  private parseAnd(depth: number, after: string): QExpr {
    const items = [this.parseUnary(depth, after)];
    while (this.isWord('and')) items.push(this.parseUnary(depth, `after ${quote(this.next().raw)}`));
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  private parseUnary(depth: number, after: string): QExpr {
    const t = this.peek();
    if (this.isWord('not')) {
      this.enter(depth, t);
      this.next();
      return { kind: 'not', expr: this.parseUnary(depth + 1, `after ${quote(t.raw)}`), pos: t.pos };
    }
    if (t.kind === '(') {
      this.enter(depth, t);
      this.next();
      const expr = this.parseOr(depth + 1, `after '('`);
      const close = this.peek();
      if (close.kind !== ')') {
        throw this.fail(`expected ')'`, close, close, `to close the '(' at position ${t.pos}`);
      }
      this.next();
      return expr;
    }
    if (!this.startsOperand(t)) throw this.fail(`expected a condition${after ? ` ${after}` : ''}`, t, t);
    return this.parsePredicate(depth);
  }

  private parsePredicate(depth: number): QExpr {
    const value = this.parseOperand(depth, '');
    const t = this.peek();
    const word = t.kind === 'ident' ? t.text.toLowerCase() : undefined;
    const op = t.kind === 'op' ? SYMBOL_OPS.get(t.text) : word !== undefined ? WORD_OPS.get(word) : undefined;
    if (op) {
      this.next();
      return { kind: 'compare', op, left: value, right: this.parseOperand(depth, `after ${quote(t.raw)}`), pos: t.pos };
    }
    if (word === 'is') {
      this.next();
      const negated = this.isWord('not');
      if (negated) this.next();
      const n = this.peek();
      if (!this.isWord('null')) throw this.fail(`expected 'null' after ${quote(negated ? 'is not' : 'is')}`, n, n);
      this.next();
      return { kind: 'isNull', negated, value, pos: t.pos };
    }
    let negated = false;
    let opToken = t;
    if (word === 'not') {
      negated = true;
      this.next();
      opToken = this.peek();
      const w = opToken.kind === 'ident' ? opToken.text.toLowerCase() : '';
      if (w !== 'like' && w !== 'in' && w !== 'between') {
        throw this.fail(`expected 'like', 'in' or 'between' after 'not'`, opToken, opToken);
      }
    }
    const kw = opToken.kind === 'ident' ? opToken.text.toLowerCase() : '';
    const label = `after ${quote(negated ? `not ${opToken.raw}` : opToken.raw)}`;
    if (kw === 'like') {
      this.next();
      return { kind: 'like', negated, value, pattern: this.parseOperand(depth, label), pos: t.pos };
    }
    if (kw === 'between') {
      this.next();
      const low = this.parseOperand(depth, label);
      const and = this.peek();
      if (!this.isWord('and')) throw this.fail(`expected 'and' after the lower bound of 'between'`, and, and);
      this.next();
      const high = this.parseOperand(depth, `after ${quote(and.raw)} in 'between'`);
      return { kind: 'between', negated, value, low, high, pos: t.pos };
    }
    if (kw === 'in') {
      this.next();
      return { kind: 'in', negated, value, list: this.parseInList(depth, label), pos: t.pos };
    }
    throw this.fail(
      `expected an operator (eq, ne, gt, ge, lt, le, like, between, in or is) after ${describeOperand(value)}`,
      t,
      t,
    );
  }

  private parseInList(depth: number, label: string): QOperand[] {
    const open = this.peek();
    if (open.kind !== '(') throw this.fail(`expected '(' ${label}`, open, open);
    this.next();
    const list = [this.parseOperand(depth, `after '('`)];
    for (;;) {
      const t = this.peek();
      if (t.kind === ')') break;
      if (t.kind !== ',') {
        throw this.fail(`expected ',' or ')'`, t, t, `in the 'in' list opened at position ${open.pos}`);
      }
      this.next();
      const item = this.peek();
      if (list.length >= MAX_IN_LIST) throw this.fail(`too many values in the 'in' list (the maximum is ${MAX_IN_LIST})`, item);
      list.push(this.parseOperand(depth, `after ','`));
    }
    this.next();
    return list;
  }

  private parseOperand(depth: number, after: string): QOperand {
    const t = this.peek();
    switch (t.kind) {
      case 'field':
        this.next();
        return { kind: 'field', name: t.text, pos: t.pos };
      case 'string':
        this.next();
        return { kind: 'string', value: t.text, pos: t.pos };
      case 'number':
        this.next();
        return { kind: 'number', value: t.value as number, text: t.text, pos: t.pos };
      case 'ident': {
        const word = t.text.toLowerCase();
        if (this.tokens[this.i + 1].kind === '(' && !RESERVED_WORDS.has(word)) return this.parseCall(depth, t);
        if (RESERVED_WORDS.has(word) && word !== 'null' && word !== 'true' && word !== 'false') break;
        this.next();
        if (word === 'null') return { kind: 'null', pos: t.pos };
        if (word === 'true' || word === 'false') return { kind: 'boolean', value: word === 'true', pos: t.pos };
        return { kind: 'field', name: t.text, pos: t.pos };
      }
    }
    throw this.fail(`expected a value${after ? ` ${after}` : ''}`, t, t);
  }

  private parseCall(depth: number, name: Token): QOperand {
    const fn = name.text.toLowerCase();
    if (!FUNCTION_NAMES.has(fn)) throw this.fail(`unknown function ${quote(name.raw)}`, name, undefined, '(expected substring or dateadd)');
    this.enter(depth, name);
    this.next(); // name
    this.next(); // '('
    const inner = depth + 1;
    if (fn === 'substring') {
      const value = this.parseOperand(inner, `as the first argument of substring`);
      this.expect(',', 'after the first argument of substring');
      const start = this.parseOperand(inner, 'as the start of substring');
      this.expect(',', 'after the start of substring');
      const length = this.parseOperand(inner, 'as the length of substring');
      this.expect(')', 'to close substring(');
      return { kind: 'substring', value, start, length, pos: name.pos };
    }
    const part = this.parseDatePart();
    this.expect(',', 'after the date part of dateadd');
    const amount = this.parseOperand(inner, 'as the amount of dateadd');
    this.expect(',', 'after the amount of dateadd');
    const value = this.parseOperand(inner, 'as the last argument of dateadd');
    this.expect(')', 'to close dateadd(');
    return { kind: 'dateadd', part, amount, value, pos: name.pos };
  }

  /** `day` or `'day'`: always a date part here, never a field; only a fixed list ever reaches the SQL. */
  private parseDatePart(): DatePart {
    const t = this.peek();
    const text = t.kind === 'ident' || t.kind === 'string' ? t.text.toLowerCase() : undefined;
    const part = DATE_PARTS.find((p) => p === text);
    if (!part) {
      if (text !== undefined) throw this.fail(`unknown date part ${quote(t.raw)} in dateadd`, t, undefined, `(expected ${PART_LIST})`);
      throw this.fail(`expected a date part (${PART_LIST}) as the first argument of dateadd`, t, t);
    }
    this.next();
    return part;
  }

  private expect(kind: ',' | ')', what: string): void {
    const t = this.peek();
    if (t.kind !== kind) throw this.fail(`expected '${kind}' ${what}`, t, t);
    this.next();
  }

  private enter(depth: number, at: Token): void {
    if (depth + 1 > MAX_Q_DEPTH) throw this.fail(`the filter is nested too deeply (the maximum is ${MAX_Q_DEPTH} levels)`, at);
  }

  private startsOperand(t: Token): boolean {
    if (t.kind === 'field' || t.kind === 'string' || t.kind === 'number') return true;
    if (t.kind !== 'ident') return false;
    const word = t.text.toLowerCase();
    return !RESERVED_WORDS.has(word) || word === 'null' || word === 'true' || word === 'false';
  }

  private isWord(word: string): boolean {
    const t = this.peek();
    return t.kind === 'ident' && t.text.toLowerCase() === word;
  }

  private peek(): Token {
    return this.tokens[this.i];
  }

  private next(): Token {
    const t = this.tokens[this.i];
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  /**
   * A 400 at `at`: `extra` follows the position ("... at position 9 (expected year, ...)"), then
   * what was there instead: "(found 'x')" or "(end of the filter)".
   */
  private fail(problem: string, at: Token, found?: Token, extra?: string): Error {
    const foundText = found === undefined ? '' : found.kind === 'eof' ? ' (end of the filter)' : ` (found ${quote(found.raw)})`;
    return qError(problem, at.pos, `${extra ? ` ${extra}` : ''}${foundText}`, `Near: ${near(this.input, at.pos)}`);
  }
}

function describeOperand(operand: QOperand): string {
  switch (operand.kind) {
    case 'field':
      return `field ${quote(operand.name)}`;
    case 'string':
      return `the string ${quote(operand.value)}`;
    case 'number':
      return `the number ${operand.text ?? operand.value}`;
    case 'boolean':
      return String(operand.value);
    case 'null':
      return 'null';
    default:
      return `${operand.kind}(...)`;
  }
}
