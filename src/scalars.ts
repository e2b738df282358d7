/**
 * Scalars: JSON from graphql-scalars; UUID checked on input only (output comes from uuid columns,
 * and validating thousands of ids per page showed in profiles); DateTime renders UTC without a
 * zone designator.
 */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { isGuid } from './ids.js';

function parseUuid(value: unknown): string {
  if (!isGuid(value)) throw new GraphQLError(`Value is not a valid UUID: ${JSON.stringify(value)?.slice(0, 64)}`);
  return value.toLowerCase();
}

export const UUID = new GraphQLScalarType({
  name: 'UUID',
  serialize: (v) => String(v),
  parseValue: parseUuid,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('UUID must be a string');
    return parseUuid(ast.value);
  },
});

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * The instant of an ISO 8601 date or date-time (`T` or a space between them; no zone: UTC), or
 * undefined when it is none, a day its month lacks included (Date reads 2030-02-30 as March 2nd).
 */
export function isoInstant(value: string): Date | undefined {
  const s = value.trim();
  const m = ISO.exec(s);
  if (!m || Number(m[3]) < 1 || Number(m[3]) > new Date(Date.UTC(Number(m[1]), Number(m[2]), 0)).getUTCDate()) return undefined;
  const text = s.replace(' ', 'T');
  const d = new Date(m[7] ? text : m[4] === undefined ? `${text}T00:00:00Z` : `${text}Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** Parses an ISO 8601 date or date-time; one without a zone is taken as UTC. */
export function parseDateTime(value: unknown): Date {
  const d = typeof value === 'string' ? isoInstant(value) : undefined;
  if (!d) throw new GraphQLError(`Expected a date-time like 2024-01-31T13:45:00, got ${JSON.stringify(value)?.slice(0, 64)}`);
  return d;
}

export const formatDateTime = (d: Date): string => d.toISOString().slice(0, 23);

export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  serialize(v) {
    const d = v instanceof Date ? v : new Date(v as string);
    if (Number.isNaN(d.getTime())) throw new GraphQLError('DateTime cannot represent an invalid date');
    return formatDateTime(d);
  },
  parseValue: parseDateTime,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string');
    return parseDateTime(ast.value);
  },
});

/**
 * graphql-scalars' JSON, its literal parser taking one argument: /graphql runs compiled by
 * graphql-jit, which gives a literal parser no variables and writes an error to stderr for every
 * literal of a scalar whose parser asks for them (a JSON input written inline).
 */
const JSONScalar = new GraphQLScalarType({ ...GraphQLJSON.toConfig(), parseLiteral: (ast) => GraphQLJSON.parseLiteral(ast, {}) });

export const scalarResolvers = { UUID, JSON: JSONScalar, DateTime };
