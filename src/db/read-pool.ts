/**
 * The pool the read path queries on: pg's own, beside MikroORM's, with the same connection
 * settings (type parsers included). Taking a connection from the ORM's knex pool costs a timer
 * and a handful of promises per acquire, about a tenth of a by-id read; pg's pool costs neither.
 */
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';

export type ReadPool = pg.Pool;

/** As many connections as the ORM's pool; `onError` hears of idle connections the server dropped. */
export function createReadPool(orm: MikroORM, onError: (e: Error) => void): ReadPool {
  // The ORM is configured by URL (src/db/orm.ts), so the password is a string, never a callback.
  const settings = orm.em.getConnection().getConnectionOptions() as pg.PoolConfig;
  const pool = new pg.Pool({ ...settings, max: orm.config.get('pool')?.max });
  pool.on('error', onError);
  return pool;
}
