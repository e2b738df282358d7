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
import { whileHeld } from './rest/support.js';
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

test('usage: no command, or an unknown one, is a usage error (the usage on stderr, exit 2); --help and help print it on stdout, exit 0', async () => {
  for (const [args, message] of [
    [[], 'no command given'],
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['tenant'], "unknown command 'tenant'"],
  ] as const) {
    const r = await cli([...args]);
    expect([args, r.code, r.stdout, r.stderr]).toEqual([args, 2, '', expect.stringMatching(new RegExp(`^quire: ${message}\n\nquire: administer a quire service\n[^]*quire migrate\n`))]);
  }
  for (const args of [['--help'], ['help']]) {
    const r = await cli(args);
    expect([args, r.code, r.stderr, r.stdout]).toEqual([args, 0, '', expect.stringMatching(/^quire: administer a quire service\n[^]*quire migrate\n/)]);
  }
});

test('usage: an option without its value, and a --site that is no GUID, are usage errors (exit 2) that show no SQL', async () => {
  const noValue = await cli(['tenant', 'list', '--customer']);
  expect([noValue.code, noValue.stderr]).toEqual([2, expect.stringContaining("quire: Option '--customer <value>' argument missing")]);
  expect(noValue.stderr).toContain('quire tenant create');
  const args = ['user', 'create', '--customer', t.customerAlias, '--database', t.databaseAlias, '--userid', `u${randomUUID().slice(0, 8)}`, '--password-stdin'];
  const site = await cli([...args, '--site', 'home'], 'a-password\n');
  expect([site.code, site.stderr]).toEqual([2, expect.stringContaining("quire: --site must be a site id (a GUID: the tenant's homeSiteId, or GET sites), got 'home'")]);
  expect(site.stderr).not.toMatch(/select|uuid/i);
}, 60_000);

test('a database out of reach, or refusing the login: one line naming DATABASE_URL without its password, exit 1', async () => {
  const url = new URL(db.url);
  url.username = 'no_such_role_here';
  url.password = 'sekrit-pw';
  for (const databaseUrl of ['postgres://quire:sekrit-pw@127.0.0.1:1/quire', url.href]) {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, [path.join(ROOT, 'bin', 'quire.js'), 'tenant', 'list'], { env: { ...env, DATABASE_URL: databaseUrl } }, (err, _out, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stderr }),
      ),
    );
    const shown = new URL(databaseUrl);
    shown.password = '';
    expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(new RegExp(`^quire: cannot connect to the database at DATABASE_URL \\(${shown.href.replace(/[.?]/g, '\\$&')}\\): .+\n$`))]);
    expect(r.stderr).not.toContain('sekrit-pw');
  }
}, 60_000);

test('a DATABASE_URL naming a database that does not exist: migrate and the other commands say to create it, exit 1, and do not make it', async () => {
  const url = new URL(db.url);
  const name = `${url.pathname.slice(1)}_typo`;
  url.pathname = `/${name}`;
  for (const args of [['migrate'], ['tenant', 'list'], ['migrate']]) {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, [path.join(ROOT, 'bin', 'quire.js'), ...args], { env: { ...env, DATABASE_URL: url.href } }, (err, _out, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stderr }),
      ),
    );
    expect([args, r.code, r.stderr]).toEqual([args, 1, expect.stringContaining(`database "${name}" does not exist: create it first (createdb ${name}), or correct the name in DATABASE_URL\n`)]);
  }
}, 60_000);

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

