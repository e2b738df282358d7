/**
 * `npm run bench:forms`: the two form instance reads issue 10 names, timed one request at a time
 * against the real app (bench/serve-app.ts) on bulk-seeded data:
 *   - list: `GET /formtemplates/{t}/forms?limit=200&fields=<5 keys>` over a template of 100,000 instances
 *   - q:    `GET /formtemplates/{t}/forms?q=f1 eq '<value>'` over a template of 1,000,000 instances
 *     (each value held by 10 instances; a different value per request)
 * Reports p50/p95/p99 latency; target p95 under 50 ms. See bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadKeyRing } from '../src/auth/keys.js';
import { newId } from '../src/ids.js';
import { buildChildren, startChild, type Child } from './children.js';
import { startBenchDb } from './db.js';
import { login } from './login.js';
import { seed } from './seed.js';

const REQUESTS = Number(process.env.BENCH_FORMS_REQUESTS || 300);
const LIST_INSTANCES = Number(process.env.BENCH_FORMS_LIST || 100_000);
const Q_INSTANCES = Number(process.env.BENCH_FORMS_Q || 1_000_000);
const DISTINCT = Q_INSTANCES / 10;
const TARGET_P95_MS = 50;

const log = (s: string) => process.stderr.write(`[bench:forms] ${s}\n`);

/** A released template with text fields f1..f<n>, and `count` instances by generate_series (values `v<i mod distinct>`, `w<i>`...). */
async function seedTemplate(c: pg.Client, tenantId: string, name: string, fields: number, count: number, distinct: number): Promise<string> {
  const id = newId();
  const rev = newId();
  await c.query('insert into form_template (tenant_id, id, name, instance_prefix, next_instance_seq) values ($1, $2, $3, $4, $5)', [tenantId, id, name, `${name}-`, count + 1]);
  await c.query("insert into form_template_revision (tenant_id, id, template_id, revision, template_revision, status) values ($1, $2, $3, 1, '1', 1)", [tenantId, rev, id]);
  await c.query('update form_template set latest_revision_id = $3, released_revision_id = $3 where tenant_id = $1 and id = $2', [tenantId, id, rev]);
  await c.query(
    `insert into form_template_field (tenant_id, id, revision_id, field_id, key, label, field_type, ord)
       select $1, gen_random_uuid(), $2, gen_random_uuid(), 'f' || k, 'Field ' || k, 1, k from generate_series(1, $3) k`,
    [tenantId, rev, fields],
  );
  const pairs = Array.from({ length: fields }, (_, k) => (k === 0 ? `'f1', 'v' || (i % ${distinct})` : `'f${k + 1}', 'w${k + 1}-' || i`)).join(', ');
  await c.query(
    `insert into form_instance (tenant_id, id, template_id, revision_id, revision, seq, instance_name, values)
       select $1, gen_random_uuid(), $2, gen_random_uuid(), 1, i, $3 || lpad(i::text, 6, '0'), jsonb_build_object(${pairs})
       from generate_series(1, $4) i`,
    [tenantId, id, `${name}-`, count],
  );
  await c.query(
    `insert into form_instance_revision (tenant_id, id, form_id, revision, values)
       select tenant_id, revision_id, id, 1, values from form_instance where tenant_id = $1 and template_id = $2`,
    [tenantId, id],
  );
  return id;
}

async function time(url: string, token: string, check: (body: { data: Record<string, unknown>[] }) => string | undefined): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { data: Record<string, unknown>[] };
  const ms = performance.now() - t0;
  const problem = res.status !== 200 ? `HTTP ${res.status}` : check(body);
  if (problem) throw new Error(`${url}: ${problem} ${JSON.stringify(body).slice(0, 300)}`);
  return ms;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function measure(label: string, url: (i: number) => string, token: string, check: Parameters<typeof time>[2]) {
  for (let i = 0; i < 20; i++) await time(url(i), token, check);
  const ms: number[] = [];
  for (let i = 0; i < REQUESTS; i++) ms.push(await time(url(i + 20), token, check));
  ms.sort((a, b) => a - b);
  const [p50, p95, p99] = [50, 95, 99].map((p) => pct(ms, p));
  return `| ${label} | ${REQUESTS} | ${p50.toFixed(1)} | ${p95.toFixed(1)} | ${p99.toFixed(1)} | ${p95 < TARGET_P95_MS ? '✅' : '❌'} |`;
}

async function main() {
  const stops: (() => Promise<void>)[] = [];
  try {
    log('compiling the server (tsc -p tsconfig.bench.json)');
    buildChildren();
    const benchDb = await startBenchDb(log);
    stops.push(() => benchDb.close());
    const s = await seed(benchDb.db.orm, benchDb.url);
    const c = new pg.Client({ connectionString: benchDb.url });
    await c.connect();
    const t0 = performance.now();
    const listId = await seedTemplate(c, s.tenantId, 'List', 10, LIST_INSTANCES, DISTINCT);
    const qId = await seedTemplate(c, s.tenantId, 'Search', 5, Q_INSTANCES, DISTINCT);
    await c.query('analyze');
    await c.end();
    log(`seeded ${LIST_INSTANCES} + ${Q_INSTANCES} instances in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const kek = randomBytes(32);
    await loadKeyRing(benchDb.db.orm.em.fork(), kek);
    const app: Child = await startChild('app', 'serve-app.ts', {
      DATABASE_URL: benchDb.url, NODE_ENV: 'production', LOG_LEVEL: 'warn', KEY_ENCRYPTION_KEY: kek.toString('base64'),
    });
    stops.push(() => app.stop());
    const token = await login(app, s);
    const base = `http://127.0.0.1:${app.port}${s.root}/formtemplates`;
    const fields = encodeURIComponent('f1,f2,f3,f4,f5');
    const rows = [
      await measure(`list: limit=200&fields=<5 keys> over ${LIST_INSTANCES}`, (i) => `${base}/${listId}/forms?limit=200&offset=${(i % 10) * 200}&fields=${fields}`, token, (b) =>
        b.data.length === 200 && Object.keys(b.data[0]).length === 9 ? undefined : `expected 200 records of href, dataType, revisionId, instanceName and 5 keys`),
      await measure(`q: f1 eq '<value>' over ${Q_INSTANCES}`, (i) => `${base}/${qId}/forms?q=${encodeURIComponent(`f1 eq 'V${(i * 7919) % DISTINCT}'`)}`, token, (b) =>
        b.data.length === 10 ? undefined : `expected 10 matches, got ${b.data.length}`),
    ];
    const table = ['| Read | Requests | p50 ms | p95 ms | p99 ms | p95 < 50 ms |', '|---|---|---|---|---|---|', ...rows].join('\n');
    process.stdout.write(`${table}\n`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((e: unknown) => log(`clean-up failed: ${String(e)}`));
  }
}

main().catch((e) => {
  process.stderr.write(`bench:forms failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
