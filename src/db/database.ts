/** Opens the database the config names (or the embedded one), migrated and ready. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { startEmbedded } from './embedded.js';
import { initOrm, migrate } from './orm.js';
import { createReadPool, type ReadPool } from '../read/read-pool.js';

export interface Database {
  orm: MikroORM;
  /** Where the read path (src/read/rows.ts) queries. */
  reads: ReadPool;
  url: string;
  close(): Promise<void>;
}

export async function openDatabase(config: Config, log: Logger): Promise<Database> {
  const embedded = config.databaseUrl ? undefined : await startEmbedded(config.dataDir);
  const url = config.databaseUrl ?? embedded!.url;
  // Migrations run on a connection of their own, free of the statement timeout: a long one must finish.
  const migrating = await initOrm(url, 1);
  try {
    await migrate(migrating);
  } finally {
    await migrating.close(true);
  }
  const timeouts = { connectMs: config.dbConnectTimeoutMs, acquireMs: config.dbAcquireTimeoutMs, statementMs: config.dbStatementTimeoutMs };
  const orm = await initOrm(url, config.dbPoolSize, timeouts);
  const reads = createReadPool(orm, log, config.dbNamedStatements);
  return {
    orm,
    reads,
    url,
    async close() {
      await reads.end();
      await orm.close(true);
      await embedded?.stop();
    },
  };
}
