/**
 * The one family of errors the service raises on purpose. Each maps once to a GraphQL error
 * (extensions.http.status + code) and once to the REST envelope (meta.errors).
 */
import { isDeepStrictEqual } from 'node:util';

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'REQUEST_TIMEOUT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RANGE_NOT_SATISFIABLE'
  | 'TOO_MANY_REQUESTS'
  | 'BAD_GATEWAY'
  | 'UNAVAILABLE'
  | 'GATEWAY_TIMEOUT'
  | 'INSUFFICIENT_STORAGE'
  | 'CLIENT_CLOSED_REQUEST';

export const statusOf: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  /** A request body that arrived too slowly (src/body-pace.ts); Node's own 408 has this code too (src/client-error.ts). */
  REQUEST_TIMEOUT: 408,
  /** A download's If-Match or If-Unmodified-Since that its file does not meet (src/rest/conditional.ts). */
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** A download's Range that names no byte of its file (src/rest/conditional.ts). */
  RANGE_NOT_SATISFIABLE: 416,
  TOO_MANY_REQUESTS: 429,
  /** An outside process (the script server) failed or answered what is not JSON. */
  BAD_GATEWAY: 502,
  UNAVAILABLE: 503,
  /** An outside process took longer than it may. */
  GATEWAY_TIMEOUT: 504,
  /** The file store has no room for a file (src/storage/file-store.ts, `storeFull`). */
  INSUFFICIENT_STORAGE: 507,
  /**
   * The client closed its connection before its request was read (nginx's 499): no one reads the
   * answer; the access log and metrics record it as such, not as our failure.
   */
  CLIENT_CLOSED_REQUEST: 499,
};

/**
 * Makes an error without capturing a stack. Capturing one at each of the two errors a refusal
 * makes (the AppError, then the GraphQL error that carries it) and formatting the first was about
 * a third of a 401's CPU (bench/README.md, 2026-11-28): a flood of bad tokens cost twice what it needed.
 */
export function stackless<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra detail for developers; safe to show (never secrets or stack traces). */
    readonly developerMessage: string = message,
    /** Extra keys for the envelope's meta (for example retryTime on 429). */
    readonly meta: Record<string, unknown> = {},
    /** Headers its answer carries, by either face (a 401's `WWW-Authenticate`). */
    readonly headers: Record<string, string> = {},
    /**
     * The one value it refuses, if it refuses one, named as its message names it: a key of the
     * field's `input` or an argument (`name`, `siteId`, `items[0].itemName`).
     */
    readonly field?: string,
  ) {
    // No stack: a refusal is expected, and its stack is never shown or logged (see `stackless`).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'AppError';
    this.status = statusOf[code];
  }

  /**
   * `field` as /graphql names it (`input.name`, `id`), which its `extensions.field` gives: set
   * where the root field that raised it is left (`withFieldPaths`, src/field-paths.ts), or where a
   * nested relation's arguments are read (`relationLoader`, src/read/resolvers.ts).
   */
  fieldPath?: string;
}

/** What a refusal may add to its message: the value it is about (`field`, see AppError), a longer developer message. */
interface Detail {
  field?: string;
  dev?: string;
}

export const badRequest = (msg: string, { field, dev }: Detail = {}) => new AppError('BAD_REQUEST', msg, dev, {}, {}, field);
const BEARER = 'Bearer realm="quire"';

/**
 * A 401 for a bearer token: its challenge names the scheme (RFC 9110 11.6.1, RFC 6750 3). A token
 * that was sent and refused is `invalid_token`, described by the message (fixed text, no quotes,
 * no secrets); a request with no bearer token gets the bare challenge, as RFC 6750 3.1 asks.
 */
export const unauthorized = (msg = 'Authorization is required: send a valid bearer token.', token: 'missing' | 'refused' = 'refused') =>
  new AppError('UNAUTHORIZED', msg, msg, {}, {
    'www-authenticate': token === 'missing' ? BEARER : `${BEARER}, error="invalid_token", error_description="${msg}"`,
  });
export const forbidden = (msg = 'You do not have permission to do this.') => new AppError('FORBIDDEN', msg);
/** `field`: an id a body sent (`folderId`) that names nothing; not the id of the record a path names. */
export const notFound = (msg: string, { field }: Pick<Detail, 'field'> = {}) => new AppError('NOT_FOUND', msg, msg, {}, {}, field);
export const conflict = (msg: string, { field }: Pick<Detail, 'field'> = {}) => new AppError('CONFLICT', msg, msg, {}, {}, field);

/**
 * A value a client sent, as a message shows it: text quoted (`'abc'`), anything else as its JSON
 * (`{"a":1}`, `[1]`, `42`), cut to `max` characters. `String()` made `[object Object]` of objects.
 */
export const shownValue = (v: unknown, max = 64): string =>
  typeof v === 'string' ? `'${v.slice(0, max)}'` : (JSON.stringify(v) ?? String(v)).slice(0, max);

/** One copy of an argument sent more than once: its value as sent, its spelling where copies differ in it, and what it counts as. */
export interface SentCopy {
  sent: unknown;
  as?: string;
  kept: unknown;
}

/**
 * One rule for an argument sent more than once (a query parameter `limit=5&Limit=-1`, a body's
 * `dropdownListId` beside `dropDownListId`, a form field named by its key and by its id): its
 * copies must count as the same value, else a 400 naming it (`what`) and two copies that differ,
 * as sent. Taking one copy dropped the others without a word, and which one counted was the
 * order's chance.
 */
export function requireAgreement(what: string, copies: readonly SentCopy[]): void {
  const [first, ...rest] = copies;
  const other = rest.find((c) => !isDeepStrictEqual(c.kept, first.kept));
  if (other === undefined) return;
  const shown = (c: SentCopy) => shownValue(c.sent) + (c.as === undefined ? '' : ` as '${c.as.slice(0, 64)}'`);
  throw badRequest(`The ${what} was sent ${copies.length} times with different values (${shown(first)} and ${shown(other)}): send it once.`);
}

/** How many items of a list an error message names before it only counts the rest. */
const MAX_NAMED = 10;

/**
 * Items a message names, quoted (each cut to 256 characters, the longest name this service keeps):
 * at most MAX_NAMED, then "and N more". A list sized by the caller stays a line: 5000 unknown ids
 * were echoed whole (~400 KB).
 */
export function namedList(items: readonly string[], show = (item: string) => `'${item.slice(0, 256)}'`): string {
  const named = items.slice(0, MAX_NAMED).map(show).join(', ');
  return items.length > MAX_NAMED ? `${named} and ${items.length - MAX_NAMED} more` : named;
}
