/**
 * `npm run faults`: writes under load while the database freezes, restarts, and the server is
 * told to stop; then every acknowledged write is looked for. It replays issue 9's operator checks:
 * 0 acknowledged writes lost, 0 hangs, no answer outside the envelope, and only 503s (never
 * another 5xx) while the database is away. Never part of `npm test`.
 *
 * Its own embedded PostgreSQL and one server process (dist/, built first as `npm start` builds
 * it). FAULTS_SECONDS (default 60) of FAULTS_CLIENTS (200) clients each creating groups one after
 * another; at 20% of the run the database is frozen (SIGSTOP) for 5 s, at 45% it is stopped and
 * started again, at 85% the server gets SIGTERM while the clients go on.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startPrivatePostgres } from '../test/private-postgres.js';
import { startServer, stop, type Started } from '../test/server-process.js';

const SECONDS = Number(process.env.FAULTS_SECONDS ?? 60);
const CLIENTS = Number(process.env.FAULTS_CLIENTS ?? 200);
const GRACE_MS = 10_000;
/** A request not answered within this is a hang. */
const HANG_MS = 30_000;

const log = (s: string) => process.stderr.write(`${new Date().toISOString()} ${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Tally {
  statuses: Map<string, number>;
  acknowledged: string[];
  hangs: number;
  outsideEnvelope: number;
  refused: number;
}

async function client(port: number, root: string, token: string, until: number, t: Tally) {
  while (Date.now() < until) {
    const name = `g-${randomUUID()}`;
    let res: Response;
    try {
      res = await fetch(`http://127.0.0.1:${port}${root}/groups`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, description: 'written under faults' }),
        signal: AbortSignal.timeout(HANG_MS),
      });
    } catch (e) {
      if ((e as Error).name === 'TimeoutError') t.hangs++;
      else t.refused++; // the server has stopped listening (after SIGTERM)
      await sleep(50);
      continue;
    }
    const text = await res.text();
    let body: { meta?: { status?: number }; data?: { name?: string } } | undefined;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (body?.meta?.status !== res.status) t.outsideEnvelope++;
    const key = `${res.status}`;
    t.statuses.set(key, (t.statuses.get(key) ?? 0) + 1);
    if (res.status === 200 && body?.data?.name === name) t.acknowledged.push(name);
    if (res.status === 503) await sleep(Number(res.headers.get('retry-after') ?? 1) * 100);
  }
}

async function main() {
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: ['ignore', process.stderr, process.stderr] });
  const db = await startPrivatePostgres('faults');
  // The server's own DATA_DIR (its key-encryption key), not the checkout's.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-faults-data-'));
  const url = db.url;
  let server: Started | undefined;
  try {
    server = await startServer({ DATABASE_URL: url, LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: String(GRACE_MS), DATA_DIR: dataDir });
    const { createTenant } = await import('../src/domain/tenants.js');
    const { initOrm } = await import('../src/db/orm.js');
    const orm = await initOrm(url, 1);
    const tenant = await createTenant(orm.em, { customer: 'faults', database: 'db', admin: 'admin', password: 'Faults-1' });
    await orm.close(true);
    const res = await fetch(`http://127.0.0.1:${server.port}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: tenant.clientId, client_secret: tenant.clientSecret, username: 'admin', password: 'Faults-1' }),
    });
    const token = ((await res.json()) as { access_token: string }).access_token;
    const root = `/api/v1/${tenant.customerAlias}/${tenant.databaseAlias}`;

    const t: Tally = { statuses: new Map(), acknowledged: [], hangs: 0, outsideEnvelope: 0, refused: 0 };
    const start = Date.now();
    const until = start + SECONDS * 1000;
    const at = (share: number) => sleep(Math.max(0, start + SECONDS * 1000 * share - Date.now()));
    log(`${CLIENTS} clients for ${SECONDS} s`);
    const load = Promise.all(Array.from({ length: CLIENTS }, () => client(server!.port, root, token, until, t)));

    await at(0.2);
    log('database frozen (SIGSTOP) for 5 s');
    db.freeze();
    await sleep(5000);
    db.thaw();
    log('database thawed');

    await at(0.45);
    log('database stopped');
    await db.server.stop();
    await sleep(2000);
    await db.server.start();
    log('database started again');

    await at(0.85);
    log('server sent SIGTERM');
    const sent = Date.now();
    const exit = await stop(server, 'SIGTERM');
    const exitMs = Date.now() - sent;
    await load;

    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query<{ name: string }>('select name from user_group where tenant_id = $1', [tenant.tenantId]);
    await check.end();
    const stored = new Set(rows.map((r) => r.name));
    const lost = t.acknowledged.filter((n) => !stored.has(n)).length;
    const other5xx = [...t.statuses].filter(([s]) => s.startsWith('5') && s !== '503').reduce((n, [, c]) => n + c, 0);

    const report = [
      `| Clients | Seconds | Answers by status | Acknowledged writes | Lost | Hangs (> ${HANG_MS / 1000} s) | Outside the envelope | 5xx other than 503 | Refused after SIGTERM | Exit after SIGTERM |`,
      '|---:|---:|---|---:|---:|---:|---:|---:|---:|---|',
      `| ${CLIENTS} | ${SECONDS} | ${[...t.statuses].sort().map(([s, c]) => `${s}: ${c}`).join(', ')} | ${t.acknowledged.length} | ${lost} | ${t.hangs} | ${t.outsideEnvelope} | ${other5xx} | ${t.refused} | code ${exit} in ${exitMs} ms (grace ${GRACE_MS} ms) |`,
    ].join('\n');
    process.stdout.write(`${report}\n`);
    const ok = lost === 0 && t.hangs === 0 && t.outsideEnvelope === 0 && other5xx === 0 && exit !== 'still running' && exitMs <= GRACE_MS + 2000;
    process.exitCode = ok ? 0 : 1;
  } finally {
    if (server && server.child.exitCode === null) await stop(server, 'SIGKILL');
    await db.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
