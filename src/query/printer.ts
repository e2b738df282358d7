import type { QExpr, QOperand } from './ast.js';
import { FUNCTION_NAMES, RESERVED_WORDS } from './parser.js';
import { qError } from './q-error.js';

const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/**
 * Canonical text for an AST: lower-case keywords, word operators (`eq`, not `=`), `not (...)` always
 * parenthesised, and parentheses exactly where the AST nests an and/or inside another, so that
 * `parseQ(printQ(ast))` equals `ast` (ignoring positions).
 */
export function printQ(ast: QExpr): string {
  return printExpr(ast);
}

function printExpr(e: QExpr): string {
  switch (e.kind) {
    case 'and':
      // An `or` item needs parentheses for precedence, a nested `and` to keep its own node.
      return e.items.map((item) => (item.kind === 'and' || item.kind === 'or' ? `(${printExpr(item)})` : printExpr(item))).join(' and ');
    case 'or':
      return e.items.map((item) => (item.kind === 'or' ? `(${printExpr(item)})` : printExpr(item))).join(' or ');
    case 'not':
      return `not (${printExpr(e.expr)})`;
    case 'compare':
      return `${printOperand(e.left)} ${e.op} ${printOperand(e.right)}`;
    case 'like':
      return `${printOperand(e.value)} ${e.negated ? 'not like' : 'like'} ${printOperand(e.pattern)}`;
    case 'between':
      return `${printOperand(e.value)} ${e.negated ? 'not between' : 'between'} ${printOperand(e.low)} and ${printOperand(e.high)}`;
    case 'in':
      return `${printOperand(e.value)} ${e.negated ? 'not in' : 'in'} (${e.list.map(printOperand).join(', ')})`;
    case 'isNull':
      return `${printOperand(e.value)} ${e.negated ? 'is not null' : 'is null'}`;
  }
}

/** Exported for messages and logs that want to show one operand. */
export function printOperand(o: QOperand): string {
  switch (o.kind) {
    case 'field':
      return printField(o.name);
    case 'string':
      return `'${o.value.replaceAll("'", "''")}'`;
    case 'number':
      if (!Number.isFinite(o.value)) throw qError(`${o.value} is not a number the filter language can express`, o.pos);
      return o.text ?? (Object.is(o.value, -0) ? '-0' : String(o.value));
    case 'boolean':
      return o.value ? 'true' : 'false';
    case 'null':
      return 'null';
    case 'substring':
      return `substring(${printOperand(o.value)}, ${printOperand(o.start)}, ${printOperand(o.length)})`;
    case 'dateadd':
      return `dateadd(${o.part}, ${printOperand(o.amount)}, ${printOperand(o.value)})`;
  }
}

/** How `q` spells a field: bare when the name would lex back as the same field; bracketed (with `]` doubled) otherwise. */
export function printField(name: string): string {
  const lower = name.toLowerCase();
  if (BARE_NAME.test(name) && !RESERVED_WORDS.has(lower) && !FUNCTION_NAMES.has(lower)) return name;
  return `[${name.replaceAll(']', ']]')}]`;
}
