/**
 * The two entry points as a person runs them: the server on the embedded database (first-run
 * credentials, persistence across restarts, graceful shutdown) and the `quire` CLI.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = process.cwd();
const run = promisify(execFile);

interface Started {
  child: ChildProcess;
  port: number;
  stdout: () => string;
}

/** The compiled server as `npm start` runs it after its build (global-setup built dist/), or `npm start` itself. */
function startServer(env: Record<string, string>, viaNpm = false): Promise<Started> {
  const [command, args] = viaNpm ? ['npm', ['start']] : [process.execPath, ['dist/src/server.js']];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', PORT: '0', HOST: '127.0.0.1', ...env },
    // Its own process group, so that a server that ignores its signal can still be killed whole.
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
    const poll = setInterval(() => {
      const m = /"port":(\d+),"graphql"/.exec(out);
      // Credentials (if any) are printed after "listening": wait for the line or a short settle.
      if (m && (out.includes('client secret:') || out.includes('"msg":"listening"'))) {
        clearInterval(poll);
        clearTimeout(timer);
        setTimeout(() => resolve({ child, port: Number(m[1]), stdout: () => out }), 1500);
      }
    }, 100);
    child.once('exit', (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
}

/**
 * Sends `signal` to the started process alone and returns its exit code, or 'still running' after
 * 20 s. Either way nothing of its process group outlives the call (a server orphaned by a wrapper
 * that exited would otherwise keep its port and database).
 */
function stop(s: Started, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null | 'still running'> {
  const sweep = () => {
    try {
      process.kill(-s.child.pid!, 'SIGKILL');
    } catch {
      // The group is empty: everything exited.
    }
  };
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      sweep();
      resolve('still running');
    }, 20_000);
    s.child.removeAllListeners('exit');
    s.child.once('exit', (code) => {
      clearTimeout(timer);
      // Give a process the wrapper left behind a moment to show itself, then sweep.
      setTimeout(() => {
        sweep();
        resolve(code);
      }, 500);
    });
    s.child.kill(signal);
  });
}

const field = (out: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(out)?.[1] ?? '';

async function login(port: number, creds: Record<string, string>) {
  const res = await fetch(`http://127.0.0.1:${port}/OAuth/Token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', ...creds }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('npm start on the embedded database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-start-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('prints demo credentials once, persists data, shuts down gracefully', async () => {
    const first = await startServer({ DATA_DIR: dataDir });
    const out = first.stdout();
    const creds = {
      client_id: field(out, 'client id'),
      client_secret: field(out, 'client secret'),
      username: field(out, 'admin user'),
      password: field(out, 'admin password'),
    };
    expect(out).toContain('/api/v1/demo/main');
    expect(creds.username).toBe('admin');
    const ok = await login(first.port, creds);
    expect(ok.status).toBe(200);
    const health = await fetch(`http://127.0.0.1:${first.port}/readyz`);
    expect(health.status).toBe(200);
    // Logs are JSON lines and never carry the secret.
    const logLines = out.split('\n').filter((l) => l.startsWith('{'));
    expect(logLines.length).toBeGreaterThan(0);
    for (const l of logLines) expect(l).not.toContain(creds.client_secret);

    // The CLI joins the embedded database the server is running on: its tenant logs in at once.
    const cliEnv = { ...process.env, NODE_OPTIONS: '', DATA_DIR: dataDir, DATABASE_URL: '' };
    const made = await run(process.execPath, [path.join(ROOT, 'bin', 'quire.js'), 'tenant', 'create', '--customer', 'live', '--database', 'db', '--admin', 'ops', '--password', 'pw-live', '--json'], { env: cliEnv });
    const live = JSON.parse(made.stdout);
    expect((await login(first.port, { client_id: live.clientId, client_secret: live.clientSecret, username: 'ops', password: 'pw-live' })).status).toBe(200);
    expect(await stop(first)).toBe(0);

    // With the server stopped, the CLI starts (and stops) the embedded database by itself.
    const later = await run(process.execPath, [path.join(ROOT, 'bin', 'quire.js'), 'user', 'create', '--customer', 'live', '--database', 'db', '--userid', 'second', '--password', 'pw-2', '--json'], { env: cliEnv });
    expect(JSON.parse(later.stdout)).toMatchObject({ userid: 'second' });

    const second = await startServer({ DATA_DIR: dataDir });
    // A request in flight when SIGTERM arrives is still answered before the process exits.
    const body = 'grant_type=password&client_id=x&client_secret=y&username=u&password=p';
    const sock = net.connect(second.port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write(`POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    await new Promise((r) => setTimeout(r, 300));
    let reply = '';
    sock.on('data', (d) => (reply += d));
    const exited = new Promise<number | null>((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    sock.write(body.slice(10));
    await new Promise((r) => sock.once('close', r));
    expect(reply).toMatch(/^HTTP\/1\.1 401/);
    expect(reply).toContain('invalid_client');
    expect(await exited).toBe(0);

    const third = await startServer({ DATA_DIR: dataDir });
    expect(second.stdout()).not.toContain('client secret:');
    expect((await login(third.port, creds)).status).toBe(200);
    expect((await login(third.port, { client_id: live.clientId, client_secret: live.clientSecret, username: 'second', password: 'pw-2' })).status).toBe(200);
    expect(await stop(third, 'SIGINT')).toBe(0);

    // Through npm itself, SIGTERM to npm alone (as a container runtime sends it) reaches the
    // server: it shuts down gracefully and the embedded database stops with it.
    const viaNpm = await startServer({ DATA_DIR: dataDir }, true);
    expect((await login(viaNpm.port, creds)).status).toBe(200);
    expect(await stop(viaNpm, 'SIGTERM')).toBe(0);
    expect(viaNpm.stdout()).toContain('"msg":"stopped"');
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }, 120_000);
});

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
    expect(e.stderr).toMatch(/missing --database, --admin, --password/);
  });
});
