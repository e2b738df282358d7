import { AppError } from '../../src/errors.js';
import {
  MAX_IN_LIST,
  MAX_Q_DEPTH,
  MAX_Q_LENGTH,
  parseQ,
  withoutPositions,
  type QExpr,
  type QOperand,
} from '../../src/query/index.js';
import { appErrorOf, badRequestOf } from './support.js';

const field = (name: string): QOperand => ({ kind: 'field', name });
const str = (value: string): QOperand => ({ kind: 'string', value });
const num = (value: number): QOperand => ({ kind: 'number', value });
const eq = (left: QOperand, right: QOperand): QExpr => ({ kind: 'compare', op: 'eq', left, right });

/** Parses and drops positions, to compare structure. */
const parse = (q: string) => withoutPositions(parseQ(q));

/** The error message of parsing `q` (asserting it is a 400 AppError). */
function parseError(q: string): string {
  const error = badRequestOf(() => parseQ(q));
  expect(error.code).toBe('BAD_REQUEST');
  return error.message;
}

describe('parseQ: comparisons', () => {
  it('parses a bracketed field compared with a string', () => {
    expect(parse("[name] eq 'Home'")).toEqual(eq(field('name'), str('Home')));
  });

  it('parses every word operator, case-insensitively', () => {
    for (const op of ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const) {
      expect(parse(`scope ${op.toUpperCase()} 1`)).toEqual({ kind: 'compare', op, left: field('scope'), right: num(1) });
    }
  });

  it.each([
    ['=', 'eq'],
    ['<>', 'ne'],
    ['!=', 'ne'],
    ['>', 'gt'],
    ['>=', 'ge'],
    ['<', 'lt'],
    ['<=', 'le'],
  ])('accepts %s as %s', (symbol, op) => {
    expect(parse(`scope${symbol}-5`)).toEqual({ kind: 'compare', op, left: field('scope'), right: num(-5) });
  });

  it('parses numbers: integers, negatives, decimals, exponents', () => {
    expect(parse('scope eq 1')).toEqual(eq(field('scope'), num(1)));
    expect(parse('scope eq -2')).toEqual(eq(field('scope'), num(-2)));
    expect(parse('scope eq 3.5')).toEqual(eq(field('scope'), num(3.5)));
    expect(parse('scope eq 1e3')).toEqual(eq(field('scope'), num(1000)));
  });

  it("unescapes '' inside strings and ]] inside bracketed names", () => {
    expect(parse("[first name] eq 'O''Brien'")).toEqual(eq(field('first name'), str("O'Brien")));
    expect(parse("[odd]]name] eq ''")).toEqual(eq(field('odd]name'), str('')));
  });

  it.each([
    ['[a]]b]', 'a]b'],
    ['[]]ab]', ']ab'],
    ['[ab]]]', 'ab]'],
    ['[]]]', ']'],
    ['[]]]]]', ']]'],
    ['[[]', '['],
    ['[a[b]', 'a[b'],
    ['[[a]]]', '[a]'],
    ['[x,y]', 'x,y'],
    ["[it's]", "it's"],
  ])('reads %s as the field %s (T-SQL quoting: only ]] is special inside brackets)', (written, name) => {
    expect(parse(`${written} eq 'v'`)).toEqual(eq(field(name), str('v')));
    expect(parse(`'v' eq ${written}`)).toEqual(eq(str('v'), field(name)));
  });

  it('parses bare identifiers with digits, underscores and dots', () => {
    expect(parse("_a.b_2 = 'x'")).toEqual(eq(field('_a.b_2'), str('x')));
  });

  it('keeps the field name as written (the compiler resolves it case-insensitively)', () => {
    expect(parse("NAME eq 'x'")).toEqual(eq(field('NAME'), str('x')));
  });

  it('parses null, true and false case-insensitively', () => {
    expect(parse('enabled eq TRUE')).toEqual(eq(field('enabled'), { kind: 'boolean', value: true }));
    expect(parse('enabled eq false')).toEqual(eq(field('enabled'), { kind: 'boolean', value: false }));
    expect(parse('name eq Null')).toEqual(eq(field('name'), { kind: 'null' }));
  });

  it('parses is null and is not null', () => {
    expect(parse('name is null')).toEqual({ kind: 'isNull', negated: false, value: field('name') });
    expect(parse('name IS NOT NULL')).toEqual({ kind: 'isNull', negated: true, value: field('name') });
  });

  it('allows values on either side and between two fields', () => {
    expect(parse("'x' eq name")).toEqual(eq(str('x'), field('name')));
    expect(parse('name eq description')).toEqual(eq(field('name'), field('description')));
  });
});

