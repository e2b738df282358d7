import fc from 'fast-check';
import { MAX_Q_LENGTH, parseQ, printQ, withoutPositions } from '../../src/query/index.js';
import { exprArb } from './arbitraries.js';

describe('printQ / parseQ round trip', () => {
  it('parses printed ASTs back to equal ASTs', () => {
    fc.assert(
      fc.property(exprArb, (ast) => {
        const text = printQ(ast);
        fc.pre(text.length <= MAX_Q_LENGTH);
        expect(withoutPositions(parseQ(text))).toEqual(ast);
      }),
      { numRuns: 300 },
    );
  });

  it('prints canonically: printing the parse of printed text changes nothing', () => {
    fc.assert(
      fc.property(exprArb, (ast) => {
        const text = printQ(ast);
        fc.pre(text.length <= MAX_Q_LENGTH);
        expect(printQ(parseQ(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('prints examples canonically', () => {
    const cases: Array<[string, string]> = [
      ["[name] = 'Home'", "name eq 'Home'"],
      ["NAME <> 'x' AND enabled != TRUE", "NAME ne 'x' and enabled ne true"],
      ["[first name] eq 'O''Brien'", "[first name] eq 'O''Brien'"],
      ["[odd]]name] eq 1", '[odd]]name] eq 1'],
      ['[in] eq 1 or [scope] eq -2.5', '[in] eq 1 or scope eq -2.5'],
      ["NOT a eq 1 and (b eq 2 or c eq 3)", 'not (a eq 1) and (b eq 2 or c eq 3)'],
      ["x NOT IN ('a','b') or y IS NOT NULL", "x not in ('a', 'b') or y is not null"],
      ["DATEADD('Day',-7,[createDate]) gt substring(name,1,3)", 'dateadd(day, -7, createDate) gt substring(name, 1, 3)'],
    ];
    for (const [input, canonical] of cases) expect(printQ(parseQ(input))).toBe(canonical);
  });
});
