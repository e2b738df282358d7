/**
 * Child process: the real app (createApp over createServices, served by src/http-server.ts) as
 * src/server.ts runs it, minus the first-run demo tenant. Reports its port over IPC, stops on
 * SIGTERM or when the parent goes away (so a killed benchmark leaves nothing behind).
 * Env: DATABASE_URL (required), LOG_LEVEL, DB_POOL_SIZE and the rest of src/config.ts.
 */
import { serveAsChild } from './child-server.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createHttpServer } from '../src/http-server.js';
import { createLogger } from '../src/log.js';
import { createServices } from '../src/services.js';

async function main() {
  const config = { ...loadConfig(), host: '127.0.0.1', port: 0 };
  if (!config.databaseUrl) throw new Error('serve-app: DATABASE_URL is required');
  const log = createLogger(config.logLevel);
  const db = await openDatabase(config, log);
  const services = await createServices(config, db, log);
  const app = createApp(services);
  // The server src/server.ts makes (Node's refusals, the request target and Host checks), with Node's default limits.
  const server = createHttpServer({}, app.handle, log);
  server.keepAliveTimeout = 65_000;
  await serveAsChild(server, () => db.close());
}

main().catch((e) => {
  process.stderr.write(`serve-app failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
