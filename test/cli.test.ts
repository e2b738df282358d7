/**
 * The `quire` CLI takes passwords from standard input (not only the command line), and manages
 * signing keys and the purge. On a database of its own: other files add and rotate signing keys
 * on the shared one, which would come between a rotation here and the list that shows it.
 */
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Harness, type TestTenant } from './harness.js';
import { ownDatabase, type OwnDatabase } from './own-database.js';
import { ROOT } from './server-process.js';

let db: OwnDatabase;
let env: NodeJS.ProcessEnv;

/** Runs the CLI with `stdin` as its standard input (a pipe, not a terminal). */
function cli(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [path.join(ROOT, 'bin', 'quire.js'), ...args], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
    child.stdin!.end(stdin);
  });
}

let h: Harness;
let t: TestTenant;
beforeAll(async () => {
  db = await ownDatabase('cli');
  env = { ...process.env, NODE_OPTIONS: '', DATABASE_URL: db.url };
  h = await Harness.start({ databaseUrl: db.url });
  t = await h.tenant();
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await db?.drop();
});

describe('passwords', () => {
  test('user create --password-stdin reads the password from standard input; it works for a login', async () => {
    const password = `pw ${randomUUID()} with spaces`;
    const userid = `u${randomUUID().slice(0, 8)}`;
    const r = await cli(['user', 'create', '--customer', t.customerAlias, '--database', t.databaseAlias, '--userid', userid, '--password-stdin', '--json'], `${password}\n`);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toMatchObject({ userid });
    await expect(h.login(t, userid, password)).resolves.toEqual(expect.any(String));
  }, 60_000);

  test('tenant create --password-stdin too', async () => {
    const alias = `cli${randomUUID().slice(0, 8)}`;
    const r = await cli(['tenant', 'create', '--customer', alias, '--database', 'main', '--admin', 'root', '--password-stdin', '--json'], 'tenant-pw\n');
    expect(r.code).toBe(0);
    const created = JSON.parse(r.stdout);
    const login = await h.request('POST', '/oauth/token', {
      raw: new URLSearchParams({ grant_type: 'password', client_id: created.clientId, client_secret: created.clientSecret, username: 'root', password: 'tenant-pw' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(login.status).toBe(200);
  }, 60_000);

  test('at a terminal without --password or --password-stdin, it asks, and echoes nothing', async () => {
    const password = `typed-${randomUUID()}`;
    const userid = `u${randomUUID().slice(0, 8)}`;
    const command = [process.execPath, path.join(ROOT, 'bin', 'quire.js'), 'user', 'create', '--customer', t.customerAlias, '--database', t.databaseAlias, '--userid', userid, '--json'];
    // util-linux `script` runs the command on a pseudo-terminal, as a person at a terminal would.
    const child = spawn('script', ['-qec', command.map((a) => `'${a}'`).join(' '), '/dev/null'], { env });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    await new Promise<void>((resolve) => {
      const asked = () => {
        if (!out.includes(`Password for ${userid}: `)) return;
        child.stdout.off('data', asked);
        child.stdin.write(`${password}\r`);
        resolve();
      };
      child.stdout.on('data', asked);
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out).toContain(`"userid":"${userid}"`);
    expect(out).not.toContain(password);
    await expect(h.login(t, userid, password)).resolves.toEqual(expect.any(String));
  }, 60_000);

  test('no password, empty standard input, or two sources are usage errors (exit 2), not a hang', async () => {
    const base = ['user', 'create', '--customer', t.customerAlias, '--database', t.databaseAlias, '--userid', `u${randomUUID().slice(0, 8)}`];
    const none = await cli(base);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/missing --password-stdin/);
    const empty = await cli([...base, '--password-stdin'], '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/held no password/);
    const both = await cli([...base, '--password-stdin', '--password', 'x'], 'y\n');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/not both/);
  }, 60_000);
});

describe('keys and purge', () => {
  test('keys rotate makes a new signing key; keys list shows it signing and the earlier ones retired', async () => {
    const rotated = await cli(['keys', 'rotate', '--json']);
    expect(rotated.code).toBe(0);
    const { kid } = JSON.parse(rotated.stdout);
    const listed = await cli(['keys', 'list', '--json']);
    expect(listed.code).toBe(0);
    const { keys } = JSON.parse(listed.stdout) as { keys: { kid: string; state: string; dropAfter: string | null }[] };
    expect(keys[0]).toMatchObject({ kid, state: 'signing', dropAfter: null });
    expect(keys.filter((k) => k.state === 'signing')).toHaveLength(1);
    for (const k of keys.slice(1)) expect(k.state).toBe('retired');
    expect(Date.parse(keys[1].dropAfter!)).toBeGreaterThan(Date.now());
    // Tokens keep working: the harness signs with its earlier key, the new one verifies elsewhere.
    await expect(h.login(t)).resolves.toEqual(expect.any(String));
  }, 60_000);

  test('purge reports what it deleted', async () => {
    const r = await cli(['purge', '--json']);
    expect(r.code).toBe(0);
    expect(Object.keys(JSON.parse(r.stdout)).sort()).toEqual(['abandonedUploads', 'deletedDocuments', 'documentZips', 'emails', 'files', 'persistedData', 'refreshTokens', 'signingKeys', 'throttles', 'webTokens']);
  }, 60_000);
});
