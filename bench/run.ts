/**
 * `npm run bench`: the app against a hand-written baseline, side by side, on the same seeded data.
 *
 *   1. database: BENCH_DATABASE_URL's server (fresh database) or an embedded PostgreSQL
 *   2. seed: 1 tenant, Home + 5 sites, 200 groups, 1000 users, 10 members per group
 *   3. children, compiled to dist/ first: the real app (bench/serve-app.ts) and the baseline (bench/baseline.ts)
 *   4. verify every target (status 200, record counts, REST body equal to the baseline's)
 *   5. per target: warm-up, then a fixed-length autocannon run; table to stdout and
 *      bench/results/latest.md
 *
 * Everything started here is stopped in `finally`, on SIGINT/SIGTERM and by a watchdog.
 * See bench/README.md for the environment variables.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { loadKeyRing } from '../src/auth/keys.js';
import { startBenchDb } from './db.js';
import { seed, SEED, type Seeded } from './seed.js';
import { BENCH_DIR, buildChildren, startChild, type Child } from './children.js';
import { load, type LoadResult, type LoadTarget } from './load.js';
import { login } from './login.js';

const num = (name: string, fallback: number, min: number, max: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${name} must be a number between ${min} and ${max}, got '${raw}'`);
  return n;
};

const SECONDS = num('BENCH_SECONDS', 10, 1, 600);
const WARMUP = num('BENCH_WARMUP', 2, 0, 120);
const CONNECTIONS = num('BENCH_CONNECTIONS', 20, 1, 1000);
const ROUNDS = num('BENCH_ROUNDS', 1, 1, 20);
const ONLY = (process.env.BENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const PROFILE = process.env.BENCH_PROFILE === '1';
const ENFORCE = process.env.BENCH_ENFORCE === '1';
const TARGET_RATIO = 0.5;
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const PROFILE_DIR = path.join(RESULTS_DIR, 'profiles');

const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

type Scenario = 'byId' | 'groups';
type Server = 'baseline' | 'rest' | 'graphql';

interface Target extends LoadTarget {
  key: string;
  scenario: Scenario;
  server: Server;
  /** The server child, for its CPU time. */
  child: Child;
  /** Returns a problem with the response, or undefined. */
  check(status: number, body: unknown): string | undefined;
}

const SCENARIO_LABEL: Record<Scenario, string> = {
  byId: 'Site by id',
  groups: '200 groups + users + site',
};
const SERVER_LABEL: Record<Server, string> = {
  baseline: 'baseline (node:http + pg)',
  rest: 'REST (SOFA)',
  graphql: 'GraphQL (/graphql)',
};

// ---------------------------------------------------------------------------------------------
// Clean-up: every resource registers its stop; all run (bounded) however the run ends.

const cleanups: { name: string; fn: () => Promise<void> }[] = [];
let cleaning: Promise<void> | undefined;

