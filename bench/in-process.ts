/**
 * The app in this process, without HTTP, for the in-process tools (bench/interleave.ts,
 * bench/anatomy.ts): a seeded benchmark database (BENCH_DATABASE_URL, else an embedded
 * PostgreSQL), built checkouts' apps over it, each from its own dist/ (createApp over
 * createServices, as bench/serve-app.ts), and an administrator's REST read of a site by id.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadKeyRing } from '../src/auth/keys.js';
import { startBenchDb } from './db.js';
import { seed } from './seed.js';

/** A setting of the in-process tools: a whole number of 1 or more, `fallback` when not set. */
export function wholeNumber(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of 1 or more`);
  return n;
}

type Fetch = (request: Request) => Promise<Response> | Response;

export interface LoadedApp {
  dir: string;
  fetch: Fetch;
}

export interface InProcess {
  apps: LoadedApp[];
  /** One REST read of a site by id through `app`; anything but a 200 throws. */
  read(app: LoadedApp): Promise<void>;
  close(): Promise<void>;
}

/** A checkout's app, built from its own dist/ (its modules apart from every other checkout's). */
async function load(dir: string): Promise<LoadedApp & { close(): Promise<void> }> {
  const from = async <T>(file: string) => (await import(pathToFileURL(path.resolve(dir, 'dist/src', file)).href)) as T;
  const { createApp } = await from<typeof import('../src/app.js')>('app.js');
  const { loadConfig } = await from<typeof import('../src/config.js')>('config.js');
  const { openDatabase } = await from<typeof import('../src/db/database.js')>('db/database.js');
  const { createLogger } = await from<typeof import('../src/log.js')>('log.js');
  const { createServices } = await from<typeof import('../src/services.js')>('services.js');
  const config = loadConfig();
  const log = createLogger('warn');
  const db = await openDatabase(config, log);
  const services = await createServices(config, db, log);
  return { dir, fetch: createApp(services).fetch as Fetch, close: () => db.close() };
}

/** Every checkout in `dirs` (each built: its dist/src/app.js; `.` is this one) over one seeded database. */
async function startInProcess(dirs: string[], log: (s: string) => void): Promise<InProcess> {
  const benchDb = await startBenchDb(log);
  const loaded: Awaited<ReturnType<typeof load>>[] = [];
  const close = async () => {
    for (const a of loaded) await a.close();
    await benchDb.close();
  };
  try {
    const s = await seed(benchDb.db.orm, benchDb.url);
    const kek = randomBytes(32);
    await loadKeyRing(benchDb.db.orm.em.fork(), kek);
    Object.assign(process.env, { DATABASE_URL: benchDb.url, KEY_ENCRYPTION_KEY: kek.toString('base64'), NODE_ENV: 'production', LOG_LEVEL: 'warn' });
    for (const dir of dirs) loaded.push(await load(dir));

    const body = new URLSearchParams({ grant_type: 'password', client_id: s.clientId, client_secret: s.clientSecret, username: s.adminUserId, password: s.password });
    const answer = await loaded[0].fetch(new Request('http://localhost/oauth/token', { method: 'POST', body }));
    if (answer.status !== 200) throw new Error(`login failed: HTTP ${answer.status} ${await answer.text()}`);
    const { access_token: token } = (await answer.json()) as { access_token: string };
    const url = `http://localhost${s.root}/sites/${s.probeSiteId}`;
    const read = async (app: LoadedApp) => {
      const r = await app.fetch(new Request(url, { headers: { authorization: `Bearer ${token}` } }));
      const text = await r.text();
      if (r.status !== 200) throw new Error(`${app.dir}: HTTP ${r.status} ${text.slice(0, 300)}`);
    };
    return { apps: loaded, read, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** `n` reads through `app`, `concurrency` at a time. */
export function readMany(p: InProcess, app: LoadedApp, n: number, concurrency: number): Promise<void[]> {
  return Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = 0; i < n / concurrency; i++) await p.read(app);
    }),
  );
}

/**
 * Runs an in-process tool: the checkouts' apps started over one seeded database, `body`, then
 * everything stopped and the process ended (exit code 1, with the error, on a failure).
 */
export function runInProcess(tool: string, dirs: string[], body: (p: InProcess) => Promise<void>): void {
  const go = async () => {
    const p = await startInProcess(dirs, (s) => process.stderr.write(`[${tool}] ${s}\n`));
    try {
      await body(p);
    } finally {
      await p.close();
    }
  };
  go().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`${tool} failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}

