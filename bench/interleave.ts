/**
 * Compares the CPU of builds of the app, or of one build's layers, on this noisy host: every
 * build's app runs in this one process (createApp over createServices, as bench/serve-app.ts, no
 * HTTP), and they take turns in blocks of requests, so that a slower minute of the host falls on
 * all of them alike. `npm run bench` runs one server after the other, and its ratios moved by
 * ±25% between runs of the same code; here the same builds stay within about 10% of each other.
 *   npm run bench:interleave -- <checkout> [<checkout> ...]
 * Each checkout must be built (`npm run build`: its dist/src/app.js); `.` is this one. Reports, per
 * checkout, the process's CPU (user + system) per REST site-by-id read and the garbage collector's
 * pauses per read. Env: BENCH_DATABASE_URL (else an embedded PostgreSQL), INTERLEAVE_BLOCKS (40),
 * INTERLEAVE_BLOCK (400 reads), INTERLEAVE_CONCURRENCY (10 reads at once).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { loadKeyRing } from '../src/auth/keys.js';
import { startBenchDb } from './db.js';
import { seed } from './seed.js';

const num = (name: string, fallback: number) => {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of 1 or more`);
  return n;
};
const BLOCKS = num('INTERLEAVE_BLOCKS', 40);
const BLOCK = num('INTERLEAVE_BLOCK', 400);
const CONCURRENCY = num('INTERLEAVE_CONCURRENCY', 10);

type Fetch = (request: Request) => Promise<Response> | Response;
interface Build {
  dir: string;
  fetch: Fetch;
  cpu: number;
  gc: number;
  reads: number;
  close(): Promise<void>;
}

let gcMs = 0;
new PerformanceObserver((list) => list.getEntries().forEach((e) => (gcMs += e.duration))).observe({ entryTypes: ['gc'] });

/** A checkout's app, built from its own dist/ (its modules apart from every other checkout's). */
async function load(dir: string): Promise<Build> {
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
  return { dir, fetch: createApp(services).fetch as Fetch, cpu: 0, gc: 0, reads: 0, close: () => db.close() };
}

async function main() {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) throw new Error('name at least one built checkout, `.` for this one');
  const benchDb = await startBenchDb((s) => process.stderr.write(`[interleave] ${s}\n`));
  const builds: Build[] = [];
  try {
    const s = await seed(benchDb.db.orm, benchDb.url);
    const kek = randomBytes(32);
    await loadKeyRing(benchDb.db.orm.em.fork(), kek);
    Object.assign(process.env, { DATABASE_URL: benchDb.url, KEY_ENCRYPTION_KEY: kek.toString('base64'), NODE_ENV: 'production', LOG_LEVEL: 'warn' });
    for (const dir of dirs) builds.push(await load(dir));

    const body = new URLSearchParams({ grant_type: 'password', client_id: s.clientId, client_secret: s.clientSecret, username: s.adminUserId, password: s.password });
    const answer = await builds[0].fetch(new Request('http://localhost/oauth/token', { method: 'POST', body }));
    if (answer.status !== 200) throw new Error(`login failed: HTTP ${answer.status} ${await answer.text()}`);
    const { access_token: token } = (await answer.json()) as { access_token: string };
    const url = `http://localhost${s.root}/sites/${s.probeSiteId}`;

    const read = async (b: Build) => {
      const r = await b.fetch(new Request(url, { headers: { authorization: `Bearer ${token}` } }));
      const text = await r.text();
      if (r.status !== 200) throw new Error(`${b.dir}: HTTP ${r.status} ${text.slice(0, 300)}`);
    };
    const block = (b: Build, n: number) =>
      Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        for (let i = 0; i < n / CONCURRENCY; i++) await read(b);
      }));

    for (const b of builds) await block(b, 20 * BLOCK);
    for (let i = 0; i < BLOCKS; i++) {
      // Each block's order reversed every other time: no build always follows the same one.
      for (const b of i % 2 ? [...builds].reverse() : builds) {
        const gc0 = gcMs;
        const cpu0 = process.cpuUsage();
        await block(b, BLOCK);
        const cpu = process.cpuUsage(cpu0);
        // The observer hears of a block's last pauses a turn later.
        await new Promise((r) => setImmediate(r));
        b.cpu += cpu.user + cpu.system;
        b.gc += (gcMs - gc0) * 1000;
        b.reads += BLOCK;
      }
    }
    for (const b of builds) {
      process.stdout.write(`${b.dir}: ${(b.cpu / b.reads).toFixed(1)} µs of CPU a read, ${(b.gc / b.reads).toFixed(1)} µs of GC pauses\n`);
    }
  } finally {
    for (const b of builds) await b.close();
    await benchDb.close();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`interleave failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