describe('API clients', () => {
  const token = (fields: Record<string, string>) =>
    h.request('POST', '/oauth/token', { raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const tenantArgs = () => ['--customer', t.customerAlias, '--database', t.databaseAlias];

  test('client list shows each client with its user; client revoke ends its logins and refreshes at once, and again changes nothing', async () => {
    const made = await cli(['client', 'create', ...tenantArgs(), '--name', 'leaky', '--json']);
    expect(made.code).toBe(0);
    const { clientId, clientSecret } = JSON.parse(made.stdout) as { clientId: string; clientSecret: string };
    const login = { grant_type: 'password', client_id: clientId, client_secret: clientSecret, username: t.adminUserId, password: t.password };
    const [first, second] = [await token(login), await token(login)];
    expect([first.status, second.status]).toEqual([200, 200]);

    const listed = await cli(['client', 'list', ...tenantArgs(), '--json']);
    expect(listed.code).toBe(0);
    const { clients } = JSON.parse(listed.stdout) as { clients: { clientId: string; name: string; userid: string; revokedAt: string | null }[] };
    expect(clients.find((c) => c.clientId === clientId)).toMatchObject({ name: 'leaky', userid: expect.any(String), revokedAt: null });
    expect(clients.find((c) => c.clientId === t.clientId)).toMatchObject({ revokedAt: null });

    const revoked = await cli(['client', 'revoke', ...tenantArgs(), '--id', clientId.toUpperCase(), '--json']);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(revoked.stdout)).toEqual({ clientId, revokedAt: expect.any(String), refreshTokensRevoked: 2 });
    const refused = await token(login);
    expect([refused.status, refused.body.error]).toEqual([401, 'invalid_client']);
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
    expect([refresh.status, refresh.body.error]).toEqual([400, 'invalid_grant']);
    // The tenant's other client is untouched.
    await expect(h.login(t)).resolves.toEqual(expect.any(String));

    const again = await cli(['client', 'revoke', ...tenantArgs(), '--id', clientId, '--json']);
    expect(JSON.parse(again.stdout)).toEqual({ ...JSON.parse(revoked.stdout), refreshTokensRevoked: 0 });
    const after = JSON.parse((await cli(['client', 'list', ...tenantArgs(), '--json'])).stdout) as { clients: { clientId: string; revokedAt: string | null }[] };
    expect(after.clients.find((c) => c.clientId === clientId)!.revokedAt).toBe(JSON.parse(revoked.stdout).revokedAt);
  }, 60_000);

  test("a revoked client's access tokens stop working at once: reads, reads that find nothing, and writes, which change nothing", async () => {
    const made = JSON.parse((await cli(['client', 'create', ...tenantArgs(), '--json'])).stdout) as { clientId: string; clientSecret: string };
    const login = await token({ grant_type: 'password', client_id: made.clientId, client_secret: made.clientSecret, username: t.adminUserId, password: t.password });
    const leaked = login.body.access_token as string;
    const other = await h.login(t);
    const name = `s${randomUUID().slice(0, 8)}`;
    const calls = {
      read: () => h.request('GET', `${t.root}/users/me`, { token: leaked }),
      none: () => h.request('GET', `${t.root}/sites?q=name eq '${name}'`, { token: leaked }),
      write: () => h.request('POST', `${t.root}/sites`, { token: leaked, body: { name } }),
    };
    expect([(await calls.read()).status, (await calls.none()).status]).toEqual([200, 200]);

    expect((await cli(['client', 'revoke', ...tenantArgs(), '--id', made.clientId])).code).toBe(0);
    for (const call of Object.values(calls)) {
      const r = await call();
      expect([r.status, r.body.meta.errors[0].message]).toEqual([401, expect.stringContaining('the API client it logged in through was revoked')]);
    }
    const sites = await h.request('GET', `${t.root}/sites?q=name eq '${name}'`, { token: other });
    expect([sites.status, sites.body.data]).toEqual([200, []]);
    expect((await h.request('GET', `${t.root}/users/me`, { token: other })).status).toBe(200);
  }, 60_000);

  test('a refresh token of a revoked client is refused even where the token itself was not revoked (made in the revocation\'s moment)', async () => {
    const made = JSON.parse((await cli(['client', 'create', ...tenantArgs(), '--json'])).stdout) as { clientId: string; clientSecret: string };
    const first = await token({ grant_type: 'password', client_id: made.clientId, client_secret: made.clientSecret, username: t.adminUserId, password: t.password });
    expect(first.status).toBe(200);
    await h.services.reads.query('update api_client set revoked_at = now() where tenant_id = $1 and id = $2', [t.tenantId, made.clientId]);
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
    expect([refresh.status, refresh.body.error]).toEqual([400, 'invalid_grant']);
  }, 60_000);

  test('a refresh while a revocation is in progress waits for it and is refused', async () => {
    const made = JSON.parse((await cli(['client', 'create', ...tenantArgs(), '--json'])).stdout) as { clientId: string; clientSecret: string };
    const first = await token({ grant_type: 'password', client_id: made.clientId, client_secret: made.clientSecret, username: t.adminUserId, password: t.password });
    expect(first.status).toBe(200);
    const revocation = { text: 'update api_client set revoked_at = now() where tenant_id = $1 and id = $2', values: [t.tenantId, made.clientId] };
    const refresh = await whileHeld(h, revocation, () => token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token }));
    expect([refresh.status, refresh.body.error]).toEqual([400, 'invalid_grant']);
  }, 60_000);

  test('client create --user takes the userid in any case, as user password does; an unknown one is named', async () => {
    const made = await cli(['client', 'create', ...tenantArgs(), '--user', t.adminUserId.toUpperCase(), '--json']);
    expect(made).toMatchObject({ code: 0, stderr: '' });
    const { clientId, clientSecret } = JSON.parse(made.stdout) as { clientId: string; clientSecret: string };
    const login = await token({ grant_type: 'password', client_id: clientId, client_secret: clientSecret, username: t.adminUserId, password: t.password });
    expect(login.status).toBe(200);
    const unknown = await cli(['client', 'create', ...tenantArgs(), '--user', 'no-such-user']);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining("quire: no user 'no-such-user'")]);
  }, 60_000);

  test('usage: --id is required and must be a GUID; an id of no client of the tenant is an error naming it (exit 1)', async () => {
    const missing = await cli(['client', 'revoke', ...tenantArgs()]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('missing --id')]);
    const bad = await cli(['client', 'revoke', ...tenantArgs(), '--id', 'leaky']);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining("--id must be a client id (a GUID, as client list shows), got 'leaky'")]);
    const unknown = await cli(['client', 'revoke', ...tenantArgs(), '--id', '00000000-0000-4000-8000-000000000001']);
    expect([unknown.code, unknown.stderr]).toEqual([1, "quire: no API client '00000000-0000-4000-8000-000000000001' in this tenant (quire client list shows them)\n"]);
  }, 60_000);
});

