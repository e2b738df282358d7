/**
 * Database errors as the log may see them. A failed statement's error carries its SQL with the
 * values in it (MikroORM and knex put the query in the message and the stack), and PostgreSQL's
 * `detail` quotes the row (`Key (...)=(...) already exists`): a failed insert would write a
 * password hash to the log. What an operator needs is which rule failed where: the SQLSTATE code,
 * constraint, table, column and routine, and PostgreSQL's message with anything it quotes hidden
 * unless it is one of those names.
 */
import { pino } from 'pino';

interface PgFields {
  code?: unknown;
  severity?: unknown;
  constraint?: unknown;
  table?: unknown;
  column?: unknown;
  schema?: unknown;
  dataType?: unknown;
  routine?: unknown;
  message?: unknown;
  stack?: unknown;
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** The database error inside `err`, if any (MikroORM copies the driver's fields onto its own). */
function dbErrorOf(err: unknown): PgFields | undefined {
  let e = err as (PgFields & { cause?: unknown; previous?: unknown; originalError?: unknown }) | undefined;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    if (typeof e.code === 'string' && SQLSTATE.test(e.code) && typeof e.severity === 'string') return e;
    e = (e.previous ?? e.cause ?? e.originalError) as typeof e;
  }
  return undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** PostgreSQL's message without the statement and with quoted values hidden; the names it quotes stay. */
function safeMessage(db: PgFields): string {
  const names = new Set([db.constraint, db.table, db.column, db.schema, db.dataType].filter((n): n is string => typeof n === 'string'));
  // knex puts the statement, values filled in, before PostgreSQL's message: `insert ... - duplicate key ...`.
  const text = String(db.message ?? '');
  const own = text.includes(' - ') ? text.slice(text.lastIndexOf(' - ') + 3) : text;
  return own.replace(/"([^"]*)"/g, (q, inner: string) => (names.has(inner) ? q : '"…"'));
}

/** Only the call sites of the stack: its first line is the message, with the SQL in it. */
const framesOf = (stack: unknown) => (typeof stack === 'string' ? stack.split('\n').filter((l) => l.trim().startsWith('at ')).join('\n') : undefined);

export function serializeError(err: unknown): unknown {
  const db = dbErrorOf(err);
  if (!db) return err instanceof Error ? pino.stdSerializers.err(err) : err;
  return {
    type: (err as Error).name ?? 'DatabaseError',
    message: safeMessage(db),
    code: db.code,
    constraint: str(db.constraint),
    table: str(db.table),
    column: str(db.column),
    routine: str(db.routine),
    stack: framesOf((err as Error).stack),
  };
}
