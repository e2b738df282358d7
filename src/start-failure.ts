/**
 * How a start that failed is told on stderr: a cause the operator can act on (a setting, a port
 * taken, a database out of reach) in one line naming the setting, with no stack; anything else is a
 * fault of ours, shown with its stack (a database error's as the log shows it: no statement, no values).
 */
import { ConfigError } from './config.js';
import { serializeError } from './db-error-log.js';

export interface StartFailure {
  text: string;
  exitCode: number;
}

/** Errors Node gives when a host cannot be reached at all. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
/** PostgreSQL's refusals of a connection: class 28 (who may log in), 3D000 (no such database), 53300 (too many connections), 57P03 (not accepting connections yet). */
const REFUSED = /^(28...|3D000|53300|57P03)$/;

type Coded = Error & { code?: unknown; syscall?: unknown; port?: unknown; address?: unknown; hostname?: unknown; setting?: unknown };

/** A database that refused or could not be reached, said with DATABASE_URL shown without its password. */
export class DatabaseUnavailable extends Error {
  constructor(databaseUrl: string, cause: Coded) {
    const shown = new URL(databaseUrl);
    shown.password = '';
    // libpq's parameters may carry secrets in the query string too.
    for (const name of [...shown.searchParams.keys()]) if (/password/i.test(name)) shown.searchParams.delete(name);
    // A database the URL names that is not there is not made (src/db/orm.ts): the operator makes it.
    const name = decodeURIComponent(shown.pathname.slice(1));
    const advice = cause.code === '3D000' && name ? `: create it first (createdb ${name}), or correct the name in DATABASE_URL` : '';
    super(`cannot connect to the database at DATABASE_URL (${shown.href}): ${cause.message || String(cause.code)}${advice}`);
  }
}

/** `e` as DatabaseUnavailable when it is a connection's failure (else `e` itself, a fault to show whole). */
export function asConnectionFailure(e: unknown, databaseUrl: string | undefined): unknown {
  const code = (e as Coded)?.code;
  if (databaseUrl === undefined || typeof code !== 'string') return e;
  return UNREACHABLE.has(code) || REFUSED.test(code) ? new DatabaseUnavailable(databaseUrl, e as Coded) : e;
}

function listenFailure(e: Coded): string | undefined {
  // A listener's HOST is looked up before it listens: a name that resolves to nothing.
  if (e.syscall === 'getaddrinfo' && typeof e.setting === 'string') return `HOST ${String(e.hostname)} is not a name of this machine that resolves (${String(e.code)}): set HOST to one of its addresses`;
  if (e.syscall !== 'listen') return undefined;
  const where = `port ${String(e.port)} on ${String(e.address)}`;
  // The listener's setting: PORT, or HEALTH_PORT for the probes' (src/probe-server.ts).
  const setting = typeof e.setting === 'string' ? e.setting : 'PORT';
  if (e.code === 'EADDRINUSE') return `${where} is already in use: set ${setting} (or HOST) to a free one`;
  if (e.code === 'EACCES') return `not permitted to listen on ${where}: ports below 1024 need privileges; set ${setting}`;
  if (e.code === 'EADDRNOTAVAIL') return `HOST ${String(e.address)} is not an address of this machine`;
  return undefined;
}

export function startFailure(e: unknown): StartFailure {
  if (e instanceof ConfigError) return { text: `Configuration error: ${e.message}`, exitCode: 2 };
  if (e instanceof DatabaseUnavailable) return { text: `Failed to start: ${e.message}`, exitCode: 1 };
  const listen = e instanceof Error ? listenFailure(e as Coded) : undefined;
  if (listen) return { text: `Failed to start: ${listen}`, exitCode: 1 };
  const db = serializeError(e) as { type?: string; message?: string; code?: string; stack?: string };
  const text = db?.type && db.code ? `${db.message} (${db.code})\n${db.stack ?? ''}` : e instanceof Error ? e.stack : String(e);
  return { text: `Failed to start: ${text}`, exitCode: 1 };
}