describe('parseQ: like, between, in', () => {
  it('parses like and not like', () => {
    expect(parse("userid like 'ad%'")).toEqual({ kind: 'like', negated: false, value: field('userid'), pattern: str('ad%') });
    expect(parse("userid NOT LIKE 'a_'")).toEqual({ kind: 'like', negated: true, value: field('userid'), pattern: str('a_') });
  });

  it('parses between and not between', () => {
    expect(parse("createDate between '2024-01-01' and '2024-02-01'")).toEqual({
      kind: 'between',
      negated: false,
      value: field('createDate'),
      low: str('2024-01-01'),
      high: str('2024-02-01'),
    });
    expect(parse('scope not between 1 and 3')).toEqual({
      kind: 'between',
      negated: true,
      value: field('scope'),
      low: num(1),
      high: num(3),
    });
  });

  it("lets 'between' take the first 'and' and the next one join conditions", () => {
    expect(parse("scope between 1 and 2 and name eq 'x'")).toEqual({
      kind: 'and',
      items: [{ kind: 'between', negated: false, value: field('scope'), low: num(1), high: num(2) }, eq(field('name'), str('x'))],
    });
  });

  it('parses in and not in', () => {
    expect(parse("name in ('a','b')")).toEqual({ kind: 'in', negated: false, value: field('name'), list: [str('a'), str('b')] });
    expect(parse("name not in ('a')")).toEqual({ kind: 'in', negated: true, value: field('name'), list: [str('a')] });
    expect(parse('scope IN (1, null)')).toEqual({ kind: 'in', negated: false, value: field('scope'), list: [num(1), { kind: 'null' }] });
  });
});

describe('parseQ: boolean structure', () => {
  const a = eq(field('a'), num(1));
  const b = eq(field('b'), num(2));
  const c = eq(field('c'), num(3));

  it('binds and tighter than or', () => {
    expect(parse('a eq 1 or b eq 2 and c eq 3')).toEqual({ kind: 'or', items: [a, { kind: 'and', items: [b, c] }] });
    expect(parse('a eq 1 and b eq 2 or c eq 3')).toEqual({ kind: 'or', items: [{ kind: 'and', items: [a, b] }, c] });
  });

  it('keeps chains flat and parenthesised groups nested', () => {
    expect(parse('a eq 1 and b eq 2 and c eq 3')).toEqual({ kind: 'and', items: [a, b, c] });
    expect(parse('(a eq 1 and b eq 2) and c eq 3')).toEqual({ kind: 'and', items: [{ kind: 'and', items: [a, b] }, c] });
    expect(parse('(a eq 1 or b eq 2) and c eq 3')).toEqual({ kind: 'and', items: [{ kind: 'or', items: [a, b] }, c] });
  });

  it('parses not as a prefix binding tighter than and', () => {
    expect(parse("not (name eq 'x' or description = 'y')")).toEqual({
      kind: 'not',
      expr: { kind: 'or', items: [eq(field('name'), str('x')), eq(field('description'), str('y'))] },
    });
    expect(parse('NOT a eq 1 AND b eq 2')).toEqual({ kind: 'and', items: [{ kind: 'not', expr: a }, b] });
    expect(parse('not not a eq 1')).toEqual({ kind: 'not', expr: { kind: 'not', expr: a } });
  });

  it('drops redundant parentheses', () => {
    expect(parse('((a eq 1))')).toEqual(a);
  });

  it('is whitespace-insensitive', () => {
    expect(parse("  \t[name]eq'x'\n ")).toEqual(eq(field('name'), str('x')));
  });
});

describe('parseQ: functions', () => {
  it('parses substring', () => {
    expect(parse("substring(name,1,3) eq 'Hom'")).toEqual(
      eq({ kind: 'substring', value: field('name'), start: num(1), length: num(3) }, str('Hom')),
    );
  });

  it('parses dateadd with every part, bare or quoted, case-insensitively', () => {
    expect(parse("modifyDate gt dateadd(day,-7,'2024-05-01')")).toEqual({
      kind: 'compare',
      op: 'gt',
      left: field('modifyDate'),
      right: { kind: 'dateadd', part: 'day', amount: num(-7), value: str('2024-05-01') },
    });
    for (const part of ['year', 'month', 'day', 'hour', 'minute', 'second'] as const) {
      for (const written of [part.toUpperCase(), `'${part}'`]) {
        expect(parse(`DateAdd(${written}, 1, [createDate]) lt '2025-01-01'`)).toEqual({
          kind: 'compare',
          op: 'lt',
          left: { kind: 'dateadd', part, amount: num(1), value: field('createDate') },
          right: str('2025-01-01'),
        });
      }
    }
  });

  it('nests functions', () => {
    expect(parse("substring(substring(name, 2, 5), 1, 2) eq 'x'")).toEqual(
      eq(
        {
          kind: 'substring',
          value: { kind: 'substring', value: field('name'), start: num(2), length: num(5) },
          start: num(1),
          length: num(2),
        },
        str('x'),
      ),
    );
  });

  it('treats substring and dateadd without parentheses as field names', () => {
    expect(parse("substring eq 'x'")).toEqual(eq(field('substring'), str('x')));
  });
});

