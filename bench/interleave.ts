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
import { PerformanceObserver } from 'node:perf_hooks';
import { readMany, runInProcess, wholeNumber, type InProcess, type LoadedApp } from './in-process.js';

const BLOCKS = wholeNumber('INTERLEAVE_BLOCKS', 40);
const BLOCK = wholeNumber('INTERLEAVE_BLOCK', 400);
const CONCURRENCY = wholeNumber('INTERLEAVE_CONCURRENCY', 10);

interface Build {
  app: LoadedApp;
  cpu: number;
  gc: number;
  reads: number;
}

let gcMs = 0;
new PerformanceObserver((list) => list.getEntries().forEach((e) => (gcMs += e.duration))).observe({ entryTypes: ['gc'] });

async function compare(p: InProcess) {
  const builds: Build[] = p.apps.map((app) => ({ app, cpu: 0, gc: 0, reads: 0 }));
  const block = (b: Build, n: number) => readMany(p, b.app, n, CONCURRENCY);

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
    process.stdout.write(`${b.app.dir}: ${(b.cpu / b.reads).toFixed(1)} µs of CPU a read, ${(b.gc / b.reads).toFixed(1)} µs of GC pauses\n`);
  }
}

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  process.stderr.write('usage: npm run bench:interleave -- <checkout> [<checkout> ...]   (each built; `.` is this one)\n');
  process.exit(2);
}
runInProcess('interleave', dirs, compare);
