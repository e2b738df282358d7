/** MikroORM set-up shared by the server, the CLI and the tests. */
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from '../entities/index.js';
import { migrationsList } from '../../migrations/index.js';

export function ormOptions(clientUrl: string, poolSize = 10): Options {
  return {
    clientUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, tableName: 'mikro_orm_migrations', silent: true, snapshot: false },
    pool: { min: 0, max: poolSize },
    discovery: { warnWhenNoEntities: false },
    forceUtcTimezone: true,
    allowGlobalContext: false,
    debug: false,
  };
}

export async function initOrm(clientUrl: string, poolSize?: number): Promise<MikroORM> {
  return MikroORM.init(ormOptions(clientUrl, poolSize));
}

/** Applies pending migrations in one transaction; a no-op when the schema is current. */
export async function migrate(orm: MikroORM): Promise<void> {
  await orm.getMigrator().up();
}
