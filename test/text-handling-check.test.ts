/**
 * The start-up check of the database's text handling (src/db/text-handling-check.ts): a database
 * whose lower() folds ASCII letters only is still used, with one warning saying what to do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startServer, stop, type Started } from './server-process.js';

const shared = process.env.QUIRE_TEST_DATABASE_URL!;
const asciiName = `quire_henc_ascii_${process.pid}_${Date.now()}`;
const cLocaleName = `quire_henc_utf8_c_${process.pid}_${Date.now()}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-text-'));

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: shared });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A database of `encoding` and the C locale on the run's server (dropped after the file). */
async function database(name: string, encoding: string): Promise<string> {
  await admin(`create database ${name} template template0 encoding '${encoding}' locale_provider libc lc_collate 'C' lc_ctype 'C'`);
  const url = new URL(shared);
  url.pathname = `/${name}`;
  return url.href;
}

/** The warnings the server logged about its database's text handling. */
const textWarnings = (s: Started) =>
  s
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; encoding?: string })
    .filter((e) => e.level === 40 && e.msg.includes('lower()'));

afterAll(async () => {
  for (const name of [asciiName, cLocaleName]) await admin(`drop database if exists ${name} with (force)`);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('a SQL_ASCII database, whose lower() folds ASCII letters only, is used with one warning that says what to do', async () => {
  const s = await startServer({ DATABASE_URL: await database(asciiName, 'SQL_ASCII'), DATA_DIR: dataDir });
  try {
    expect((await fetch(`http://127.0.0.1:${s.port}/healthz`)).status).toBe(200);
    const warnings = textWarnings(s);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].encoding).toBe('SQL_ASCII');
    expect(warnings[0].msg).toContain('SQL_ASCII, not UTF8');
    expect(warnings[0].msg).toContain('ASCII letters only');
    expect(warnings[0].msg).toContain('or in Unicode normal form');
    expect(warnings[0].msg).toContain('createdb -E UTF8');
    expect(warnings[0].msg).toContain('pg_dump and pg_restore');
    // Never the DATABASE_URL, which may hold a password.
    expect(s.stdout()).not.toContain(asciiName);
  } finally {
    expect(await stop(s)).toBe(0);
  }
}, 60_000);

test("a UTF-8 database whose locale is C, so whose lower() folds ASCII letters only too, is used with one warning", async () => {
  const s = await startServer({ DATABASE_URL: await database(cLocaleName, 'UTF8'), DATA_DIR: dataDir });
  try {
    expect((await fetch(`http://127.0.0.1:${s.port}/healthz`)).status).toBe(200);
    const warnings = textWarnings(s);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].encoding).toBe('UTF8');
    expect(warnings[0].msg).toContain("lower('É') is not 'é'");
  } finally {
    expect(await stop(s)).toBe(0);
  }
}, 60_000);

test("a UTF-8 database whose lower() folds every letter's case starts without that warning", async () => {
  const s = await startServer({ DATABASE_URL: shared });
  try {
    expect((await fetch(`http://127.0.0.1:${s.port}/healthz`)).status).toBe(200);
    expect(textWarnings(s)).toEqual([]);
  } finally {
    expect(await stop(s)).toBe(0);
  }
});
