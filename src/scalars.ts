/**
 * Scalars: JSON from graphql-scalars; UUID checked on input only (output comes from uuid columns,
 * and validating thousands of ids per page showed in profiles); DateTime renders UTC without a
 * zone designator; ReleaseState (input only) takes a release state's number or name; DataScope
 * (input only) a persisted data dictionary's scope; CheckInStatus (input only) the check-in status
 * a check-out or check-in asks for.
 */
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { isGuid } from './ids.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './nesting.js';

/**
 * A literal's parse, its refusal placed at the literal: graphql-js reports a scalar's GraphQLError
 * as it is, and one without nodes had no `locations` (built-in scalars give theirs).
 */
function atLiteral<T>(ast: ValueNode, parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof GraphQLError && !e.nodes) throw new GraphQLError(e.message, { nodes: ast });
    throw e;
  }
}

function parseUuid(value: unknown): string {
  if (!isGuid(value)) throw new GraphQLError(`Value is not a valid UUID: ${JSON.stringify(value)?.slice(0, 64)}`);
  return value.toLowerCase();
}

export const UUID = new GraphQLScalarType({
  name: 'UUID',
  serialize: (v) => String(v),
  parseValue: parseUuid,
  parseLiteral: (ast) =>
    atLiteral(ast, () => {
      if (ast.kind !== Kind.STRING) throw new GraphQLError('UUID must be a string');
      return parseUuid(ast.value);
    }),
});

/** A release state by its number or its name (any case), as the clients send `documentState` and `checkInDocumentState`. */
const RELEASE_STATES: Record<string, number> = { released: 1, '1': 1, unreleased: 0, '0': 0 };

/** What a release state takes, in the words of every refusal of one. */
export const RELEASE_STATE_VALUES = '1 (or Released) or 0 (or Unreleased)';

function parseReleaseState(value: unknown): number {
  const state = typeof value === 'number' ? RELEASE_STATES[String(value)] : typeof value === 'string' ? RELEASE_STATES[value.trim().toLowerCase()] : undefined;
  if (state === undefined) throw new GraphQLError(`Expected ${RELEASE_STATE_VALUES}, got ${JSON.stringify(value)?.slice(0, 64)}`);
  return state;
}

/** An input scalar of codes, taken as a number or as text (a form sends text): `parse` reads either, `values` words them. */
const codeScalar = (name: string, values: string, parse: (value: unknown) => number) =>
  new GraphQLScalarType({
    name,
    serialize: (v) => v,
    parseValue: parse,
    parseLiteral: (ast) =>
      atLiteral(ast, () => {
        if (ast.kind !== Kind.INT && ast.kind !== Kind.STRING) throw new GraphQLError(`${name} must be ${values}`);
        return parse(ast.kind === Kind.INT ? Number(ast.value) : ast.value);
      }),
  });

export const ReleaseState = codeScalar('ReleaseState', RELEASE_STATE_VALUES, parseReleaseState);

/** What a persisted data dictionary's scope takes, in the words of every refusal of one. */
export const DATA_SCOPES = "0 (the creator's own) or 1 (global)";

/** A code of 0 or 1 as a number, or as its text (a form or a query string sends `scope=1`). */
export const isZeroOrOne = (value: unknown): boolean => ['0', '1'].includes(typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '');

/** A code scalar of 0 or 1; `values` words them in every refusal (REST's too: src/rest/variable-errors.ts). */
const zeroOrOne = (name: string, values: string) =>
  codeScalar(name, values, (value) => {
    if (!isZeroOrOne(value)) throw new GraphQLError(`Expected ${values}, got ${JSON.stringify(value)?.slice(0, 64)}`);
    return Number(value);
  });

export const DataScope = zeroOrOne('DataScope', DATA_SCOPES);

/** What `PUT documents/{id}/status`'s `checkIn` takes, in the words of every refusal of it. */
export const CHECK_IN_STATUSES = '0 (check in) or 1 (check out), the values of checkInStatus';

