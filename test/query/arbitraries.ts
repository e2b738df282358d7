/** fast-check generators of `q` ASTs (without positions, as hand-built ASTs are). */
import fc from 'fast-check';
import { DATE_PARTS, type CompareOp, type QExpr, type QOperand } from '../../src/query/index.js';

/** Names that print bare, need brackets (spaces, `]`, `[`, quotes, keywords, function names) or differ only by case. */
export const FIELD_NAMES = [
  'name',
  'Name',
  'userId',
  'a.b',
  'x_1',
  'first name',
  'odd]name',
  ']]',
  '[weird',
  "it's",
  'in',
  'NULL',
  'True',
  'substring',
  'dateadd',
  'between',
  '1abc',
  'ünïcödé',
];

const fieldArb: fc.Arbitrary<QOperand> = fc.constantFrom(...FIELD_NAMES).map((name) => ({ kind: 'field', name }));

/** Strings rich in the characters the lexer cares about. */
const textArb = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: fc.constantFrom("'", "''", ']', '[', '(', ')', ',', '%', '_', ' ', 'a', '\\', '?', '$1', '--'), maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);

const literalArb: fc.Arbitrary<QOperand> = fc.oneof(
  textArb.map((value): QOperand => ({ kind: 'string', value })),
  fc.integer().map((value): QOperand => ({ kind: 'number', value })),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value): QOperand => ({ kind: 'number', value })),
  fc.boolean().map((value): QOperand => ({ kind: 'boolean', value })),
  fc.constant<QOperand>({ kind: 'null' }),
);

const smallInt = fc.integer({ min: -1000, max: 1000 }).map((value): QOperand => ({ kind: 'number', value }));

const { operand } = fc.letrec<{ operand: QOperand }>((tie) => ({
  operand: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fieldArb,
    literalArb,
    fc.record({ kind: fc.constant('substring' as const), value: tie('operand'), start: smallInt, length: smallInt }),
    fc.record({ kind: fc.constant('dateadd' as const), part: fc.constantFrom(...DATE_PARTS), amount: smallInt, value: tie('operand') }),
  ),
}));
export const operandArb = operand;

const compareOpArb = fc.constantFrom<CompareOp>('eq', 'ne', 'gt', 'ge', 'lt', 'le');

const predicateArb: fc.Arbitrary<QExpr> = fc.oneof(
  fc.record({ kind: fc.constant('compare' as const), op: compareOpArb, left: operandArb, right: operandArb }),
  fc.record({ kind: fc.constant('like' as const), negated: fc.boolean(), value: operandArb, pattern: operandArb }),
  fc.record({ kind: fc.constant('between' as const), negated: fc.boolean(), value: operandArb, low: operandArb, high: operandArb }),
  fc.record({ kind: fc.constant('in' as const), negated: fc.boolean(), value: operandArb, list: fc.array(operandArb, { minLength: 1, maxLength: 5 }) }),
  fc.record({ kind: fc.constant('isNull' as const), negated: fc.boolean(), value: operandArb }),
);

const { expr } = fc.letrec<{ expr: QExpr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    predicateArb,
    fc.record({ kind: fc.constant('not' as const), expr: tie('expr') }),
    fc.record({ kind: fc.constant('and' as const), items: fc.array(tie('expr'), { minLength: 2, maxLength: 4 }) }),
    fc.record({ kind: fc.constant('or' as const), items: fc.array(tie('expr'), { minLength: 2, maxLength: 4 }) }),
  ),
}));
/** Any syntactically valid AST (it may well not type-check against a field map). */
export const exprArb = expr;
