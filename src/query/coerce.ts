import type { QLiteral } from './ast.js';
import type { FieldType } from './fields.js';
import { qError, quote } from './q-error.js';

/** The types a literal can be coerced to: a field's type, or `numeric` when two bare numbers meet. */
export type ValueType = FieldType | 'numeric';

const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMBER_TEXT = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A date, or a date and time with `Z` or an offset (`+02:00`, `-0530`) after it; `Z` alone after a date too. */
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):?(\d{2}))?|Z)?$/;

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/**
 * Converts a (non-null) literal to the value bound as a parameter for `type`, or throws a 400 naming
 * the literal, what it was compared with, and its position.
 */
export function coerceLiteral(lit: Exclude<QLiteral, { kind: 'null' }>, type: ValueType, against?: string): string | number | boolean {
  const fail = (problem: string, hint?: string) =>
    qError(`${show(lit)} ${problem}${against ? ` (compared with ${against})` : ''}`, lit.pos, '', hint);
  switch (type) {
    case 'string':
      return lit.kind === 'string' ? lit.value : lit.kind === 'number' ? (lit.text ?? String(lit.value)) : String(lit.value);
    case 'integer': {
      const n = lit.kind === 'number' ? lit.value : lit.kind === 'string' && INTEGER_TEXT.test(lit.value) ? Number(lit.value) : NaN;
      if (!Number.isInteger(n)) throw fail('is not an integer');
      // Beyond 2^53 a JavaScript number no longer holds the integer the client wrote.
      if (!Number.isSafeInteger(n)) throw fail('is out of range for an integer');
      return n === 0 ? 0 : n;
    }
    case 'numeric': {
      const n = lit.kind === 'number' ? lit.value : lit.kind === 'string' && NUMBER_TEXT.test(lit.value) ? Number(lit.value) : NaN;
      if (!Number.isFinite(n)) throw fail('is not a number');
      return n;
    }
    case 'boolean': {
      const b = toBoolean(lit);
      if (b === undefined) throw fail('is not a boolean', 'Use true or false (1 and 0 work too).');
      return b;
    }
    case 'guid':
      if (lit.kind !== 'string' || !GUID.test(lit.value)) {
        throw fail('is not a GUID', 'A GUID has 36 characters, e.g. 0f8fad5b-d9cb-469f-a165-70867728950e.');
      }
      return lit.value.toLowerCase();
    case 'datetime': {
      const value = lit.kind === 'string' ? toTimestamp(lit.value) : undefined;
      if (value === undefined) {
        throw fail(
          'is not a valid date-time',
          'Use ISO-8601, read as UTC unless an offset follows: 2024-01-31, 2024-01-31T13:45, 2024-01-31T13:45:00.123 or 2024-01-31T15:45+02:00.',
        );
      }
      return value;
    }
  }
}

/** Integer literals for function arguments that PostgreSQL takes as `int` (substring bounds, dateadd amounts). */
export function int32Literal(lit: QLiteral, what: string): number {
  const n = lit.kind === 'number' ? lit.value : lit.kind === 'string' && INTEGER_TEXT.test(lit.value) ? Number(lit.value) : NaN;
  if (!Number.isInteger(n)) throw qError(`${show(lit)} is not an integer (${what})`, lit.pos);
  if (n < INT32_MIN || n > INT32_MAX) throw qError(`${show(lit)} is out of range (${what})`, lit.pos);
  return n === 0 ? 0 : n;
}

function toBoolean(lit: QLiteral): boolean | undefined {
  if (lit.kind === 'boolean') return lit.value;
  if (lit.kind === 'number') return lit.value === 1 ? true : lit.value === 0 ? false : undefined;
  if (lit.kind !== 'string') return undefined;
  const text = lit.value.toLowerCase();
  return text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : undefined;
}

/**
 * Validates an ISO-8601 date or date-time, UTC unless an offset follows it (`Z` says UTC too), and
 * returns it in UTC as `YYYY-MM-DDTHH:MM:SS[.f]` for a `::timestamp` parameter, the fraction's
 * digits as sent. Impossible dates (2024-02-30, 25:00, +24:00) are rejected here so PostgreSQL
 * never raises a 500 for them.
 */
function toTimestamp(text: string): string | undefined {
  const m = DATETIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, hh = '00', mi = '00', ss = '00', frac, sign, oh = '00', om = '00'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (Number(hh) > 23 || Number(mi) > 59 || Number(ss) > 59 || Number(oh) > 23 || Number(om) > 59) return undefined;
  const fraction = frac ? `.${frac}` : '';
  if (!sign) return `${y}-${mo}-${d}T${hh}:${mi}:${ss}${fraction}`;
  // Whole seconds move by the offset (setUTCFullYear, unlike Date.UTC, takes years before 100 as written).
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(Number(hh), Number(mi) - (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)), Number(ss));
  const utcYear = at.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) return undefined;
  return `${String(utcYear).padStart(4, '0')}${at.toISOString().slice(-20, -5)}${fraction}`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** How a literal is quoted in messages: strings in quotes, the rest as written. */
export function show(lit: QLiteral): string {
  switch (lit.kind) {
    case 'string':
      return quote(lit.value);
    case 'null':
      return 'null';
    case 'number':
      return lit.text ?? String(lit.value);
    default:
      return String(lit.value);
  }
}
