/**
 * A start that fails for a cause the operator can correct says so in one line naming the setting,
 * with no stack and no password, and exits non-zero: a port taken, a database out of reach or
 * refusing the login, a key-encryption key that is not the one the signing keys were sealed with.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ownDatabase } from './own-database.js';
import { ROOT, startServer, stop } from './server-process.js';

/** Runs the compiled server until it exits (within 30 s) and answers its exit code and output. */
function runToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/src/server.js'], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', HOST: '127.0.0.1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after 30 s:\n${stdout}${stderr}`));
    }, 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

function expectOneLine(out: { stderr: string; stdout: string }) {
  expect(out.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(out.stderr + out.stdout).not.toMatch(/\n\s+at /);
}

test('a port already taken: one line naming it and PORT, exit 1', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  try {
    const out = await runToExit({ PORT: String(port), DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, FILES_DIR: process.env.QUIRE_TEST_FILES_DIR! });
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(`Failed to start: port ${port} on 127.0.0.1 is already in use: set PORT (or HOST) to a free one\n`);
    expectOneLine(out);
  } finally {
    taken.close();
  }
});

test('a HEALTH_PORT already taken: one line naming it and HEALTH_PORT, exit 1', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  try {
    const out = await runToExit({ PORT: '0', HEALTH_PORT: String(port), DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, FILES_DIR: process.env.QUIRE_TEST_FILES_DIR! });
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(`Failed to start: port ${port} on 127.0.0.1 is already in use: set HEALTH_PORT (or HOST) to a free one\n`);
    expectOneLine(out);
  } finally {
    taken.close();
  }
});

test('a HOST that resolves to nothing: one line naming it and HOST, exit 1', async () => {
  const out = await runToExit({ PORT: '0', HOST: 'no-such-host.invalid', DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, FILES_DIR: process.env.QUIRE_TEST_FILES_DIR! });
  expect(out.code).toBe(1);
  expect(out.stderr).toMatch(/^Failed to start: HOST no-such-host\.invalid is not a name of this machine that resolves \(E[A-Z_]+\): set HOST to one of its addresses\n$/);
  expectOneLine(out);
});

test('a DATA_DIR that cannot hold the key-encryption key (a file), or a key file that holds no key: one line naming the setting, exit 2', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-datadir-'));
  try {
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'not a directory');
    const env = { PORT: '0', DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, FILES_DIR: process.env.QUIRE_TEST_FILES_DIR! };
    const notDir = await runToExit({ ...env, DATA_DIR: file });
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toMatch(new RegExp(`^Configuration error: DATA_DIR \\(${file}\\) cannot hold the key-encryption key key-encryption\\.key: ENOTDIR.*Set DATA_DIR to a directory this process may write, or set KEY_ENCRYPTION_KEY\n$`));
    expectOneLine(notDir);

    fs.writeFileSync(path.join(dir, 'key-encryption.key'), 'short\n');
    const badKey = await runToExit({ ...env, DATA_DIR: dir });
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toBe(`Configuration error: ${path.join(dir, 'key-encryption.key')} does not hold a 32-byte base64 key: restore it, or set KEY_ENCRYPTION_KEY\n`);
    expectOneLine(badKey);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 70_000); // two starts, each given up to 30 s

test('a database that cannot be reached, or refuses the login: one line with DATABASE_URL shown without its password, exit 1', async () => {
  // A password in the query string (libpq's parameters) is left out too.
  const unreachable = await runToExit({ PORT: '0', DATABASE_URL: 'postgres://quire:sekrit-pw@127.0.0.1:1/quire?password=sekrit-pw2&sslmode=disable' });
  expect(unreachable.code).toBe(1);
  expect(unreachable.stderr).toBe(
    'Failed to start: cannot connect to the database at DATABASE_URL (postgres://quire@127.0.0.1:1/quire?sslmode=disable): connect ECONNREFUSED 127.0.0.1:1\n',
  );
  expectOneLine(unreachable);

  const url = new URL(process.env.QUIRE_TEST_DATABASE_URL!);
  url.username = 'no_such_role_here';
  url.password = 'sekrit-pw';
  const refused = await runToExit({ PORT: '0', DATABASE_URL: url.href });
  expect(refused.code).toBe(1);
  url.password = '';
  expect(refused.stderr).toContain(`Failed to start: cannot connect to the database at DATABASE_URL (${url.href}): `);
  expect(refused.stderr).toContain('no_such_role_here');
  expect(refused.stderr + refused.stdout).not.toContain('sekrit-pw');
  expectOneLine(refused);
}, 70_000); // two starts, each given up to 30 s

test('a DATABASE_URL naming a database that does not exist: one line naming it and saying to create it, exit 1; it is not made', async () => {
  const url = new URL(process.env.QUIRE_TEST_DATABASE_URL!);
  const name = `quire_typo_${process.pid}_${Date.now()}`;
  url.pathname = `/${name}`;
  const out = await runToExit({ PORT: '0', DATABASE_URL: url.href, FILES_DIR: process.env.QUIRE_TEST_FILES_DIR! });
  expect(out.code).toBe(1);
  // Shown without its password (the embedded test database's URL has one).
  const shown = new URL(url);
  shown.password = '';
  expect(out.stderr).toBe(
    `Failed to start: cannot connect to the database at DATABASE_URL (${shown.href}): database "${name}" does not exist: create it first (createdb ${name}), or correct the name in DATABASE_URL\n`,
  );
  expectOneLine(out);
  // The same again: had the first start made it, this one would start on it.
  expect((await runToExit({ PORT: '0', DATABASE_URL: url.href, FILES_DIR: process.env.QUIRE_TEST_FILES_DIR! })).code).toBe(1);
});

test('a key-encryption key other than the one that sealed the signing keys: a configuration error, exit 2', async () => {
  const db = await ownDatabase('start_kek');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-kek-'));
  try {
    // The first start makes the signing keys, sealed with DATA_DIR's new key file.
    const first = await startServer({ DATABASE_URL: db.url, DATA_DIR: dataDir });
    expect(await stop(first)).toBe(0);
    const out = await runToExit({ PORT: '0', DATABASE_URL: db.url, DATA_DIR: dataDir, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(
      /^Configuration error: signing key [0-9a-f-]{36} cannot be unsealed: KEY_ENCRYPTION_KEY \(or DATA_DIR's key-encryption\.key\) is not the key it was sealed with\n$/,
    );
    expectOneLine(out);
  } finally {
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 70_000); // two starts, each given up to 30 s
