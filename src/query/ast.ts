/**
 * AST of the `q` filter language. Every node may carry `pos`, the 1-based character position
 * (UTF-16 code unit index + 1) of the text it came from, so that the compiler, which runs
 * after parsing, can still point at the offending part of the client's text.
 * Hand-built ASTs may leave `pos` out; errors then simply omit the position.
 */

export type CompareOp = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le';

export const DATE_PARTS = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;
export type DatePart = (typeof DATE_PARTS)[number];

export interface QField {
  kind: 'field';
  /** As the client wrote it (case preserved); resolved case-insensitively by the compiler. */
  name: string;
  pos?: number;
}
export interface QString {
  kind: 'string';
  value: string;
  pos?: number;
}
export interface QNumber {
  kind: 'number';
  /** Always finite. */
  value: number;
  /** As the filter wrote it (`007`, `1.50`, `12345678901234567891`): what a text comparison and messages use. */
  text?: string;
  pos?: number;
}
export interface QBoolean {
  kind: 'boolean';
  value: boolean;
  pos?: number;
}
export interface QNull {
  kind: 'null';
  pos?: number;
}
/** substring(value, start, length): 1-based start, SQL semantics. */
export interface QSubstring {
  kind: 'substring';
  value: QOperand;
  start: QOperand;
  length: QOperand;
  pos?: number;
}
/** dateadd(part, amount, value). */
export interface QDateAdd {
  kind: 'dateadd';
  part: DatePart;
  amount: QOperand;
  value: QOperand;
  pos?: number;
}

export type QLiteral = QString | QNumber | QBoolean | QNull;
export type QOperand = QField | QLiteral | QSubstring | QDateAdd;

/** n-ary so that long `a or b or c ...` chains stay flat (no deep recursion). */
export interface QAnd {
  kind: 'and';
  items: QExpr[];
}
export interface QOr {
  kind: 'or';
  items: QExpr[];
}
export interface QNot {
  kind: 'not';
  expr: QExpr;
  pos?: number;
}
export interface QCompare {
  kind: 'compare';
  op: CompareOp;
  left: QOperand;
  right: QOperand;
  /** Position of the operator. */
  pos?: number;
}
export interface QLike {
  kind: 'like';
  negated: boolean;
  value: QOperand;
  pattern: QOperand;
  pos?: number;
}
export interface QBetween {
  kind: 'between';
  negated: boolean;
  value: QOperand;
  low: QOperand;
  high: QOperand;
  pos?: number;
}
export interface QIn {
  kind: 'in';
  negated: boolean;
  value: QOperand;
  list: QOperand[];
  pos?: number;
}
/** `x is null` / `x is not null` (`x eq null` stays a QCompare; both compile to IS NULL). */
export interface QIsNull {
  kind: 'isNull';
  negated: boolean;
  value: QOperand;
  pos?: number;
}

export type QExpr = QAnd | QOr | QNot | QCompare | QLike | QBetween | QIn | QIsNull;

/** A copy without any `pos` or a number's `text`, for comparing ASTs by structure (tests). */
export function withoutPositions<T extends QExpr | QOperand>(node: T): T {
  return strip(node) as T;
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (key !== 'pos' && key !== 'text') out[key] = strip(v);
  return out;
}
