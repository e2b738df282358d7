/**
 * Scalars: JSON from graphql-scalars; UUID checked on input only (output comes from uuid columns,
 * and validating thousands of ids per page showed in profiles); DateTime renders UTC without a
 * zone designator; the code scalars (input only: ReleaseState, DataScope, CheckInStatus,
 * UploadCheckIn, LinkedObjectType) take a code as a number or its text, and carry their own words (`CODE_SCALARS`).
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

/**
 * An input scalar of codes, taken as a number or as its text (a form or a query string sends
 * text). Everything about it is here: `words` say what it takes in every refusal (REST's too:
 * src/rest/variable-errors.ts, src/rest/run-route.ts), `openApi` how the OpenAPI document shows it
 * (src/rest/sofa-setup.ts); REST reads a blank one as not sent (src/rest/input.ts).
 */
export interface CodeScalar {
  type: GraphQLScalarType;
  words: string;
  openApi: Record<string, unknown>;
  /** Whether `value` is one of its codes. */
  takes(value: unknown): boolean;
}

/** `parse` gives the code `value` stands for, or undefined for none. */
function codeScalar(name: string, words: string, openApi: Record<string, unknown>, parse: (value: unknown) => number | undefined): CodeScalar {
  const parsed = (value: unknown): number => {
    const code = parse(value);
    if (code === undefined) throw new GraphQLError(`Expected ${words}, got ${JSON.stringify(value)?.slice(0, 64)}`);
    return code;
  };
  // A boolean literal only where a boolean is one of its codes (UploadCheckIn's true and false).
  const takesBooleans = parse(true) !== undefined;
  const type = new GraphQLScalarType({
    name,
    serialize: (v) => v,
    parseValue: parsed,
    parseLiteral: (ast) =>
      atLiteral(ast, () => {
        if (ast.kind !== Kind.INT && ast.kind !== Kind.STRING && !(ast.kind === Kind.BOOLEAN && takesBooleans)) throw new GraphQLError(`${name} must be ${words}`);
        return parsed(ast.kind === Kind.INT ? Number(ast.value) : ast.value);
      }),
  });
  return { type, words, openApi, takes: (value) => parse(value) !== undefined };
}

/** A number, or text as sent less its blanks around; '' for anything else. */
const codeText = (value: unknown): string => (typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '');

/**
 * A release state by its number or its name (any case), as the clients send `documentState` and
 * `checkInDocumentState`. A Map, as every table of codes by text: an object also answers to
 * `constructor` and `__proto__`, which were taken as states and reached the database (a 500).
 */
const RELEASE_STATES = new Map([['released', 1], ['1', 1], ['unreleased', 0], ['0', 0]]);

const ReleaseState = codeScalar(
  'ReleaseState',
  '1 (or Released) or 0 (or Unreleased)',
  { oneOf: [{ type: 'integer', enum: [0, 1] }, { type: 'string', description: 'Released or Unreleased (any case), or "1" or "0"' }] },
  (value) => RELEASE_STATES.get(codeText(value).toLowerCase()),
);

/** A code scalar of 0 or 1, `meaning` what each is. */
const zeroOrOne = (name: string, words: string, meaning: string) =>
  codeScalar(name, words, { oneOf: [{ type: 'integer', enum: [0, 1] }, { type: 'string', enum: ['0', '1'] }], description: meaning }, (value) =>
    ['0', '1'].includes(codeText(value)) ? Number(codeText(value)) : undefined,
  );

/** A persisted data dictionary's scope. */
const DataScope = zeroOrOne('DataScope', "0 (the creator's own) or 1 (global)", "0 the creator's own, 1 global");

/** What `PUT documents/{id}/status`'s `checkIn` takes. */
const CheckInStatus = zeroOrOne('CheckInStatus', '0 (check in) or 1 (check out), the values of checkInStatus', '0 check in, 1 check out');

/**
 * An upload's `checkIn`: true or false (or their text, any case), as the Node clients send it, or
 * the check-in status asked for, as the Python client sends it (its documented "0 -> CheckedIn,
 * 1 -> CheckedOut", the values of checkInStatus). Read as that status: 0 checks in, 1 does not.
 */
const UPLOAD_CHECK_INS = new Map([['true', 0], ['0', 0], ['false', 1], ['1', 1]]);

const UploadCheckIn = codeScalar(
  'UploadCheckIn',
  'true or 0 (check the document in), or false or 1 (leave it as it is)',
  { oneOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }, { type: 'string', enum: ['true', 'false', '0', '1'] }] },
  (value) => UPLOAD_CHECK_INS.get((typeof value === 'boolean' ? String(value) : codeText(value)).toLowerCase()),
);

/** The type of the object a persisted data dictionary is linked to: the codes the clients use (client-compatibility.md), 0 to 16 and 99. */
const LINKED_OBJECT_TYPES = new Set([...Array.from({ length: 17 }, (_, i) => i), 99]);

const LinkedObjectType = codeScalar(
  'LinkedObjectType',
  'a whole number from 0 to 16, or 99',
  { oneOf: [{ type: 'integer', enum: [...LINKED_OBJECT_TYPES] }, { type: 'string', enum: [...LINKED_OBJECT_TYPES].map(String) }] },
  (value) => {
    const text = codeText(value);
    return /^\d{1,2}$/.test(text) && LINKED_OBJECT_TYPES.has(Number(text)) ? Number(text) : undefined;
  },
);

export const CODE_SCALARS: readonly CodeScalar[] = [ReleaseState, DataScope, CheckInStatus, UploadCheckIn, LinkedObjectType];

/** The code scalar of that name, if it is one. */
export const codeScalarNamed = (name: string): CodeScalar | undefined => CODE_SCALARS.find((c) => c.type.name === name);

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

/**
 * What a DateTime takes, in words for refusals: the years too, since a date-time written well can
 * still lie past them once in UTC (`9999-12-31T23:00:00-05:00`).
 */
export const DATE_TIME_WORDS = 'a date-time like 2024-01-31T13:45:00, from year 1 to 9999 in UTC';

/** Parses an ISO 8601 date or date-time; one without a zone is taken as UTC. */
export function parseDateTime(value: unknown): Date {
  const d = typeof value === 'string' ? isoInstant(value) : undefined;
  if (!d) throw new GraphQLError(`Expected ${DATE_TIME_WORDS}, got ${JSON.stringify(value)?.slice(0, 64)}`);
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
export const scalarResolvers: Record<string, ReturnType<typeof behaviour>> = {
  UUID: behaviour(UUID),
  JSON: behaviour(JSONScalar),
  DateTime: behaviour(DateTime),
  ...Object.fromEntries(CODE_SCALARS.map((c) => [c.type.name, behaviour(c.type)])),
};
