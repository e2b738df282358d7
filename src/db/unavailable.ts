/**
 * Recognises "the database is away" among errors, wherever a driver or the ORM wrapped it:
 * refused or dropped connections, a server shutting down or starting, our own connect, acquire
 * and statement timeouts (src/db/timeouts.ts). Those are answered 503 UNAVAILABLE, not 500; a
 * statement PostgreSQL stopped at its statement timeout too, with a message of its own.
 */
import { isAborted } from '../client-closed.js';
import { AppError } from '../errors.js';

/** Seconds a client is asked to wait (`Retry-After`) before trying again. */
export const RETRY_AFTER_SECONDS = 5;

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
// SQLSTATE: query_canceled (statement_timeout), admin/crash shutdown, cannot connect now, too many connections.
const SQL_STATES = new Set(['57014', '57P01', '57P02', '57P03', '53300']);
const MESSAGES = [
  /^Connection terminated/,
  /^Query read timeout/,
  /timeout exceeded when trying to connect/,
  /Timeout acquiring a connection/,
  /Client has encountered a connection error/,
  /Client was closed and is not queryable/,
];

function isAway(e: Record<string, unknown>): boolean {
  const code = typeof e.code === 'string' ? e.code : undefined;
  // Node fails a request whose client hung up with ECONNRESET too: that one is the client's (499).
  if (code && NETWORK_CODES.has(code) && !isAborted(e)) return true;
  if (code && (SQL_STATES.has(code) || code.startsWith('08'))) return true;
  if (typeof e.sqlState === 'string' && (SQL_STATES.has(e.sqlState) || e.sqlState.startsWith('08'))) return true;
  if (e.name === 'KnexTimeoutError' || e.name === 'ConnectionException') return true;
  return typeof e.message === 'string' && MESSAGES.some((m) => m.test(e.message as string));
}

/**
 * PostgreSQL itself cancelled the statement at `statement_timeout`: the database is there, and the
 * statement waited for a lock or had more work than DB_STATEMENT_TIMEOUT_MS allows. (Our client's
 * own timeout, for a server that answers nothing, is `Query read timeout`: the database away.)
 */
function stoppedAtTimeout(e: Record<string, unknown>): boolean {
  return (e.code === '57014' || e.sqlState === '57014') && typeof e.message === 'string' && /statement timeout/.test(e.message);
}

/** The 503 for `error` when the database is away or stopped the statement, looking through wrappers (cause, originalError, errors). */
export function unavailableFrom(error: unknown): AppError | undefined {
  const seen = new Set<unknown>();
  const queue = [error];
  while (queue.length && seen.size < 20) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const r = e as Record<string, unknown>;
    if (stoppedAtTimeout(r)) return stoppedStatement();
    if (isAway(r)) return unavailable();
    queue.push(r.cause, r.originalError, r.previous, ...(Array.isArray(r.errors) ? r.errors : []));
  }
  return undefined;
}

/**
 * Still a 503 with Retry-After, as a wait for a lock may pass; but it says what happened, not that
 * the database is away, and that nothing was changed: the cancelled statement's transaction rolled back.
 */
export const stoppedStatement = () =>
  new AppError(
    'UNAVAILABLE',
    `The database stopped this request: it ran longer than one statement may (DB_STATEMENT_TIMEOUT_MS). Nothing was changed. Try again in ${RETRY_AFTER_SECONDS} seconds; if it happens again, the request asks for more work than one request may do (such as deleting a folder that holds hundreds of thousands of documents), or an administrator can allow longer statements.`,
    'PostgreSQL cancelled a statement at statement_timeout (DB_STATEMENT_TIMEOUT_MS): it waited that long for a lock, or its work took that long. Its transaction was rolled back.',
  );

export const unavailable = () =>
  new AppError(
    'UNAVAILABLE',
    `The database is not available right now. Try again in ${RETRY_AFTER_SECONDS} seconds.`,
    'The database refused the connection or did not answer in time. A write that timed out may or may not have been applied: read it back before repeating it.',
  );
