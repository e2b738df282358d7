/** Opens the database the config names (or the embedded one), migrated and ready. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { startEmbedded } from './embedded.js';
import { initOrm, migrate } from './orm.js';

export interface Database {
  orm: MikroORM;
  url: string;
  close(): Promise<void>;
}

export async function openDatabase(config: Config): Promise<Database> {
  const embedded = config.databaseUrl ? undefined : await startEmbedded(config.dataDir);
  const url = config.databaseUrl ?? embedded!.url;
  const orm = await initOrm(url, config.dbPoolSize);
  await migrate(orm);
  return {
    orm,
    url,
    async close() {
      await orm.close(true);
      await embedded?.stop();
    },
  };
}
