/**
 * `npx tsx bench/email-memory.ts`: how much memory one `POST emails` with a large attachment costs
 * the real app (bench/serve-app.ts): the app child's peak RSS (VmHWM in /proc/<pid>/status, Linux
 * only) after a small warm-up e-mail, then after one multipart e-mail of BENCH_EMAIL_MIB MiB (20
 * unless set). SMTP is not configured, so the message is only queued. See bench/README.md.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { loadKeyRing } from '../src/auth/keys.js';
import { createTenant } from '../src/domain/tenants.js';
import { buildChildren, startChild, type Child } from './children.js';
import { startBenchDb } from './db.js';
import { login } from './login.js';

const MIB = Number(process.env.BENCH_EMAIL_MIB || 20);

const log = (s: string) => process.stderr.write(`[bench:email-memory] ${s}\n`);

/** A line of /proc/<pid>/status, in MiB. */
function statusMib(pid: number, key: 'VmHWM' | 'VmRSS'): number {
  const kb = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1];
  return Number(kb) / 1024;
}

async function sendEmail(url: string, token: string, attachment: Buffer): Promise<void> {
  const form = new FormData();
  form.append('recipients', 'ada@example.com');
  form.append('subject', `memory ${attachment.length}`);
  form.append('fileUpload', new Blob([new Uint8Array(attachment)], { type: 'application/octet-stream' }), 'big.bin');
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as { meta: { status: number } };
  if (res.status !== 201 || body.meta.status !== 201) throw new Error(`POST emails: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
}

async function main() {
  const stops: (() => Promise<void>)[] = [];
  try {
    log('compiling the server (tsc -p tsconfig.bench.json)');
    buildChildren();
    const benchDb = await startBenchDb(log);
    stops.push(() => benchDb.close());
    const password = `bench-${randomBytes(8).toString('hex')}`;
    const t = await createTenant(benchDb.db.orm.em, { customer: 'bench', database: 'main', admin: 'admin', password });
    const kek = randomBytes(32);
    await loadKeyRing(benchDb.db.orm.em.fork(), kek);
    const app: Child = await startChild('app', 'serve-app.ts', {
      DATABASE_URL: benchDb.url, NODE_ENV: 'production', LOG_LEVEL: 'warn', KEY_ENCRYPTION_KEY: kek.toString('base64'),
    });
    stops.push(() => app.stop());
    const token = await login(app, { ...t, password });
    const url = `http://127.0.0.1:${app.port}/api/v1/bench/main/emails`;
    await sendEmail(url, token, randomBytes(1024));
    const before = statusMib(app.pid, 'VmHWM');
    await sendEmail(url, token, randomBytes(MIB * 1024 * 1024));
    const after = statusMib(app.pid, 'VmHWM');
    const rows = [
      '| App child | MiB |',
      '|---|---:|',
      `| peak RSS after a 1 KiB e-mail | ${before.toFixed(0)} |`,
      `| peak RSS after a ${MIB} MiB e-mail | ${after.toFixed(0)} |`,
      `| the ${MIB} MiB e-mail's growth | ${(after - before).toFixed(0)} |`,
    ];
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((e: unknown) => log(`clean-up failed: ${String(e)}`));
  }
}

main().catch((e) => {
  process.stderr.write(`bench:email-memory failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
