/**
 * The start-up check of the database's text handling (src/db/text-handling-check.ts): a database
 * whose lower() folds ASCII letters only is still used, with one warning saying what to do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ownDatabase, type OwnDatabase } from './own-database.js';
import { startServer, stop } from './server-process.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-text-'));
const made: OwnDatabase[] = [];

afterAll(async () => {
  for (const db of made) await db.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The server's warnings about its database's text handling, and all it printed, from a start on
 * `url` that serves. A database of its own gets a DATA_DIR of its own (its signing keys are sealed
 * with that directory's key); the run's shared one keeps the key it was sealed with.
 */
async function startOn(url: string, own = true) {
  const s = await startServer({ DATABASE_URL: url, ...(own ? { DATA_DIR: dataDir } : {}) });
  try {
    expect((await fetch(`http://127.0.0.1:${s.port}/healthz`)).status).toBe(200);
    const warnings = s
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; encoding?: string })
      .filter((e) => e.level === 40 && e.msg.includes('lower()'));
    return { warnings, output: s.stdout() };
  } finally {
    expect(await stop(s)).toBe(0);
  }
}

/** A database of its own in `encoding` with the C locale, dropped after the file. */
async function cLocaleDatabase(name: string, encoding: string): Promise<OwnDatabase> {
  const db = await ownDatabase(name, { migrate: false, cLocale: encoding });
  made.push(db);
  return db;
}

test('a SQL_ASCII database, whose lower() folds ASCII letters only, is used with one warning that says what to do', async () => {
  const db = await cLocaleDatabase('ascii', 'SQL_ASCII');
  const { warnings, output } = await startOn(db.url);
  expect(warnings).toHaveLength(1);
  expect(warnings[0].encoding).toBe('SQL_ASCII');
  for (const part of ['SQL_ASCII, not UTF8', 'ASCII letters only', 'or in Unicode normal form', 'createdb -E UTF8', 'pg_dump and pg_restore']) {
    expect(warnings[0].msg).toContain(part);
  }
  // Never the DATABASE_URL, which may hold a password.
  expect(output).not.toContain(new URL(db.url).pathname.slice(1));
}, 60_000);

test('a UTF-8 database whose locale is C, so whose lower() folds ASCII letters only too, is used with one warning', async () => {
  const { warnings } = await startOn((await cLocaleDatabase('utf8c', 'UTF8')).url);
  expect(warnings).toHaveLength(1);
  expect(warnings[0].encoding).toBe('UTF8');
  expect(warnings[0].msg).toContain("lower('É') is not 'é'");
}, 60_000);

test("a UTF-8 database whose lower() folds every letter's case starts without that warning", async () => {
  expect((await startOn(process.env.QUIRE_TEST_DATABASE_URL!, false)).warnings).toEqual([]);
});
