/**
 * Compiles a `q` AST to a PostgreSQL WHERE fragment (src/sql.ts: text and values kept
 * apart, placeholders numbered when the statement is finished).
 *
 * Choices the caller should know:
 * - Client values only ever travel as params. The SQL text holds only: the caller's column expressions
 *   (trusted, used verbatim), fixed keywords/casts, and `interval '1 <part>'` from a fixed whitelist.
 * - Types: a comparison, `between` or `in` takes the type of its field/function operand(s) and coerces
 *   every literal to it (integer -> `?::bigint`, so int4 and int8 columns both work without overflow;
 *   boolean -> `?::boolean`; guid -> `?::uuid`, lower-cased; datetime -> `?::timestamp`, normalised
 *   ISO text in UTC (read as UTC unless an offset follows); string -> `?`). Two different field types may not be compared, except
 *   guid with string, which compares as text. With no field at all (`1 eq 1`, `'a' = 'A'`) the literals
 *   decide: any number -> numeric, else any boolean -> boolean, else text; every param is cast then.
 * - Strings compare as names do, in any case and Unicode normal form: `name_key(a) = name_key(b)`
 *   for eq/ne/gt/ge/lt/le/between/in, and `name_key(a) LIKE name_key(b) ESCAPE ''` for like. A
 *   form value (QueryField.foldsCaseOnly) compares case-insensitively only, `lower(a) = lower(b)` and
 *   ILIKE, as its search index holds it. `ESCAPE ''` because `%` and `_` are the client's only special
 *   characters (as in SQL Server): a backslash is literal and can never make PostgreSQL fail.
 *   `like` works on any type by comparing its text as the API writes it (`col::text`; a datetime
 *   as `2024-01-31T13:45:00.000`, through to_char, since sessions are in UTC).
 * - A field whose NULL means unset (QueryField.nullIsEmpty: a form key the row lacks) reads NULL as ''
 *   when compared with the literal '' (`x eq ''`, `x ne ''`, `x in ('', ...)`, `x not in ('', ...)`):
 *   `coalesce(x, '')`, and no eqHint. Other literals keep the plain, index-friendly comparison.
 *   A typed field kept as text (QueryField.keptText: a form's calendar or cell value) compared by eq
 *   or ne with '' tests that text, `coalesce(text, '') = ''`: whether the value is unset, not a 400;
 *   a '' in its `in` list is that test, beside the other values compared as the type.
 * - Datetime fields compare as the API shows them, to the millisecond (the database keeps microseconds,
 *   the DateTime scalar writes milliseconds, cut): `date_trunc('milliseconds', field)` on the field
 *   side of every comparison, between and in (like reads to_char's MS, which cuts too), so the value a
 *   record shows finds it with eq and gt/lt/between agree with what is shown. Against a literal (or a
 *   dateadd of one), an index-friendly range on the stored value that the comparison implies is AND-ed before it (dateHint).
 *   A field shown as the text it is kept as (QueryField.shownAsKept: a form's calendar value) is not cut.
 * - null: `x eq null` / `x is null` -> `x IS NULL`; `ne null` / `is not null` -> `IS NOT NULL`; other
 *   operators, `like` and `between` with null are a 400. `x in ('a', null)` -> `(x IN (...) OR x IS NULL)`.
 *   Otherwise SQL three-valued logic applies: `name ne 'x'` and `not (name eq 'x')` skip rows whose name is NULL.
 *   `null eq null` -> TRUE, `null ne null` -> FALSE.
 * - `not x` -> `NOT (x)`; `or` is always parenthesised so the fragment can be AND-ed with other conditions.
 * - substring(v, start, length) -> `substring(v from ?::int for ?::int)`, a string; a non-string `v` is
 *   read as its text, as for like. start and length must be integer literals (length >= 0: PostgreSQL rejects negatives).
 * - dateadd(part, n, v) -> `(v + (?::int * interval '1 day'))`, a datetime; `v` must be a datetime field
 *   or a date-time literal, n an integer literal. Nested dateadds may shift by at most MAX_DATEADD_YEARS
 *   in total, so a filter cannot push a valid timestamp out of PostgreSQL's range (a 500).
 */
