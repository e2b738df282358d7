/**
 * What one REST read of a site by id is made of, in process (bench/in-process.ts, this checkout's
 * build, 10 reads at once): the promises and timers it makes, by where they are made; the bytes
 * it allocates, by package (V8's sampling heap profiler, collected objects included); and its CPU
 * with Node's promise hooks on and off. An AsyncLocalStorage turns those hooks on at its first
 * `run` or `enterWith` (MikroORM's at its first transaction and flush) and Node 20 keeps them on
 * while any is enabled: every promise then runs three hooks. This tool notes each instance that
 * runs, and disables them all for every other block of reads (no ORM work runs then, so no store is lost).
 *   npm run bench:anatomy
 * Env: BENCH_DATABASE_URL (else an embedded PostgreSQL), ANATOMY_READS (4000 reads per measure),
 * ANATOMY_TOP (20 places shown).
 */
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { Session } from 'node:inspector/promises';
import { readMany, runInProcess, wholeNumber, type InProcess, type LoadedApp } from './in-process.js';

const READS = wholeNumber('ANATOMY_READS', 4000);
const TOP = wholeNumber('ANATOMY_TOP', 20);
const CONCURRENCY = 10;

/** Every AsyncLocalStorage that has run: what keeps the promise hooks on. */
const storages = new Set<AsyncLocalStorage<unknown>>();
const proto = AsyncLocalStorage.prototype as unknown as Record<'run' | 'enterWith', (...args: unknown[]) => unknown>;
for (const method of ['run', 'enterWith'] as const) {
  const original = proto[method];
  proto[method] = function (this: AsyncLocalStorage<unknown>, ...args: unknown[]) {
    storages.add(this);
    return original.apply(this, args);
  };
}

/** A stack frame's place, short: `pg-pool/index.js:219`, `src/read/rows.js:31`, `node:internal/timers:165`. */
function place(frame: string): string {
  const at = frame.trim().replace(/^at /, '');
  const file = /\(?((?:file:\/\/)?[^()\s]+):(\d+):\d+\)?$/.exec(at);
  const name = at.replace(/\s*\(.*\)$/, '');
  if (!file) return at;
  return `${name.includes('/') ? '' : `${name} `}${shortFile(file[1])}:${file[2]}`;
}

/** A module's file, short: its package and path in node_modules, or its path from dist/. */
function shortFile(url: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+\/.*)$/.exec(url);
  if (inPackage) return inPackage[1];
  const ours = /\/dist\/(.*)$/.exec(url);
  return ours ? ours[1] : url;
}

/** The package (or our module, or Node's) that allocated: what allocations are summed by. */
function owner(url: string): string {
  if (url === '') return '(V8 built-ins: Promise, Map, closures made there)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inPackage) return inPackage[1];
  const ours = /\/dist\/(.*)$/.exec(url);
  if (ours) return ours[1];
  if (url.includes('/bench/')) return `${url.replace(/^.*\/bench\//, 'bench/')} (the harness's requests)`;
  return url.startsWith('node:') ? url.replace(/^(node:(?:internal\/)?[^/]+).*/, '$1') : url;
}

const perRead = (n: number) => (n / READS).toFixed(1);
const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP);

/** The async resources `READS` reads make, by type, and where the promises and timers among them are made. */
async function creations(p: InProcess, app: LoadedApp) {
  const byType = new Map<string, number>();
  const byPlace = new Map<string, number>();
  const hook = createHook({
    init(_id, type) {
      byType.set(type, (byType.get(type) ?? 0) + 1);
      if (type !== 'PROMISE' && type !== 'Timeout') return;
      // Node's own frames of making the resource, and this harness's, say nothing of who asked for it.
      const frames = (new Error().stack ?? '').split('\n').slice(1).filter((f) => !/node:internal\/async_hooks|node:internal\/timers|node:timers|\/bench\//.test(f));
      // A promise's own frame is often `Promise.then` or `new Promise`: the caller's says where.
      const key = `${type === 'PROMISE' ? 'promise' : 'timer'} ${frames.slice(0, 2).map(place).join(' < ')}`;
      byPlace.set(key, (byPlace.get(key) ?? 0) + 1);
    },
  });
  Error.stackTraceLimit = 8;
  hook.enable();
  await readMany(p, app, READS, CONCURRENCY);
  hook.disable();
  return { byType, byPlace };
}

/** The bytes `READS` reads allocate, by owner, collected objects included. */
async function allocations(p: InProcess, app: LoadedApp) {
  interface Node {
    callFrame: { url: string };
    selfSize: number;
    children: Node[];
  }
  const session = new Session();
  session.connect();
  // Both include flags keep what the collector took back: a read's garbage is most of what it allocates.
  await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as object);
  await readMany(p, app, READS, CONCURRENCY);
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: Node } };
  session.disconnect();
  const byOwner = new Map<string, number>();
  let total = 0;
  const walk = (n: Node) => {
    const o = owner(n.callFrame.url);
    byOwner.set(o, (byOwner.get(o) ?? 0) + n.selfSize);
    total += n.selfSize;
    n.children.forEach(walk);
  };
  walk(profile.head);
  return { total, byOwner };
}

/** CPU a read with the promise hooks on and off: 30 turns of a block each, which goes first alternating. */
async function hooksOnAndOff(p: InProcess, app: LoadedApp) {
  const cpu = { on: 0, off: 0 };
  const block = Math.max(CONCURRENCY, Math.round(READS / 8));
  for (let i = 0; i < 30; i++) {
    for (const on of i % 2 ? [true, false] : [false, true]) {
      for (const s of storages) {
        // A fresh store differs from the current one, so `run` enables the instance again.
        if (on) s.run({}, () => undefined);
        else s.disable();
      }
      const before = process.cpuUsage();
      await readMany(p, app, block, CONCURRENCY);
      const used = process.cpuUsage(before);
      cpu[on ? 'on' : 'off'] += used.user + used.system;
    }
  }
  for (const s of storages) s.run({}, () => undefined);
  return { on: cpu.on / (30 * block), off: cpu.off / (30 * block) };
}

async function anatomy(p: InProcess) {
  const [app] = p.apps;
  await readMany(p, app, 5 * READS, CONCURRENCY);
  const out = (s = '') => process.stdout.write(`${s}\n`);

  out(`A REST read of a site by id, in process, ${CONCURRENCY} at once (${READS} reads a measure)`);
  out();
  // First: counting and profiling below slow the code they watch for a while after.
  const cpu = await hooksOnAndOff(p, app);
  out(`CPU a read: ${cpu.on.toFixed(0)} µs with the promise hooks on, ${cpu.off.toFixed(0)} µs off (${(100 * (1 - cpu.off / cpu.on)).toFixed(0)}% of it); ${storages.size} AsyncLocalStorage instance(s) had turned them on.`);
  out();

  const { byType, byPlace } = await creations(p, app);
  out(`Async resources a read: ${top(byType).map(([t, n]) => `${t} ${perRead(n)}`).join(', ')}`);
  out(`Where its promises and timers are made (the ${TOP} most):`);
  for (const [at, n] of top(byPlace)) out(`  ${perRead(n).padStart(5)}  ${at}`);

  const { total, byOwner } = await allocations(p, app);
  out();
  out(`Allocated: ${(total / READS / 1024).toFixed(1)} KiB a read, by owner (the ${TOP} most):`);
  for (const [o, bytes] of top(byOwner)) out(`  ${(bytes / READS / 1024).toFixed(1).padStart(5)} KiB  ${o}`);
}

runInProcess('anatomy', ['.'], anatomy);
