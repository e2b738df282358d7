/**
 * The one mapping between our AppError family and GraphQL errors (extensions.code and
 * extensions.http.status), used by /graphql's error masking and by the REST envelope.
 */
import { GraphQLError, type Source } from 'graphql';
import { AppError, stackless, statusOf, type ErrorCode } from './errors.js';
import type { Logger } from './log.js';
import { unavailableFrom } from './db/unavailable.js';
import { clientClosedFrom } from './client-closed.js';
import { constraintError } from './db/constraint-errors.js';

/**
 * The GraphQL error of `err`, with `headers` for /graphql's answer (a 405's `Allow`); by default
 * those `original` asked for, so they survive its mapping again; and `err`'s own (a 401's challenge).
 */
export function appToGraphQL(
  err: AppError,
  original?: GraphQLError,
  asked = (original?.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers,
): GraphQLError {
  const headers = Object.keys(err.headers).length ? { ...err.headers, ...asked } : asked;
  return stackless(() => new GraphQLError(err.message, {
    nodes: original?.nodes,
    source: original?.source,
    positions: original?.positions,
    path: original?.path,
    originalError: err,
    extensions: {
      code: err.code,
      http: { status: err.status, ...(headers ? { headers } : {}) },
      developerMessage: err.developerMessage,
      ...(err.fieldPath === undefined ? {} : { field: err.fieldPath }),
      ...(Object.keys(err.meta).length ? { meta: err.meta } : {}),
    },
  }));
}

export function unexpected(requestId: string): GraphQLError {
  return new GraphQLError(`An unexpected error occurred. Quote request id ${requestId} when reporting it.`, {
    extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 }, requestId },
  });
}

/**
 * Every error, of either face, is mapped here once, where the request is known: our AppErrors
 * become GraphQL errors with extensions.code and http.status; errors GraphQL raised itself pass;
 * anything else is logged with the request id and replaced by a 500 that quotes it (details
 * only in the log).
 */
export function mapError(error: unknown, requestId: string, log: Logger): GraphQLError {
  const known = mapKnown(error);
  if (!known) return mapUnknown(error, requestId, log);
  // The file store away (503) or full (507): the client's answer does not say why, the operator's log does.
  const app = findAppError(error);
  if (app?.cause) log.warn({ requestId, err: app.cause }, app.developerMessage);
  return known;
}

/** What `mapError` makes of an error without logging it, or undefined for one that is logged with the request id. */
function mapKnown(error: unknown): GraphQLError | undefined {
  const app = findAppError(error);
  if (app) return appToGraphQL(app, error instanceof GraphQLError ? error : undefined);
  if (!(error instanceof GraphQLError)) return undefined;
  if (error.extensions?.code === 'INTERNAL_SERVER_ERROR') return error;
  // Errors without a path come from parsing, validation or variable coercion: the request was
  // bad and the message says how. An error with a path and no AppError behind it is our fault.
  return error.path || clientClosedFrom(error) || unavailableFrom(error) ? undefined : withoutOriginalError(error);
}

function mapUnknown(error: unknown, requestId: string, log: Logger): GraphQLError {
  const ge = error instanceof GraphQLError ? error : undefined;
  const closed = clientClosedFrom(error);
  if (closed) {
    log.debug({ requestId }, 'client closed the connection before its request was read');
    return appToGraphQL(closed, ge);
  }
  const away = unavailableFrom(error);
  if (away) {
    log.warn({ requestId, reason: away.developerMessage }, 'database unavailable or statement stopped');
    return appToGraphQL(away, ge);
  }
  log.error({ err: ge?.originalError ?? error, requestId }, 'unexpected error');
  return unexpected(requestId);
}

/**
 * An error Yoga caught outside execution (reading the body, building the context), whose
 * `maskError` hook is not told the request: kept whole until `useErrorMapping` maps it with the
 * request's id, so that the id quoted and logged is the one of the response's X-Request-Id.
 */
export class Unmapped extends GraphQLError {
  constructor(readonly error: unknown) {
    super('An unexpected error occurred.', { extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 } } });
  }
}

/** Yoga's `maskError`: `mapError` where the request is not needed, else an `Unmapped`. */
export const maskWithoutRequest = (error: unknown): GraphQLError => mapKnown(error) ?? new Unmapped(error);

