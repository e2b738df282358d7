/** GET /metrics: Prometheus text, counted by route-table row and status, pool gauges, and the optional token. */
import { Harness, type TestTenant } from './harness.js';

let h: Harness;
let t: TestTenant;
let token: string;

beforeAll(async () => ({ h, t, token } = await Harness.withTenant()));
afterAll(() => h.stop());

/** The value of one sample (0 when absent), found by its exact name and labels. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const SITE_BY_ID = 'route="/api/v1/:customeralias/:databasealias/sites/:id"';

test('requests are counted and timed under their route row, never their raw path', async () => {
  const before = (await h.request('GET', '/metrics')).text;
  await h.request('GET', `${t.root}/sites/${t.homeSiteId}`, { token });
  await h.request('GET', `${t.root}/sites/${t.homeSiteId}`, { token });
  await h.request('GET', `${t.root}/sites/00000000-0000-7000-8000-000000000001`, { token });
  await h.request('GET', `${t.root}/no/such/route`, { token });
  const r = await h.request('GET', '/metrics');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const ok = `http_requests_total{method="GET",${SITE_BY_ID},status="200"}`;
  const missing = `http_requests_total{method="GET",${SITE_BY_ID},status="404"}`;
  const unmatched = 'http_requests_total{method="GET",route="unmatched",status="404"}';
  expect(sample(r.text, ok) - sample(before, ok)).toBe(2);
  expect(sample(r.text, missing) - sample(before, missing)).toBe(1);
  expect(sample(r.text, unmatched) - sample(before, unmatched)).toBe(1);
  const timed = `http_request_duration_seconds_count{method="GET",${SITE_BY_ID},status="200"}`;
  expect(sample(r.text, timed) - sample(before, timed)).toBe(2);
  expect(r.text).not.toContain(t.homeSiteId);
  expect(r.text).not.toContain(t.customerAlias);
});

test('/graphql is one series; both database pools and the process are reported', async () => {
  const series = 'http_requests_total{method="POST",route="/graphql",status="200"}';
  const before = sample((await h.request('GET', '/metrics')).text, series);
  await h.request('POST', '/graphql', { token, body: { query: '{ sites { totalRecords } }' } });
  const text = (await h.request('GET', '/metrics')).text;
  expect(sample(text, series) - before).toBe(1);
  for (const pool of ['orm', 'reads']) {
    expect(sample(text, `db_pool_connections{pool="${pool}",state="total"}`)).toBeGreaterThan(0);
    expect(text).toContain(`db_pool_connections{pool="${pool}",state="idle"}`);
    expect(text).toContain(`db_pool_connections{pool="${pool}",state="waiting"}`);
  }
  expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
});

test('with METRICS_TOKEN set, /metrics asks for it as a bearer token', async () => {
  const guarded = await Harness.start({ metricsToken: 'scrape-secret' });
  try {
    const none = await guarded.request('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.body.meta.errors[0].code).toBe('UNAUTHORIZED');
    expect(none.text).not.toContain('scrape-secret');
    expect((await guarded.request('GET', '/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const ok = await guarded.request('GET', '/metrics', { headers: { authorization: 'Bearer scrape-secret' } });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('http_requests_total');
  } finally {
    await guarded.stop();
  }
});

test('the outgoing e-mail queue: how many messages wait and how long the oldest has waited', async () => {
  // Queued an hour ago and not due for a day, so no test's e-mail batch sends it meanwhile.
  await h.services.reads.query(
    `insert into email_message (tenant_id, id, recipients, subject, created_at, next_attempt_at) values ($1, gen_random_uuid(), 'ada@example.com', 'metrics', now() - interval '1 hour', now() + interval '1 day')`,
    [t.tenantId],
  );
  const text = (await h.request('GET', '/metrics')).text;
  expect(sample(text, 'email_queue_messages')).toBeGreaterThanOrEqual(1);
  expect(sample(text, 'email_queue_oldest_seconds')).toBeGreaterThanOrEqual(3600);
});
