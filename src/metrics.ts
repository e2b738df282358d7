/**
 * The Prometheus registry of one app: requests by route row and status, their latency, both
 * database pools' connections, the outgoing e-mail queue, the request bodies held in memory and
 * those refused, the client connections open and those refused, and prom-client's process metrics. One registry per app (not prom-client's
 * global one), so that apps built side by side in one process do not collide.
 */
import client from 'prom-client';
import type pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { BodyBudget } from './body-budget.js';
import type { ConnectionLimits } from './connection-limits.js';

export interface Metrics {
  registry: client.Registry;
  observe(method: string, route: string, status: number, seconds: number): void;
}

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

export function createMetrics(orm: MikroORM, reads: pg.Pool, bodies: BodyBudget, connections: ConnectionLimits): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by method, route-table row and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request head to the answer, by method, route-table row and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  new client.Gauge({
    name: 'db_pool_connections',
    help: 'Database connections of each pool (orm: writes, reads: the read path): total open, idle, and requests waiting for one.',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      const knexPool = (orm.em.getConnection().getKnex().client as { pool?: TarnPool }).pool;
      if (knexPool) {
        this.set({ pool: 'orm', state: 'total' }, knexPool.numUsed() + knexPool.numFree());
        this.set({ pool: 'orm', state: 'idle' }, knexPool.numFree());
        this.set({ pool: 'orm', state: 'waiting' }, knexPool.numPendingAcquires());
      }
      this.set({ pool: 'reads', state: 'total' }, reads.totalCount);
      this.set({ pool: 'reads', state: 'idle' }, reads.idleCount);
      this.set({ pool: 'reads', state: 'waiting' }, reads.waitingCount);
    },
  });
  // Waiting messages are few and under a partial index; a database that is away leaves these
  // gauges out of that scrape rather than failing it.
  const waiting = async (select: string) => (await reads.query<{ v: number }>(`select ${select} as v from email_message where status = 0`)).rows[0].v;
  new client.Gauge({
    name: 'email_queue_messages',
    help: 'Outgoing e-mail waiting to be sent, every tenant together (src/jobs/email-sender.ts).',
    registers: [registry],
    async collect() {
      this.set(await waiting('count(*)::int').catch(() => Number.NaN));
    },
  });
  new client.Gauge({
    name: 'email_queue_oldest_seconds',
    help: 'How long the oldest outgoing e-mail still waiting has waited (0: none waits).',
    registers: [registry],
    async collect() {
      this.set(await waiting('coalesce(extract(epoch from now() - min(created_at)), 0)::float8').catch(() => Number.NaN));
    },
  });
  new client.Gauge({
    name: 'request_body_memory_bytes',
    help: "Bytes of request bodies held in memory now, all requests together but the token endpoint's (a share of its own); at BODY_MEMORY_BYTES, more bodies get a 503.",
    registers: [registry],
    collect() {
      this.set(bodies.inUse);
    },
  });
  new client.Counter({
    name: 'request_body_refusals_total',
    help:
      "Request bodies refused, by reason: budget_full (503: BODY_MEMORY_BYTES held), tenant_share_full (503: the sender's tenant holds BODY_MEMORY_TENANT_BYTES), " +
      "token_share_full (503: the token endpoint's share held), too_slow (408: behind BODY_MIN_BYTES_PER_SECOND), token_too_slow (408: a token body past its 10 s).",
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      // The budget counts; the counter shows its tally.
      this.reset();
      for (const [reason, n] of bodies.refusals.entries()) this.inc({ reason }, n);
    },
  });
  new client.Gauge({
    name: 'http_connections_open',
    help: 'Client connections open now; at MAX_CONNECTIONS, a new one is closed as it comes.',
    registers: [registry],
    collect() {
      this.set(connections.open);
    },
  });
  new client.Counter({
    name: 'http_connections_refused_total',
    help: 'Connections closed as they came, by reason: server_full (MAX_CONNECTIONS open), address_full (MAX_CONNECTIONS_PER_ADDRESS open from its address).',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, n] of connections.refusals()) this.inc({ reason }, n);
    },
  });
  return {
    registry,
    observe(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}
