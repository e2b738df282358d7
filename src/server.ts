/** Process entry point: config, database (embedded or DATABASE_URL), migrations, HTTP, shutdown. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { checkTextHandling } from './db/text-handling-check.js';
import { startDraining } from './draining.js';
import { ensureDemoTenant } from './first-run.js';
import { createHttpServer } from './http-server.js';
import { listenForProbes } from './probe-server.js';
import { createLogger } from './log.js';
import { asConnectionFailure, startFailure } from './start-failure.js';
import { createServices } from './services.js';
import { startPurgeJob } from './purge.js';
import { moveDatabaseFiles } from './domain/stored-files.js';
import { startEmailSender } from './jobs/email-sender.js';
import { startZipBuilder } from './jobs/zip-builder.js';

async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  log.info({ embedded: !config.databaseUrl, dataDir: config.dataDir }, 'starting');
  const db = await openDatabase(config, log).catch((e: unknown) => {
    throw asConnectionFailure(e, config.databaseUrl);
  });
  await checkTextHandling(db.orm, log, !config.databaseUrl);
  const services = await createServices(config, db, log);
  // Before serving: every read and copy takes a file's bytes from the file store.
  const moved = await moveDatabaseFiles(db.orm.em.fork(), services.files);
  if (moved > 0) log.info({ moved, fileStore: config.fileStore }, 'moved files stored in the database into the file store');
  const app = createApp(services);
  const purge = startPurgeJob(services);
  const emailSender = startEmailSender(services);
  const zipBuilder = startZipBuilder(services);
  // maxHeaderSize bounds the request line too: a long `q` in the URL works up to MAX_HEADER_BYTES.
  // Node's own request timeout (5 minutes) would cut off a large upload on a slow link; the head
  // keeps Node's 60 seconds (or less), and both are checked at least every few seconds.
  const requestTimeout = config.requestTimeoutSeconds * 1000;
  const httpOptions = {
    maxHeaderSize: config.maxHeaderBytes,
    requestTimeout,
    headersTimeout: Math.min(60_000, requestTimeout),
    connectionsCheckingInterval: Math.min(30_000, Math.max(250, requestTimeout / 4)),
  };
  const server = createHttpServer(httpOptions, app.handle, log);
  server.keepAliveTimeout = 65_000;
  services.connections.guard(server);
  let probes: http.Server | undefined;
  let stopping = false;
  // 1 once a fault stopped it: a supervisor restarts it, whatever the shutdown did after.
  let exitCode = 0;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    startDraining();
    purge.stop();
    log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    // The grace period bounds the whole shutdown, closing the database included, whatever it does.
    const force = setTimeout(() => {
      log.warn('grace period over: closing remaining connections and exiting');
      server.closeAllConnections();
      process.exit(1);
    }, config.shutdownGraceMs);
    force.unref();
    // Keep-alive connections become idle as their last response (with `Connection: close`) goes out: close them as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    clearInterval(sweep);
    // Probes answered to the end of the drain (/healthz up, the process still working).
    probes?.closeAllConnections();
    probes?.close();
    await Promise.all([emailSender.stop(), zipBuilder.stop()]);
    await db.close();
    log.info('stopped');
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // A throw no code of ours catches (a stream's callback, a timer) leaves the process in a state
  // nobody planned: it is logged as one line, as an unexpected error in a request is, and the
  // process stops as on SIGTERM (requests in flight finish within the grace period), exiting 1.
  const fault = (event: string) => (err: unknown) => {
    log.error({ err }, `${event}: shutting down`);
    exitCode = 1;
    void stop(event);
  };
  process.on('uncaughtException', fault('uncaughtException'));
  process.on('unhandledRejection', fault('unhandledRejection'));

  await new Promise<void>((resolve, reject) => {
    // A failure to listen is told by its setting (src/start-failure.ts).
    const failed = (e: Error) => reject(Object.assign(e, { setting: 'PORT' }));
    server.once('error', failed);
    server.listen(config.port, config.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  if (config.healthPort !== undefined) probes = await listenForProbes(httpOptions, app.handle, log, config.healthPort, config.host);
  services.ownUrl ??= `http://${urlHost(address)}:${port}`;
  const baseUrl = services.ownUrl;
  await ensureDemoTenant(db.orm, baseUrl);
  // Last: whoever waits for this line finds the server ready and the first-run credentials printed.
  const healthPort = probes && (probes.address() as AddressInfo).port;
  log.info({ port, graphql: `${baseUrl}/graphql`, ...(healthPort === undefined ? {} : { healthPort }) }, 'listening');
}

/**
 * The host of this service's own address (scripts call back at it): the interface it listens on,
 * `localhost` when that is every interface, which is no address to call.
 */
function urlHost(address: string): string {
  if (address === '0.0.0.0' || address === '::') return 'localhost';
  return address.includes(':') ? `[${address}]` : address;
}

main().catch((e) => {
  const failure = startFailure(e);
  process.stderr.write(`${failure.text}\n`);
  process.exit(failure.exitCode);
});