import type { DatePart, QExpr, QLiteral, QOperand } from './ast.js';
import { coerceLiteral, int32Literal, type ValueType } from './coerce.js';
import type { FieldType, QueryFieldMap } from './fields.js';
import { parseQ } from './parser.js';
import { printField } from './printer.js';
import { qError, quote } from './q-error.js';
import { join, raw, sql, Sql } from '../sql.js';

/** A WHERE fragment; its values travel as parameters. */
export type CompiledQ = Sql;

/** Most years that (nested) dateadds may move a date-time, in total. */
export const MAX_DATEADD_YEARS = 4000;

/** Most names an "unknown field" message lists (a form template may have thousands of fields); the rest are counted. */
export const MAX_LISTED_FIELDS = 50;

export function compileQ(ast: QExpr, fields: QueryFieldMap): CompiledQ {
  return new Compiler(fields).expr(ast);
}

/** parseQ + compileQ; `undefined` when there is no filter (q absent, empty or only whitespace). */
export function compileQText(q: string | undefined, fields: QueryFieldMap): CompiledQ | undefined {
  if (q === undefined || q.trim() === '') return undefined;
  return compileQ(parseQ(q), fields);
}

type Fragment = Sql;

const param = (value: unknown, cast: string): Fragment => sql`${value}${raw(cast)}`;

const COMPARE_SQL = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' } as const;
/** `a op b` is `b FLIPPED[op] a`. */
const FLIPPED = { eq: 'eq', ne: 'ne', gt: 'lt', ge: 'le', lt: 'gt', le: 'ge' } as const;

/**
 * A datetime field as the API shows it: to the millisecond, cut (not rounded), as the DateTime
 * scalar writes the stored microseconds (src/scalars.ts) and `like` reads them (to_char's MS).
 * Every comparison takes the field so, so a value a record shows finds that record.
 */
const shownDateTime = (field: Fragment): Fragment => sql`date_trunc('milliseconds', ${field})`;
const ONE_MS = "interval '1 millisecond'";

/** The only interval texts that can reach the SQL. */
const INTERVAL_SQL: Record<DatePart, string> = {
  year: "interval '1 year'",
  month: "interval '1 month'",
  day: "interval '1 day'",
  hour: "interval '1 hour'",
  minute: "interval '1 minute'",
  second: "interval '1 second'",
};
/** Fewest units per year, so the dateadd budget errs on the safe side. */
const UNITS_PER_YEAR: Record<DatePart, number> = {
  year: 1,
  month: 12,
  day: 365,
  hour: 365 * 24,
  minute: 365 * 24 * 60,
  second: 365 * 24 * 60 * 60,
};

/** A field or function: SQL with a known type. */
interface Typed {
  frag: Fragment;
  type: FieldType;
  /** How messages name it: `'scope'`, `substring(...)`. */
  label: string;
  /** Years already added/subtracted by dateadds inside it. */
  shiftYears: number;
  eqHint?: (value: string) => Fragment;
  nullIsEmpty?: boolean;
  keptText?: Fragment;
  foldsCaseOnly?: boolean;
  /** A datetime field's own SQL, before shownDateTime: what the index hint of a comparison with a literal uses. */
  stored?: Fragment;
  /** Names no field: a dateadd of a literal, the same for every row. */
  constant?: boolean;
}

type Side = { typed: Typed } | { literal: QLiteral };

/** The type literals are coerced to in one comparison, and what they are compared with (for messages). */
interface Context {
  type: ValueType;
  against?: string;
  /** No field or function involved: params need explicit casts for PostgreSQL to type them. */
  literalOnly: boolean;
  /** A form value is compared: strings fold by lower(), not name_key (QueryField.foldsCaseOnly). */
  foldsCaseOnly?: boolean;
}