describe('parseQ: positions', () => {
  it('records 1-based positions on nodes', () => {
    const ast = parseQ("name eq 'x' and [first name] like 'O%'");
    expect(ast).toEqual({
      kind: 'and',
      items: [
        { kind: 'compare', op: 'eq', pos: 6, left: { kind: 'field', name: 'name', pos: 1 }, right: { kind: 'string', value: 'x', pos: 9 } },
        {
          kind: 'like',
          negated: false,
          pos: 30,
          value: { kind: 'field', name: 'first name', pos: 17 },
          pattern: { kind: 'string', value: 'O%', pos: 35 },
        },
      ],
    });
  });
});

describe('parseQ: errors name the problem and its position', () => {
  it.each([
    ["[name] eq", "Invalid q: expected a value after 'eq' at position 10 (end of the filter)"],
    ["name eq )", "Invalid q: expected a value after 'eq' at position 9 (found ')')"],
    ["name eq 'abc", 'Invalid q: unterminated string starting at position 9'],
    ["[name eq 'x'", 'Invalid q: unterminated field name starting at position 1'],
    ["[] eq 'x'", 'Invalid q: empty field name at position 1'],
    ["[a]]b eq 'x'", 'Invalid q: unterminated field name starting at position 1'],
    ["[]] eq 'x'", 'Invalid q: unterminated field name starting at position 1'],
    ["[a]b] eq 'x'", "Invalid q: unexpected character ']' at position 5 (a ']' inside a bracketed field name is written ']]')"],
    // A field is named as it is stored (`a]b`), however it was written; "found" quotes the text.
    ["[a]]b] 'x'", "Invalid q: expected an operator (eq, ne, gt, ge, lt, le, like, between, in or is) after field 'a]b' at position 8 (found ''x'')"],
    ["name eq 'x' [a]]b]", "Invalid q: expected 'and', 'or' or the end of the filter at position 13 (found '[a]]b]')"],
    ["name eq 'x' #", "Invalid q: unexpected character '#' at position 13"],
    ['name eq 1e999', "Invalid q: number '1e999' is out of range at position 9"],
    ["name 'x'", "Invalid q: expected an operator (eq, ne, gt, ge, lt, le, like, between, in or is) after field 'name' at position 6 (found ''x'')"],
    ['name', "Invalid q: expected an operator (eq, ne, gt, ge, lt, le, like, between, in or is) after field 'name' at position 5 (end of the filter)"],
    ["name eq 'x' name eq 'y'", "Invalid q: expected 'and', 'or' or the end of the filter at position 13 (found 'name')"],
    ["name eq 'x')", "Invalid q: unexpected ')' at position 12"],
    ["(name eq 'x'", "Invalid q: expected ')' at position 13 to close the '(' at position 1 (end of the filter)"],
    ["name eq 'x' and", "Invalid q: expected a condition after 'and' at position 16 (end of the filter)"],
    ["name eq 'x' or or", "Invalid q: expected a condition after 'or' at position 16 (found 'or')"],
    ['not', "Invalid q: expected a condition after 'not' at position 4 (end of the filter)"],
    [')', "Invalid q: expected a condition at position 1 (found ')')"],
    ["name not eq 'x'", "Invalid q: expected 'like', 'in' or 'between' after 'not' at position 10 (found 'eq')"],
    ['name is 1', "Invalid q: expected 'null' after 'is' at position 9 (found '1')"],
    ['name is not x', "Invalid q: expected 'null' after 'is not' at position 13 (found 'x')"],
    ['scope between 1 or 2', "Invalid q: expected 'and' after the lower bound of 'between' at position 17 (found 'or')"],
    ['scope between 1 and', "Invalid q: expected a value after 'and' in 'between' at position 20 (end of the filter)"],
    ["name like", "Invalid q: expected a value after 'like' at position 10 (end of the filter)"],
    ["name in 'a'", "Invalid q: expected '(' after 'in' at position 9 (found ''a'')"],
    ["name in ()", "Invalid q: expected a value after '(' at position 10 (found ')')"],
    ["name in ('a' 'b')", "Invalid q: expected ',' or ')' at position 14 in the 'in' list opened at position 9 (found ''b'')"],
    ["name not in ('a',", "Invalid q: expected a value after ',' at position 18 (end of the filter)"],
    ["foo(name) eq 'x'", "Invalid q: unknown function 'foo' at position 1 (expected substring or dateadd)"],
    ["substring(name, 1) eq 'x'", "Invalid q: expected ',' after the start of substring at position 18 (found ')')"],
    ["substring(name, 1, 2 eq 'x'", "Invalid q: expected ')' to close substring( at position 22 (found 'eq')"],
    ["dateadd(week, 1, createDate) eq 'x'", "Invalid q: unknown date part 'week' in dateadd at position 9 (expected year, month, day, hour, minute or second)"],
    ["dateadd(1, 1, createDate) eq 'x'", "Invalid q: expected a date part (year, month, day, hour, minute or second) as the first argument of dateadd at position 9 (found '1')"],
    ["name eq and", "Invalid q: expected a value after 'eq' at position 9 (found 'and')"],
    ["name constructor 'x'", "Invalid q: expected an operator (eq, ne, gt, ge, lt, le, like, between, in or is) after field 'name' at position 6 (found 'constructor')"],
  ])('%s', (q, message) => {
    expect(parseError(q)).toBe(message);
  });

  it('rejects an empty filter', () => {
    expect(parseError('   ')).toBe('Invalid q: the filter is empty');
  });

  it('adds the text around the problem to the developer message', () => {
    const error = appErrorOf(() => parseQ("name eq 'x' and scope gt"));
    expect(error.developerMessage).toContain('Near: ');
    expect(error.developerMessage).toContain('scope gt');
  });

  it('shows invisible characters by code point', () => {
    expect(parseError("name eq 'x' \u0007")).toBe('Invalid q: unexpected character U+0007 at position 13');
  });
});

