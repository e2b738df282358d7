/**
 * MikroORM set-up shared by the server, the CLI and the tests. Entities and migrations are
 * discovered: every entity exported from src/entities/, every migration file in migrations/
 * (applied in file-name order, which starts with its date).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EntitySchema } from '@mikro-orm/core';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator, type Migration } from '@mikro-orm/migrations';
import { modulesIn } from '../discover.js';
import { connectionTimeouts, type DbTimeouts } from './timeouts.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

const entities: EntitySchema[] = [];
for (const mod of (await modulesIn(path.join(HERE, '..', 'entities'))).values()) {
  entities.push(...Object.values(mod).filter((v): v is EntitySchema => v instanceof EntitySchema));
}

const migrationsList = [...(await modulesIn(path.join(HERE, '..', '..', 'migrations'))).entries()].map(([name, mod]) => {
  const cls = mod[name];
  if (typeof cls !== 'function') throw new Error(`migrations/${name} must export a class named ${name}`);
  return { name, class: cls as new (...args: any[]) => Migration } // eslint-disable-line @typescript-eslint/no-explicit-any;
});

/** Without `timeouts` (the CLI, migrations) a statement may run as long as it needs. */
export function ormOptions(clientUrl: string, poolSize = 10, timeouts?: DbTimeouts): Options {
  return {
    clientUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, tableName: 'mikro_orm_migrations', silent: true, snapshot: false },
    pool: { min: 0, max: poolSize },
    discovery: { warnWhenNoEntities: false },
    // A database that does not exist is an error, not made empty: a DATABASE_URL with a typo in its
    // name would start a new demo tenant (`migrate` below; src/start-failure.ts says what to do).
    ensureDatabase: false,
    forceUtcTimezone: true,
    allowGlobalContext: false,
    debug: false,
    // Every session in UTC, whatever the server's default: `q` compares timestamptz columns with
    // zone-less literals, and dates are read back as text. No just-in-time compiling, which cost a
    // large count more than it saved (docs/decisions.md, "Running and limits"). knex's
    // acquireConnectionTimeout bounds the wait for a pooled connection, connecting included. The
    // read pool takes the same settings.
    driverOptions: {
      connection: { options: '-c TimeZone=UTC -c jit=off', ...(timeouts ? connectionTimeouts(timeouts) : {}) },
      ...(timeouts ? { acquireConnectionTimeout: timeouts.acquireMs } : {}),
    },
  };
}

export async function initOrm(clientUrl: string, poolSize?: number, timeouts?: DbTimeouts): Promise<MikroORM> {
  return MikroORM.init(ormOptions(clientUrl, poolSize, timeouts));
}

/** Applies pending migrations in one transaction; a no-op when the schema is current. */
export async function migrate(orm: MikroORM): Promise<void> {
  // The migrator makes a database that is not there, whatever `ensureDatabase` says: a statement
  // first fails on it instead (3D000, src/start-failure.ts).
  await orm.em.getConnection().execute('select 1');
  await orm.getMigrator().up();
}