const isNullSide = (s: Side) => 'literal' in s && s.literal.kind === 'null';
const isEmptyString = (s: Side) => 'literal' in s && s.literal.kind === 'string' && s.literal.value === '';

/** A typed field kept as text compared by eq or ne with the literal '': whether its text is (not) empty. */
function unsetTest(field: Side, op: 'eq' | 'ne', other: Side): Fragment | undefined {
  if (!('typed' in field) || !field.typed.keptText || !isEmptyString(other)) return undefined;
  return sql`coalesce(${field.typed.keptText}, '') ${raw(COMPARE_SQL[op])} ''`;
}

/** A field whose NULL reads as '', compared with the literal '': `coalesce(field, '')` (no index hint then). */
function emptyAware(side: Side, others: Side[]): Side {
  if (!('typed' in side) || !side.typed.nullIsEmpty || !others.some(isEmptyString)) return side;
  return { typed: { ...side.typed, frag: sql`coalesce(${side.typed.frag}, '')`, eqHint: undefined } };
}

const TRUE = raw('TRUE');
const FALSE = raw('FALSE');

class Compiler {
  /**
   * Inside a `not`: no eqHint. A form key a row lacks makes the exact comparison NULL but the
   * containment hint false, and `NOT (false AND NULL)` is true where `NOT NULL` is not: negated,
   * `f eq 'v'` would find the forms without `f` that `f ne 'v'` leaves out. No index serves a
   * negation anyway.
   */
  private negated = false;

  constructor(private readonly fields: QueryFieldMap) {}

  expr(e: QExpr): Fragment {
    switch (e.kind) {
      case 'and':
        return join(e.items.map((item) => this.expr(item)), ' AND ');
      case 'or':
        return sql`(${join(e.items.map((item) => this.expr(item)), ' OR ')})`;
      case 'not': {
        const outer = this.negated;
        this.negated = true;
        const inner = this.expr(e.expr);
        this.negated = outer;
        // An `or` comes back parenthesised already.
        return e.expr.kind === 'or' ? sql`NOT ${inner}` : sql`NOT (${inner})`;
      }
      case 'compare': {
        const left = this.side(e.left);
        const right = this.side(e.right);
        if (isNullSide(left) || isNullSide(right)) {
          if (e.op !== 'eq' && e.op !== 'ne') {
            throw qError(`null can only be compared with eq or ne, not '${e.op}'`, e.pos, '', 'Or use is null / is not null.');
          }
          return this.nullTest(isNullSide(left) ? right : left, e.op === 'ne');
        }
        const unset = e.op === 'eq' || e.op === 'ne' ? unsetTest(left, e.op, right) ?? unsetTest(right, e.op, left) : undefined;
        if (unset) return unset;
        const ctx = this.unify([left, right], e.pos);
        const [l, r] = [emptyAware(left, [right]), emptyAware(right, [left])];
        const exact = sql`${this.cased(l, ctx)} ${raw(COMPARE_SQL[e.op])} ${this.cased(r, ctx)}`;
        const hint = (e.op === 'eq' && !this.negated ? eqHintOf(l, r) ?? eqHintOf(r, l) : undefined) ?? this.dateHint(l, e.op, r, ctx) ?? this.dateHint(r, FLIPPED[e.op], l, ctx);
        return hint ? sql`${hint} AND ${exact}` : exact;
      }
      case 'isNull':
        return this.nullTest(this.side(e.value), e.negated);
      case 'like': {
        const value = this.side(e.value);
        const pattern = this.side(e.pattern);
        if (isNullSide(value) || isNullSide(pattern)) {
          throw qError(`'like' cannot be used with null`, e.pos, '', 'Use is null / is not null.');
        }
        const literalOnly = !('typed' in value) && !('typed' in pattern);
        const foldsCaseOnly = [value, pattern].some((s) => 'typed' in s && s.typed.foldsCaseOnly);
        const [v, p] = [this.text(value, literalOnly), this.text(pattern, literalOnly)];
        const not = e.negated ? 'NOT ' : '';
        return foldsCaseOnly ? sql`${v} ${raw(`${not}ILIKE`)} ${p} ESCAPE ''` : sql`name_key(${v}) ${raw(`${not}LIKE`)} name_key(${p}) ESCAPE ''`;
      }
      case 'between': {
        const sides = [e.value, e.low, e.high].map((o) => this.side(o));
        if (sides.some(isNullSide)) throw qError(`'between' cannot be used with null`, e.pos);
        const ctx = this.unify(sides, e.pos);
        const [value, low, high] = sides.map((s) => this.cased(s, ctx));
        const exact = sql`${value} ${raw(e.negated ? 'NOT BETWEEN' : 'BETWEEN')} ${low} AND ${high}`;
        const hints = e.negated ? [] : [this.dateHint(sides[0], 'ge', sides[1], ctx), this.dateHint(sides[0], 'le', sides[2], ctx)];
        return hints[0] && hints[1] ? sql`${hints[0]} AND ${hints[1]} AND ${exact}` : exact;
      }
      case 'in':
        return this.inList(e.value, e.list, e.negated, e.pos);
    }
  }

