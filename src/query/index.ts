/** The `q` filter language: parse client text, print it canonically, compile it to parameterised PostgreSQL. */
export type {
  CompareOp,
  DatePart,
  QAnd,
  QBetween,
  QBoolean,
  QCompare,
  QDateAdd,
  QExpr,
  QField,
  QIn,
  QIsNull,
  QLike,
  QLiteral,
  QNot,
  QNull,
  QNumber,
  QOperand,
  QOr,
  QString,
  QSubstring,
} from './ast.js';
export { DATE_PARTS, withoutPositions } from './ast.js';
export type { FieldType, QueryField, QueryFieldMap } from './fields.js';
export { FieldMap, queryFields } from './fields.js';
export { MAX_IN_LIST, MAX_Q_DEPTH, MAX_Q_LENGTH, parseQ } from './parser.js';
export { printQ } from './printer.js';
export type { CompiledQ } from './compile.js';
export { MAX_DATEADD_YEARS, MAX_LISTED_FIELDS, compileQ, compileQText } from './compile.js';