describe('parseQ: limits', () => {
  it(`rejects input longer than ${MAX_Q_LENGTH} characters`, () => {
    const q = `name eq '${'a'.repeat(MAX_Q_LENGTH)}'`;
    expect(parseError(q)).toMatch(/^Invalid q: the filter is too long \(\d+ characters; the maximum is 50000\)$/);
  });

  it(`takes an in list of ${MAX_IN_LIST} GUIDs, as a client asking for a page of ids writes it`, () => {
    const ids = Array.from({ length: MAX_IN_LIST }, (_, i) => `'${String(i).padStart(8, '0')}-0000-4000-8000-000000000000'`);
    const ast = parseQ(`id in (${ids.join(', ')})`);
    expect(ast.kind === 'in' && ast.list.length).toBe(MAX_IN_LIST);
  });

  it(`accepts ${MAX_Q_DEPTH} levels of nesting and rejects one more, at its position`, () => {
    const ok = `${'('.repeat(MAX_Q_DEPTH)}a eq 1${')'.repeat(MAX_Q_DEPTH)}`;
    expect(parse(ok)).toEqual(eq(field('a'), num(1)));
    const tooDeep = `${'('.repeat(MAX_Q_DEPTH + 1)}a eq 1${')'.repeat(MAX_Q_DEPTH + 1)}`;
    expect(parseError(tooDeep)).toBe(`Invalid q: the filter is nested too deeply (the maximum is 64 levels) at position ${MAX_Q_DEPTH + 1}`);
  });

  it('counts not and function calls as nesting too', () => {
    expect(parseError(`${'not '.repeat(MAX_Q_DEPTH + 1)}a eq 1`)).toContain('nested too deeply');
    let operand = 'name';
    for (let i = 0; i <= MAX_Q_DEPTH; i++) operand = `substring(${operand},1,1)`;
    expect(parseError(`${operand} eq 'x'`)).toContain('nested too deeply');
  });

  // A stack overflow would surface as a RangeError, which parseError does not catch.
  it('rejects very deep parentheses with the depth message, never with a stack overflow', () => {
    expect(parseError('('.repeat(3990))).toContain('nested too deeply');
    expect(parseError(`${'('.repeat(2000)}${')'.repeat(1999)}`)).toContain('nested too deeply');
  });

  it(`accepts ${MAX_IN_LIST} values in an in list and rejects more`, () => {
    const list = (n: number) => `scope in (${Array.from({ length: n }, () => '1').join(',')})`;
    const ast = parseQ(list(MAX_IN_LIST));
    expect(ast.kind === 'in' && ast.list.length).toBe(MAX_IN_LIST);
    expect(parseError(list(MAX_IN_LIST + 1))).toBe(
      `Invalid q: too many values in the 'in' list (the maximum is ${MAX_IN_LIST}) at position ${11 + 2 * MAX_IN_LIST}`,
    );
  });

  it('handles long flat chains without deep recursion', () => {
    const q = Array.from({ length: 500 }, () => 'a=1').join(' or ');
    expect(q.length).toBeLessThan(MAX_Q_LENGTH);
    const ast = parseQ(q);
    expect(ast.kind === 'or' && ast.items.length).toBe(500);
  });

  it('raises AppErrors only', () => {
    expect(appErrorOf(() => parseQ("'"))).toBeInstanceOf(AppError);
  });
});