  private inList(valueNode: QOperand, list: QOperand[], negated: boolean, pos: number | undefined): Fragment {
    const side = this.side(valueNode);
    if (isNullSide(side)) throw qError(`'in' cannot have null on its left`, pos, '', 'Use is null / is not null.');
    const items = list.map((o) => this.side(o));
    // A typed field kept as text listed with '': unset, or one of the others, as `eq ''` reads it.
    const empty = items.find(isEmptyString);
    const unset = empty && unsetTest(side, 'eq', empty);
    if (unset) {
      const rest = list.filter((_, i) => !isEmptyString(items[i]));
      const either = rest.length ? sql`(${unset} OR ${this.inList(valueNode, rest, false, pos)})` : unset;
      return negated ? sql`NOT ${either}` : either;
    }
    const value = emptyAware(side, items);
    const values = items.filter((s) => !isNullSide(s));
    const withNull = values.length < items.length;
    if (values.length === 0) return this.nullTest(value, negated);
    const ctx = this.unify([value, ...values], pos);
    const inSql = sql`${this.cased(value, ctx)} IN (${join(
      values.map((s) => this.cased(s, ctx)),
      ', ',
    )})`;
    // SQL's IN never matches NULL; a client who lists null means "or is null".
    if (withNull) {
      const either = sql`(${inSql} OR ${this.render(value, { ...ctx, literalOnly: true })} IS NULL)`;
      return negated ? sql`NOT ${either}` : either;
    }
    return negated ? sql`${this.cased(value, ctx)} NOT IN (${join(values.map((s) => this.cased(s, ctx)), ', ')})` : inSql;
  }

  private nullTest(side: Side, negated: boolean): Fragment {
    if (isNullSide(side)) return negated ? FALSE : TRUE;
    const ctx = 'typed' in side ? { type: side.typed.type, literalOnly: false } : this.unify([side], undefined);
    // A datetime field is NULL just when its stored value is.
    const tested = 'typed' in side && side.typed.stored ? side.typed.stored : this.render(side, { ...ctx, literalOnly: true });
    return sql`${tested} ${raw(negated ? 'IS NOT NULL' : 'IS NULL')}`;
  }

  private side(o: QOperand): Side {
    switch (o.kind) {
      case 'string':
      case 'number':
      case 'boolean':
      case 'null':
        return { literal: o };
      default:
        return { typed: this.operand(o) };
    }
  }

  /** The common type of the operands of one comparison. */
  private unify(sides: Side[], pos: number | undefined): Context {
    const typed = sides.flatMap((s) => ('typed' in s ? [s.typed] : []));
    return { ...this.unifyType(typed, sides, pos), foldsCaseOnly: typed.some((t) => t.foldsCaseOnly) };
  }