export const CheckInStatus = zeroOrOne('CheckInStatus', CHECK_IN_STATUSES);

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (y: number, m: number) => (m === 2 ? (leap(y) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31);

/**
 * The instant of an ISO 8601 date or date-time (`T` or a space between them; no zone: UTC; a zone
 * of hours only, as PostgreSQL writes `+00`), or undefined when it is none, a day its month lacks
 * included (Date reads 2030-02-30 as March 2nd), or outside the years 1 to 9999 once in UTC. Never Date's own parsing of other forms, which
 * reads a zone-less `2026-01-02 10:00` in the process's time zone and `0050-…` as 1950.
 */
export function isoInstant(value: string): Date | undefined {
  const s = value.trim();
  const m = ISO.exec(s);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12 || Number(m[3]) < 1 || Number(m[3]) > daysIn(Number(m[1]), Number(m[2]))) return undefined;
  const zone = m[7] === undefined ? 'Z' : /^[+-]\d{2}$/.test(m[7]) ? `${m[7]}:00` : m[7].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const local = s.slice(0, s.length - (m[7]?.length ?? 0)).replace(' ', 'T');
  const d = new Date(m[4] === undefined ? `${local}T00:00:00${zone}` : `${local}${zone}`);
  // Years 1 to 9999 in UTC, as PostgreSQL keeps and gives back readably: year 0 is stored as 1 BC,
  // which no read could render again.
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999) return undefined;
  return d;
}

/** Parses an ISO 8601 date or date-time; one without a zone is taken as UTC. */
export function parseDateTime(value: unknown): Date {
  const d = typeof value === 'string' ? isoInstant(value) : undefined;
  if (!d) throw new GraphQLError(`Expected a date-time like 2024-01-31T13:45:00, got ${JSON.stringify(value)?.slice(0, 64)}`);
  return d;
}

export const formatDateTime = (d: Date): string => d.toISOString().slice(0, 23);

/**
 * PostgreSQL's text of a timestamp in a UTC session (every session is, src/db/orm.ts):
 * `2026-11-25 10:00:00[.123456][+00]`. Rewritten as text: a page of users writes thousands of
 * dates, and going through a Date costs twice as much.
 */
const PG_UTC = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(?:\+00)?$/;

export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  serialize(v) {
    if (typeof v === 'string') {
      const m = PG_UTC.exec(v);
      if (m) return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}`;
    }
    // Dates come from the database as text (MikroORM's pg settings); any other form isoInstant reads.
    const d = v instanceof Date ? v : (isoInstant(String(v)) ?? new Date(NaN));
    if (Number.isNaN(d.getTime())) throw new GraphQLError('DateTime cannot represent an invalid date');
    return formatDateTime(d);
  },
  parseValue: parseDateTime,
  parseLiteral: (ast) =>
    atLiteral(ast, () => {
      if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string');
      return parseDateTime(ast.value);
    }),
});

/**
 * A JSON value written inline, kept as a variable or a REST body would keep it: a number past a
 * double's range is refused (not stored as null or Infinity), and every key is an own key
 * (`__proto__` too). A variable inside it is refused: graphql-jit, which runs /graphql, gives a
 * literal parser none.
 */
function jsonLiteral(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.NULL:
      return null;
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT: {
      const n = Number(ast.value);
      if (!Number.isFinite(n)) throw new GraphQLError(`JSON holds a number too large to keep (${ast.value.slice(0, 32)}): send it as a string.`, { nodes: ast });
      return n;
    }
    case Kind.LIST:
      return ast.values.map(jsonLiteral);
    case Kind.OBJECT: {
      const out: Record<string, unknown> = {};
      for (const f of ast.fields) Object.defineProperty(out, f.name.value, { value: jsonLiteral(f.value), enumerable: true, writable: true, configurable: true });
      return out;
    }
    default:
      throw new GraphQLError('A JSON value written inline cannot hold a variable or an enum: send the whole value as a variable.', { nodes: ast });
  }
}

/** graphql-scalars' JSON, with its own literal parser (jsonLiteral) and a depth limit on variables. */
const JSONScalar = new GraphQLScalarType({
  ...GraphQLJSON.toConfig(),
  parseLiteral: (ast) => {
    const value = jsonLiteral(ast);
    if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw new GraphQLError(`JSON nests more than ${MAX_JSON_DEPTH} levels deep.`, { nodes: ast });
    return value;
  },
  // A variable nested thousands deep would overflow recursive code below (JSON.stringify): refused here.
  parseValue(value) {
    if (nestsDeeperThan(value, MAX_JSON_DEPTH)) throw new GraphQLError(`JSON nests more than ${MAX_JSON_DEPTH} levels deep.`);
    return GraphQLJSON.parseValue(value);
  },
});

/**
 * As resolvers, each scalar's behaviour only: a whole GraphQLScalarType would replace the
 * description schema/base.graphql gives it with its own (none, or graphql-scalars' text).
 */
const behaviour = (s: GraphQLScalarType) => ({ serialize: s.serialize, parseValue: s.parseValue, parseLiteral: s.parseLiteral });
export const scalarResolvers = { UUID: behaviour(UUID), JSON: behaviour(JSONScalar), DateTime: behaviour(DateTime), ReleaseState: behaviour(ReleaseState), DataScope: behaviour(DataScope), CheckInStatus: behaviour(CheckInStatus) };