function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const c of cleanups.reverse()) {
      try {
        await Promise.race([
          c.fn(),
          new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 30 s')), 30_000).unref()),
        ]);
      } catch (e) {
        log(`clean-up of ${c.name} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  })();
  return cleaning;
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    log(`${sig}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------

function targetsFor(s: Seeded, app: Child, baseline: Child, token: string): Target[] {
  const auth = { authorization: `Bearer ${token}` };
  const appUrl = `http://127.0.0.1:${app.port}`;
  const baseUrl = `http://127.0.0.1:${baseline.port}`;
  const byIdPath = `${s.root}/sites/${s.probeSiteId}`;
  const groupsPath = `${s.root}/groups?limit=200&expand=users,site`;

  const checkSite = (site: { id?: string } | undefined) =>
    site?.id === s.probeSiteId ? undefined : `expected site ${s.probeSiteId}, got ${JSON.stringify(site)?.slice(0, 200)}`;
  const checkGroups = (groups: { siteId: string; users?: unknown[]; site?: { id?: string } | null }[] | undefined) => {
    if (!Array.isArray(groups)) return 'no group list';
    if (groups.length !== s.groupCount) return `expected ${s.groupCount} groups, got ${groups.length}`;
    const members = groups.reduce((n, g) => n + (g.users?.length ?? 0), 0);
    if (members !== s.membershipCount) return `expected ${s.membershipCount} members in all, got ${members}`;
    const badSite = groups.find((g) => g.site?.id !== g.siteId);
    if (badSite) return `group site not expanded: ${JSON.stringify(badSite).slice(0, 200)}`;
    return undefined;
  };
  type Envelope = { data?: unknown[] };
  type GqlReply = { data?: Record<string, unknown>; errors?: unknown[] };
  const envelope = (body: unknown) => body as Envelope;
  const gql = (body: unknown) => body as GqlReply;

  const siteQuery = 'query Site($id: UUID!) { site(id: $id) { href dataType id name description siteType status } }';
  const groupsQuery = '{ groups(limit:200){ items { id name description siteId users { id userid name } site { id name } } } }';
  const gqlHeaders = { ...auth, 'content-type': 'application/json' };

  return [
    {
      key: 'baseline-byid',
      scenario: 'byId',
      server: 'baseline',
      child: baseline,
      url: baseUrl + byIdPath,
      method: 'GET',
      headers: auth,
      check: (_, b) => (envelope(b).data?.length === 1 ? checkSite(envelope(b).data![0] as never) : 'expected one record'),
    },
    {
      key: 'rest-byid',
      scenario: 'byId',
      server: 'rest',
      child: app,
      url: appUrl + byIdPath,
      method: 'GET',
      headers: auth,
      check: (_, b) => (envelope(b).data?.length === 1 ? checkSite(envelope(b).data![0] as never) : 'expected one record'),
    },
    {
      key: 'graphql-byid',
      scenario: 'byId',
      server: 'graphql',
      child: app,
      url: `${appUrl}/graphql`,
      method: 'POST',
      headers: gqlHeaders,
      body: JSON.stringify({ query: siteQuery, variables: { id: s.probeSiteId } }),
      check: (_, b) => (gql(b).errors ? JSON.stringify(gql(b).errors).slice(0, 300) : checkSite(gql(b).data?.site as never)),
    },
    {
      key: 'baseline-groups',
      scenario: 'groups',
      server: 'baseline',
      child: baseline,
      url: baseUrl + groupsPath,
      method: 'GET',
      headers: auth,
      check: (_, b) => checkGroups(envelope(b).data as never),
    },
    {
      key: 'rest-groups',
      scenario: 'groups',
      server: 'rest',
      child: app,
      url: appUrl + groupsPath,
      method: 'GET',
      headers: auth,
      check: (_, b) => checkGroups(envelope(b).data as never),
    },
    {
      key: 'graphql-groups',
      scenario: 'groups',
      server: 'graphql',
      child: app,
      url: `${appUrl}/graphql`,
      method: 'POST',
      headers: gqlHeaders,
      body: JSON.stringify({ query: groupsQuery }),
      check: (_, b) =>
        gql(b).errors
          ? JSON.stringify(gql(b).errors).slice(0, 300)
          : checkGroups((gql(b).data?.groups as { items?: never } | undefined)?.items),
    },
  ];
}

interface Fetched {
  status: number;
  body: unknown;
  bytes: number;
}

async function fetchTarget(t: LoadTarget): Promise<Fetched> {
  const res = await fetch(t.url, { method: t.method, headers: t.headers, body: t.body, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, bytes: Buffer.byteLength(text) };
}

/** Fails loudly unless every target answers 200 with the expected records, and REST equals the baseline. */
async function verify(targets: Target[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const fetched = new Map<string, Fetched>();
  for (const t of targets) {
    const f = await fetchTarget(t);
    const problem = f.status !== 200 ? `HTTP ${f.status}: ${JSON.stringify(f.body).slice(0, 300)}` : t.check(f.status, f.body);
    if (problem) throw new Error(`verification failed for ${t.key} (${t.method} ${t.url}): ${problem}`);
    fetched.set(t.key, f);
    sizes.set(t.key, f.bytes);
  }
  // The baseline must produce what REST produces (meta.href differs only in the port).
  const withoutHref = (b: unknown) => {
    const o = structuredClone(b) as { meta?: { href?: string } };
    if (o.meta?.href) o.meta.href = new URL(o.meta.href).pathname + new URL(o.meta.href).search;
    return o;
  };
  for (const scenario of ['byId', 'groups'] as Scenario[]) {
    const rest = fetched.get(targets.find((t) => t.scenario === scenario && t.server === 'rest')?.key ?? '');
    const base = fetched.get(targets.find((t) => t.scenario === scenario && t.server === 'baseline')?.key ?? '');
    if (rest && base && !isDeepStrictEqual(withoutHref(rest.body), withoutHref(base.body))) {
      const a = JSON.stringify(withoutHref(rest.body));
      const b = JSON.stringify(withoutHref(base.body));
      let i = 0;
      while (i < a.length && a[i] === b[i]) i++;
      throw new Error(
        `verification failed: baseline body differs from REST for ${scenario} near char ${i}:\n  REST:     ...${a.slice(Math.max(0, i - 80), i + 120)}\n  baseline: ...${b.slice(Math.max(0, i - 80), i + 120)}`,
      );
    }
  }
  return sizes;
}

// ---------------------------------------------------------------------------------------------

/** One measured run: the load generator's numbers and the server's CPU time per request. */
type Measured = LoadResult & { cpuPerRequest: number };

interface Row {
  target: Target;
  result: Measured;
  bytes: number;
}

/**
 * The round with the median throughput (its latencies stay consistent with its req/s); errors
 * summed; CPU per request is its own median over the rounds.
 */
function median(results: Measured[]): Measured {
  const middle = <T>(sorted: T[]) => sorted[Math.floor((sorted.length - 1) / 2)];
  const mid = middle([...results].sort((a, b) => a.rps - b.rps));
  const sum = (k: 'non2xx' | 'errors' | 'timeouts') => results.reduce((n, r) => n + r[k], 0);
  const cpuPerRequest = middle(results.map((r) => r.cpuPerRequest).sort((a, b) => a - b));
  return { ...mid, cpuPerRequest, non2xx: sum('non2xx'), errors: sum('errors'), timeouts: sum('timeouts') };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function report(rows: Row[], context: string[]): { markdown: string; misses: string[] } {
  const misses: string[] = [];
  const lines = [
    '| Read | Server | req/s | p50 ms | p99 ms | KB/resp | server CPU µs/req | non-2xx / errors | ours ÷ baseline (req/s) | target |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const base = rows.find((b) => b.target.scenario === r.target.scenario && b.target.server === 'baseline');
    let ratio = '—';
    let verdict = '';
    if (r.target.server !== 'baseline' && base) {
      const q = r.result.rps / base.result.rps;
      ratio = `${fmt(q, 2)}×`;
      const ok = q >= TARGET_RATIO;
      verdict = `≥ ${TARGET_RATIO}× ${ok ? '✅' : '❌'}`;
      if (!ok) misses.push(`${SCENARIO_LABEL[r.target.scenario]} via ${SERVER_LABEL[r.target.server]}: ${fmt(q, 2)}×`);
    }
    lines.push(
      `| ${SCENARIO_LABEL[r.target.scenario]} | ${SERVER_LABEL[r.target.server]} | ${fmt(r.result.rps)} | ${fmt(r.result.p50, 1)} | ${fmt(r.result.p99, 1)} | ${fmt(r.bytes / 1024, 1)} | ${fmt(r.result.cpuPerRequest)} | ${r.result.non2xx} / ${r.result.errors} | ${ratio} | ${verdict} |`,
    );
  }
  const markdown = [
    '# quire benchmark',
    '',
    ...context.map((c) => `- ${c}`),
    '',
    ...lines,
    '',
    'REST and baseline bodies were verified equal before measuring; the GraphQL groups query selects',
    '`id userid name` of users and `id name` of the site, so its body is smaller than the REST one.',
    '',
  ].join('\n');
  return { markdown, misses };
}

async function main() {
  const totalSeconds = 6 * ROUNDS * (SECONDS + WARMUP) + 300;
  const watchdog = setTimeout(() => {
    log(`watchdog: the run took longer than ${totalSeconds} s; stopping everything`);
    void cleanup().finally(() => process.exit(1));
  }, totalSeconds * 1000);

  try {
    log('compiling the servers (tsc -p tsconfig.bench.json)');
    buildChildren();
    const benchDb = await startBenchDb(log);
    cleanups.push({ name: 'database', fn: () => benchDb.close() });
    log('seeding');
    const t0 = performance.now();
    const s = await seed(benchDb.db.orm, benchDb.url);
    log(`seeded ${s.siteIds.length} sites, ${s.groupCount} groups, ${SEED.users + 1} users, ${s.membershipCount} memberships in ${fmt(performance.now() - t0)} ms`);
    // The signing key exists before either child starts (the baseline may verify tokens with it).
    // The app's child unseals it with the same key-encryption key.
    const kek = randomBytes(32);
    await loadKeyRing(benchDb.db.orm.em.fork(), kek);
    const common = { DATABASE_URL: benchDb.url, NODE_ENV: 'production', LOG_LEVEL: process.env.LOG_LEVEL || 'warn', KEY_ENCRYPTION_KEY: kek.toString('base64') };

    const appArgs = PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${PROFILE_DIR}`] : [];
    const [app, baseline] = await Promise.all([
      startChild('app', 'serve-app.ts', common, appArgs),
      startChild('baseline', 'baseline.ts', { ...common, BENCH_TENANT_ID: s.tenantId }),
    ]);
    cleanups.push({ name: 'app server', fn: () => app.stop() });
    cleanups.push({ name: 'baseline server', fn: () => baseline.stop() });
    log(`app on 127.0.0.1:${app.port} (pid ${app.pid}), baseline on 127.0.0.1:${baseline.port} (pid ${baseline.pid})`);

    const token = await login(app, s);
    let targets = targetsFor(s, app, baseline, token);
    if (ONLY.length) targets = targets.filter((t) => ONLY.includes(t.key));
    if (targets.length === 0) throw new Error(`BENCH_ONLY='${ONLY.join(',')}' names no target`);
    const sizes = await verify(targets);
    log(`verified ${targets.length} targets`);

    // With several rounds the whole sequence repeats and each target reports its median round,
    // so that load from elsewhere on the machine hits ours and the baseline alike.
    const runs = new Map<string, Measured[]>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of targets) {
        const tag = ROUNDS > 1 ? `${t.key} (round ${round}/${ROUNDS})` : t.key;
        if (WARMUP > 0) {
          log(`${tag}: warm-up ${WARMUP} s`);
          await load(t, WARMUP, CONNECTIONS);
        }
        log(`${tag}: measuring ${SECONDS} s with ${CONNECTIONS} connections`);
        const cpuBefore = await t.child.cpuMicros();
        const measured = await load(t, SECONDS, CONNECTIONS);
        const cpuPerRequest = ((await t.child.cpuMicros()) - cpuBefore) / Math.max(1, measured.requests);
        const result: Measured = { ...measured, cpuPerRequest };
        log(`${tag}: ${fmt(result.rps)} req/s, p50 ${fmt(result.p50, 1)} ms, p99 ${fmt(result.p99, 1)} ms, server CPU ${fmt(result.cpuPerRequest)} µs/req`);
        runs.set(t.key, [...(runs.get(t.key) ?? []), result]);
      }
    }
    const rows: Row[] = targets.map((t) => ({ target: t, result: median(runs.get(t.key)!), bytes: sizes.get(t.key)! }));

    const context = [
      `${new Date().toISOString()}, Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`,
      `${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per target${ROUNDS > 1 ? `, median of ${ROUNDS} interleaved rounds` : ''}, autocannon in the runner process; app and baseline each in their own child process, DB pool 10 each`,
      `database: ${benchDb.describe}; data: ${s.siteIds.length} sites, ${s.groupCount} groups, ${SEED.users + 1} users, ${s.membershipCount} memberships`,
      `baseline JWT verification: ${process.env.BASELINE_VERIFY_JWT === '1' ? 'yes (EdDSA, like the app)' : 'no (checks only that a Bearer header is present)'}${PROFILE ? '; app ran with --cpu-prof' : ''}`,
    ];
    const { markdown, misses } = report(rows, context);
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fs.writeFileSync(path.join(RESULTS_DIR, 'latest.md'), markdown);
    process.stdout.write(`\n${markdown}\n`);
    log(`written to ${path.relative(process.cwd(), path.join(RESULTS_DIR, 'latest.md'))}`);

    const failed = rows.filter((r) => r.result.non2xx > 0 || r.result.errors > 0);
    if (failed.length) {
      process.exitCode = 1;
      log(`errors during the run: ${failed.map((r) => r.target.key).join(', ')}`);
    }
    if (misses.length) {
      log(`below target: ${misses.join('; ')}`);
      if (ENFORCE) process.exitCode = 1;
    }
  } finally {
    await cleanup();
    clearTimeout(watchdog);
    if (PROFILE) log(`CPU profiles (written when the app stopped): ${path.relative(process.cwd(), PROFILE_DIR)}`);
  }
}

main()
  .catch((e) => {
    process.stderr.write(`[bench] FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  })
  // Everything is stopped by now; exit even if a stray handle would keep the loop alive.
  .finally(() => process.exit());
