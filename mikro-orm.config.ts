/** For the MikroORM CLI (e.g. `npx mikro-orm migration:create`); the app builds its options in src/db/orm.ts. */
import { loadConfig } from './src/config.js';
import { ormOptions } from './src/db/orm.js';

const config = loadConfig();
if (!config.databaseUrl) throw new Error('Set DATABASE_URL to use the MikroORM CLI');
export default ormOptions(config.databaseUrl);
