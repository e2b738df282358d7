/**
 * The pool the read path queries on: pg's own, beside MikroORM's, with the same connection
 * settings (type parsers included). Taking a connection from the ORM's knex pool costs a timer
 * and a handful of promises per acquire, about a tenth of a by-id read; pg's pool costs neither.
 */
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../log.js';
import { StatementNames } from './statement-names.js';

/** pg's pool, with the names its statements are prepared under (src/read/statement-names.ts). */
export interface ReadPool extends pg.Pool {
  names: StatementNames;
}

/**
 * As many connections as the ORM's pool. An idle connection the server drops is logged; pg
 * replaces it. At most `namedStatements` texts are prepared under a name (DB_NAMED_STATEMENTS).
 */
export function createReadPool(orm: MikroORM, log: Logger, namedStatements: number): ReadPool {
  // The ORM is configured by URL (src/db/orm.ts), so the password is a string, never a callback.
  const settings = orm.em.getConnection().getConnectionOptions() as pg.PoolConfig;
  // The timeouts (src/db/timeouts.ts); pg's connectionTimeoutMillis bounds connecting and waiting for a slot.
  const { connection: timeouts, acquireConnectionTimeout } = (orm.config.get('driverOptions') ?? {}) as {
    connection?: pg.PoolConfig;
    acquireConnectionTimeout?: number;
  };
  const pool = new pg.Pool({
    ...settings,
    ...timeouts,
    ...(acquireConnectionTimeout ? { connectionTimeoutMillis: acquireConnectionTimeout } : {}),
    max: orm.config.get('pool')?.max,
  });
  pool.on('error', (err) => log.warn({ err }, 'idle read connection lost'));
  return Object.assign(pool, { names: new StatementNames(namedStatements) });
}
