import fc from 'fast-check';
import { AppError } from '../../src/errors.js';
import { compileQ, parseQ, printQ } from '../../src/query/index.js';
import { exprArb } from './arbitraries.js';
import { fields } from './support.js';

/** Valid filters (against `fields`) to mutate. */
const SAMPLES = [
  "[name] eq 'Home'",
  "userid like 'ad%' and enabled eq 'true'",
  "createDate between '2024-01-01' and '2024-02-01'",
  "name in ('a','b')",
  "name not in ('a')",
  "not (name eq 'x' or description = 'y')",
  "substring(name,1,3) eq 'Hom'",
  "modifyDate gt dateadd(day,-7,'2024-05-01')",
  "dateadd(month,1,[createDate]) lt '2025-01-01'",
  'scope eq 1',
  "[first name] eq 'O''Brien'",
  "id eq '0f8fad5b-d9cb-469f-a165-70867728950e' or ownerId is not null",
  'scope not between -2 and 3.5 and enabled ne false',
];

const NOISE = ["'", "''", '[', ']', ']]', '(', ')', ',', ' ', 'not ', ' and ', ' or ', '-', '=', '<>', 'null', '\u0000', '\uD800', '😀', 'dateadd(', 'substring('];

type Mutation = { at: number; kind: 'insert'; text: string } | { at: number; kind: 'delete'; length: number } | { at: number; kind: 'truncate' };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ at: fc.nat(), kind: fc.constant('insert' as const), text: fc.oneof(fc.constantFrom(...NOISE), fc.string({ maxLength: 3 })) }),
  fc.record({ at: fc.nat(), kind: fc.constant('delete' as const), length: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ at: fc.nat(), kind: fc.constant('truncate' as const) }),
);

function mutate(text: string, mutations: Mutation[]): string {
  for (const m of mutations) {
    const at = text.length === 0 ? 0 : m.at % (text.length + 1);
    if (m.kind === 'insert') text = text.slice(0, at) + m.text + text.slice(at);
    else if (m.kind === 'delete') text = text.slice(0, at) + text.slice(at + m.length);
    else text = text.slice(0, at);
  }
  return text;
}

/** Parse and compile; anything thrown must be a 400 AppError (never a RangeError or a TypeError). */
function expectOnly400s(q: string): void {
  try {
    compileQ(parseQ(q), fields);
  } catch (error) {
    if (!(error instanceof AppError)) throw new Error(`non-AppError for ${JSON.stringify(q)}: ${String(error)}`);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Invalid q: /);
  }
}

describe('parseQ / compileQ on junk', () => {
  it('arbitrary unicode strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), expectOnly400s), { numRuns: 300 });
  });

  it('strings made of the language’s own pieces', () => {
    const piece = fc.constantFrom(...NOISE, 'name', 'scope', 'createDate', 'eq', 'like', 'in', 'between', 'is', "'x'", '1', 'true', '[first name]');
    fc.assert(fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => expectOnly400s(pieces.join(' '))), { numRuns: 300 });
  });

  it('mutations of valid filters: truncations, inserted quotes, brackets and parentheses', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SAMPLES), fc.array(mutationArb, { minLength: 1, maxLength: 4 }), (sample, mutations) =>
        expectOnly400s(mutate(sample, mutations)),
      ),
      { numRuns: 300 },
    );
  });

  it('mutations of printed random ASTs', () => {
    fc.assert(
      fc.property(exprArb, fc.array(mutationArb, { maxLength: 3 }), (ast, mutations) => expectOnly400s(mutate(printQ(ast), mutations))),
      { numRuns: 200 },
    );
  });

  it('very deep and very long input', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.constantFrom(...SAMPLES, 'not ', "'", '['),
        (open, close, middle) => expectOnly400s(`${'('.repeat(open)}${middle}${')'.repeat(close)}`),
      ),
      { numRuns: 100 },
    );
    for (const q of [
      'not '.repeat(1000),
      `${'substring('.repeat(400)}name`,
      `name in (${'1,'.repeat(1999)}1)`,
      `'${"''".repeat(1990)}`,
      `[${']]'.repeat(1990)}`,
      'x'.repeat(4000),
      `${"name eq 'x' or ".repeat(260)}name eq 'y'`,
    ]) {
      expectOnly400s(q);
    }
  });
});