  private unifyType(typed: Typed[], sides: Side[], pos: number | undefined): Context {
    if (typed.length === 0) {
      const kinds = new Set(sides.map((s) => ('literal' in s ? s.literal.kind : '')));
      const type: ValueType = kinds.has('number') ? 'numeric' : kinds.has('boolean') ? 'boolean' : 'string';
      return { type, literalOnly: true };
    }
    const first = typed[0];
    const other = typed.find((t) => t.type !== first.type);
    if (!other) return { type: first.type, against: first.label, literalOnly: false };
    if (typed.every((t) => t.type === 'string' || t.type === 'guid')) {
      return { type: 'string', against: first.label, literalOnly: false };
    }
    throw qError(`cannot compare ${first.label} (${first.type}) with ${other.label} (${other.type})`, pos);
  }

  /** An operand in the comparison's type: typed SQL as is (guid as text in a string comparison), literals as params. */
  private render(side: Side, ctx: Context): Fragment {
    if ('typed' in side) return ctx.type === 'string' ? asText(side.typed) : side.typed.frag;
    const lit = side.literal;
    if (lit.kind === 'null') throw qError('unexpected null', lit.pos);
    return param(coerceLiteral(lit, ctx.type, ctx.against), castFor(ctx.type, ctx.literalOnly));
  }

  /** Strings compare as names do (name_key), form values case-insensitively. */
  private cased(side: Side, ctx: Context): Fragment {
    const rendered = this.render(side, ctx);
    if (ctx.type !== 'string') return rendered;
    return ctx.foldsCaseOnly ? sql`lower(${rendered})` : sql`name_key(${rendered})`;
  }

  /** An operand as text, for like. */
  private text(side: Side, literalOnly: boolean): Fragment {
    return this.render(side, { type: 'string', literalOnly });
  }

  private operand(o: Exclude<QOperand, QLiteral>): Typed {
    switch (o.kind) {
      case 'field': {
        const field = this.fields.get(o.name.toLowerCase());
        if (!field) {
          throw qError(`unknown field ${quote(o.name)}`, o.pos, '', `Known fields: ${listed([...this.fields.names().values()])}.`);
        }
        const typed: Typed = { frag: field.sql, type: field.type, label: quote(o.name), shiftYears: 0, eqHint: field.eqHint, nullIsEmpty: field.nullIsEmpty, keptText: field.keptText, foldsCaseOnly: field.foldsCaseOnly };
        return field.type === 'datetime' && !field.shownAsKept ? { ...typed, frag: shownDateTime(field.sql), stored: field.sql } : typed;
      }
      case 'substring': {
        const value = this.side(o.value);
        if (isNullSide(value)) throw qError('substring needs a value, not null', o.pos);
        const start = int32Literal(this.literalArg(o.start, 'the start of substring'), 'the start of substring');
        const length = int32Literal(this.literalArg(o.length, 'the length of substring'), 'the length of substring');
        if (length < 0) throw qError(`the length of substring cannot be negative`, o.length.pos);
        const text = this.text(value, true);
        return {
          frag: sql`substring(${text} from ${param(start, '::int')} for ${param(length, '::int')})`,
          type: 'string',
          label: 'substring(...)',
          shiftYears: 0,
        };
      }
      case 'dateadd': {
        const value = this.side(o.value);
        let base: Fragment;
        let shiftYears = 0;
        let constant = true;
        if ('typed' in value) {
          constant = value.typed.constant === true;
          if (value.typed.type !== 'datetime') {
            throw qError(`dateadd needs a date-time, but ${value.typed.label} is ${article(value.typed.type)}`, o.pos);
          }
          base = value.typed.frag;
          shiftYears = value.typed.shiftYears;
        } else {
          if (value.literal.kind === 'null') throw qError('dateadd needs a date-time, not null', o.pos);
          base = param(coerceLiteral(value.literal, 'datetime', 'dateadd'), '::timestamp');
        }
        const amount = int32Literal(this.literalArg(o.amount, 'the amount of dateadd'), 'the amount of dateadd');
        shiftYears += Math.abs(amount) / UNITS_PER_YEAR[o.part];
        if (shiftYears > MAX_DATEADD_YEARS) {
          throw qError(`dateadd moves the date too far (more than ${MAX_DATEADD_YEARS} years in total)`, o.amount.pos ?? o.pos);
        }
        return {
          frag: sql`(${base} + (${param(amount, '::int')} * ${raw(INTERVAL_SQL[o.part])}))`,
          type: 'datetime',
          label: 'dateadd(...)',
          shiftYears,
          constant,
        };
      }
    }
  }

