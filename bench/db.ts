/**
 * The benchmark's own database: a fresh database created on BENCH_DATABASE_URL's server (dropped
 * afterwards), else an embedded PostgreSQL in a temporary DATA_DIR (stopped and removed afterwards).
 * Either way it is migrated through the project's own openDatabase().
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { createLogger } from '../src/log.js';

// The runner's stdout carries the report; it seeds through the ORM and never reads through the read pool.
const quiet = createLogger('silent');

export interface BenchDb {
  /** Connection URL the children use. */
  url: string;
  /** Human description for the report. */
  describe: string;
  db: Database;
  close(): Promise<void>;
}

export async function startBenchDb(log: (s: string) => void): Promise<BenchDb> {
  const external = process.env.BENCH_DATABASE_URL;
  const base = { ...loadConfig({}), logLevel: 'warn' as const };
  if (external) {
    const name = `quire_bench_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: external });
    await admin.connect();
    try {
      await admin.query(`create database ${name}`);
    } finally {
      await admin.end();
    }
    const u = new URL(external);
    u.pathname = `/${name}`;
    const url = u.toString();
    log(`created database ${name} on ${u.host}`);
    let db: Database;
    try {
      db = await openDatabase({ ...base, databaseUrl: url }, quiet);
    } catch (e) {
      await dropDatabase(external, name).catch(() => undefined);
      throw e;
    }
    return {
      url,
      describe: `BENCH_DATABASE_URL server (${u.host}), fresh database`,
      db,
      async close() {
        await db.close();
        await dropDatabase(external, name);
      },
    };
  }

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-'));
  log(`starting embedded PostgreSQL in ${dataDir}`);
  let db: Database;
  try {
    db = await openDatabase({ ...base, databaseUrl: undefined, dataDir }, quiet);
  } catch (e) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    url: db.url,
    describe: 'embedded PostgreSQL (temporary DATA_DIR)',
    db,
    async close() {
      try {
        await db.close();
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

async function dropDatabase(adminUrl: string, name: string) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`drop database if exists ${name} with (force)`);
  } finally {
    await c.end();
  }
}