/**
 * The error without `extensions.originalError`, which Yoga adds to its refusal of a body that is
 * not JSON (the parser's own error): internal detail, while the wire carries code and message.
 */
function withoutOriginalError(e: GraphQLError): GraphQLError {
  if (!e.extensions || !('originalError' in e.extensions)) return e;
  const { originalError: _internal, ...extensions } = e.extensions;
  return new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, originalError: e.originalError, extensions });
}

/** The AppError each database error stands for, made once: what `withFieldPaths` places on it stays. */
const fromDatabase = new WeakMap<object, AppError>();

/**
 * Finds our AppError inside whatever GraphQL or a library wrapped it in; a database constraint
 * error becomes the 404 or 409 it stands for (src/db/constraint-errors.ts), the same one each time.
 */
export function findAppError(err: unknown): AppError | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof AppError) return e;
    const fromDb = fromDatabase.get(e as object) ?? constraintError(e);
    if (fromDb) {
      fromDatabase.set(e as object, fromDb);
      return fromDb;
    }
    e = (e as { originalError?: unknown }).originalError;
  }
  return undefined;
}

/** Rethrows `err` as the GraphQL error of the AppError inside it, or as it is. */
export function throwAsGraphQL(err: unknown): never {
  const app = findAppError(err);
  throw app ? appToGraphQL(app) : err;
}

/** One error of the legacy envelope's `meta.errors` (src/rest/envelope.ts). */
export interface EnvelopeError {
  code: string;
  message: string;
  developerMessage: string;
  [extra: string]: unknown;
}

export interface ErrorOutcome {
  status: number;
  errors: EnvelopeError[];
  /** Each error's refused value as its message names it (AppError's `field`), for REST to spell as sent; never on the wire. */
  fields: (string | undefined)[];
  meta: Record<string, unknown>;
  /** The errors' own headers for the answer (a 401's `WWW-Authenticate`). */
  headers: Record<string, string>;
}

/**
 * Envelope errors from GraphQL errors. An error with no status and no path failed before
 * execution (a variable that did not fit its type): the request was bad, a 400.
 */
export function outcomeOf(errors: readonly unknown[]): ErrorOutcome {
  let status = 0;
  const meta: Record<string, unknown> = {};
  const headers: Record<string, string> = {};
  const fields: (string | undefined)[] = [];
  const out: EnvelopeError[] = errors.map((raw) => {
    const app = findAppError(raw);
    fields.push(app?.field);
    const e = raw as GraphQLError;
    const ext = (e.extensions ?? {}) as { code?: string; http?: { status?: number; headers?: object }; developerMessage?: string; meta?: object };
    const s = app?.status ?? ext.http?.status ?? (e.path ? 500 : 400);
    status = Math.max(status, s);
    Object.assign(meta, app?.meta ?? ext.meta ?? {});
    Object.assign(headers, ext.http?.headers, app?.headers);
    const code = app?.code ?? ext.code ?? codeOf(s);
    return { code, message: e.message, developerMessage: app?.developerMessage ?? ext.developerMessage ?? e.message };
  });
  return { status: status || 500, errors: out, fields, meta, headers };
}

function codeOf(status: number): string {
  const hit = (Object.entries(statusOf) as [ErrorCode, number][]).find(([, s]) => s === status);
  return hit ? hit[0] : 'INTERNAL_SERVER_ERROR';
}

/**
 * `e` placed in `source` by the `locations` it carries: graphql-jit, which runs /graphql's
 * documents, gives its execution errors `locations` but no `nodes`, and every GraphQLError made
 * again from one (ours as they are mapped, Yoga's as it writes the answer) takes its locations from
 * `nodes` or from `source` and `positions` alone, so they were lost. Errors with nodes or positions,
 * and those without locations, are answered as they are.
 */
export function placedInSource(e: GraphQLError, source: Source | undefined): GraphQLError {
  if (!source || e.nodes || e.positions || !e.locations?.length) return e;
  const starts = [0];
  for (const m of source.body.matchAll(/\r\n|[\n\r]/g)) starts.push(m.index + m[0].length);
  const positions = e.locations.map((l) => (starts[l.line - 1] ?? 0) + l.column - 1);
  return new GraphQLError(e.message, { source, positions, path: e.path, originalError: e.originalError, extensions: e.extensions });
}