  /**
   * An index-friendly condition on a datetime field's stored value that `field op literal` (or a
   * dateadd of one) implies (the shown value is the stored one cut to the millisecond: never above it, less than
   * a millisecond below), AND-ed before the exact comparison, which still decides.
   */
  private dateHint(field: Side, op: keyof typeof COMPARE_SQL, other: Side, ctx: Context): Fragment | undefined {
    if (!('typed' in field) || !field.typed.stored || ctx.type !== 'datetime') return undefined;
    if ('typed' in other && !other.typed.constant) return undefined;
    const at = this.render(other, ctx);
    const stored = field.typed.stored;
    switch (op) {
      case 'eq':
        return sql`${stored} >= ${at} AND ${stored} < ${at} + ${raw(ONE_MS)}`;
      case 'gt':
      case 'ge':
        return sql`${stored} ${raw(COMPARE_SQL[op])} ${at}`;
      case 'lt':
      case 'le':
        return sql`${stored} < ${at} + ${raw(ONE_MS)}`;
      case 'ne':
        return undefined;
    }
  }

  private literalArg(o: QOperand, what: string): QLiteral {
    if (o.kind === 'string' || o.kind === 'number' || o.kind === 'boolean' || o.kind === 'null') return o;
    throw qError(`${what} must be an integer literal`, o.pos);
  }
}

/** A field's index hint when the other side is a string literal. */
function eqHintOf(field: Side, other: Side): Fragment | undefined {
  if (!('typed' in field) || !field.typed.eqHint || !('literal' in other) || other.literal.kind !== 'string') return undefined;
  return field.typed.eqHint(other.literal.value);
}

function castFor(type: ValueType, literalOnly: boolean): string {
  switch (type) {
    case 'string':
      return literalOnly ? '::text' : '';
    case 'integer':
      return '::bigint';
    case 'numeric':
      return '::numeric';
    case 'boolean':
      return '::boolean';
    case 'guid':
      return '::uuid';
    case 'datetime':
      return '::timestamp';
  }
}

/** A plain (possibly qualified, possibly quoted) column reference can take `::text` directly; anything else is wrapped first. */
const SIMPLE_COLUMN = /^(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)(?:\.(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*))*$/;

function asText(t: Typed): Fragment {
  if (t.type === 'string') return t.frag;
  // to_char's MS cuts as shownDateTime does (and t.frag is a field already cut so).
  if (t.type === 'datetime') return sql`to_char(${t.frag}, 'YYYY-MM-DD"T"HH24:MI:SS.MS')`;
  const plain = t.frag.values.length === 0 && SIMPLE_COLUMN.test(t.frag.strings[0]);
  return plain ? sql`${t.frag}::text` : sql`(${t.frag})::text`;
}

/**
 * The names as `q` takes them (`[a]]b]`, `[x,y]`: a comma inside a name cannot blur the list),
 * the first MAX_LISTED_FIELDS of them, then how many more there are.
 */
function listed(names: string[]): string {
  const shown = names.slice(0, MAX_LISTED_FIELDS).map(printField).join(', ');
  return names.length > MAX_LISTED_FIELDS ? `${shown} and ${names.length - MAX_LISTED_FIELDS} more` : shown;
}

function article(type: FieldType): string {
  return type === 'integer' ? 'an integer' : `a ${type}`;
}