test('tenant list shows every tenant by its aliases, with its id, its users and when it was made', async () => {
  const alias = `list${randomUUID().slice(0, 8)}`;
  const created = JSON.parse((await cli(['tenant', 'create', '--customer', alias, '--database', 'main', '--admin', 'root', '--password-stdin', '--json'], 'pw-list\n')).stdout);
  const r = await cli(['tenant', 'list', '--json']);
  expect(r).toMatchObject({ code: 0, stderr: '' });
  const { tenants } = JSON.parse(r.stdout) as { tenants: { customerAlias: string; databaseAlias: string; tenantId: string; users: number; createdAt: string }[] };
  expect(tenants.find((x) => x.customerAlias === alias)).toEqual({ customerAlias: alias, databaseAlias: 'main', tenantId: expect.any(String), users: 1, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
  expect(tenants.find((x) => x.customerAlias === t.customerAlias && x.databaseAlias === t.databaseAlias)).toMatchObject({ tenantId: t.tenantId });
  expect(tenants.find((x) => x.customerAlias === alias)!.tenantId).not.toBe(t.tenantId);
  expect(created.customerAlias).toBe(alias);
  const text = await cli(['tenant', 'list']);
  expect(text.stdout).toContain(`${alias}/main  `);
}, 60_000);

test('user password sets a new password: the old one and the sessions it opened end, the new one logs in; an unknown userid is an error', async () => {
  const userid = `u${randomUUID().slice(0, 8)}`;
  const args = ['--customer', t.customerAlias, '--database', t.databaseAlias, '--userid', userid];
  expect((await cli(['user', 'create', ...args, '--password-stdin', '--json'], 'old-pw\n')).code).toBe(0);
  const login = (password: string) =>
    h.request('POST', '/oauth/token', {
      raw: new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username: userid, password }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  const before = await login('old-pw');
  expect(before.status).toBe(200);

  const r = await cli(['user', 'password', ...args, '--password-stdin', '--json'], 'new-pw\n');
  expect(r).toMatchObject({ code: 0, stderr: '' });
  expect(JSON.parse(r.stdout)).toEqual({ id: expect.any(String), userid });
  expect((await login('old-pw')).status).toBe(400);
  expect((await login('new-pw')).status).toBe(200);
  expect((await h.request('GET', `${t.root}/users/me`, { token: before.body.access_token })).status).toBe(401);
  const refresh = await h.request('POST', '/oauth/token', {
    raw: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: before.body.refresh_token }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect([refresh.status, refresh.body.error]).toEqual([400, 'invalid_grant']);

  const unknown = await cli(['user', 'password', '--customer', t.customerAlias, '--database', t.databaseAlias, '--userid', 'nobody-here', '--password-stdin'], 'x-pw\n');
  expect([unknown.code, unknown.stderr]).toEqual([1, "quire: no user 'nobody-here' in this tenant\n"]);
}, 60_000);
