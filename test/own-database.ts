/**
 * A database of one's own on the run's server, migrated as the global setup migrates the shared
 * one (through the CLI): for tests whose rows must not meet the other test files', such as a
 * file store of their own, whose removal queue no other file's purge may drain. With
 * `migrate: false` it is left empty, for a migration's test to migrate step by step.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';

export interface OwnDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * `cLocale`: made from template0 in that encoding with the C locale (`SQL_ASCII`, `UTF8`), whose
 * lower() folds ASCII letters only, as some operators' databases do. `settings`: defaults the
 * database gives every new session (`alter database ... set`), as an operator's server might.
 */
export async function ownDatabase(
  name: string,
  { migrate = true, cLocale, settings = {} }: { migrate?: boolean; cLocale?: string; settings?: Record<string, string> } = {},
): Promise<OwnDatabase> {
  const shared = process.env.QUIRE_TEST_DATABASE_URL;
  if (!shared) throw new Error('QUIRE_TEST_DATABASE_URL is not set: run the tests through jest (global setup)');
  const dbName = `quire_${name}_${process.pid}_${Date.now()}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: shared });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${dbName}${cLocale ? ` template template0 encoding '${cLocale}' locale_provider libc lc_collate 'C' lc_ctype 'C'` : ''}`);
  for (const [key, value] of Object.entries(settings)) await admin(`alter database ${dbName} set ${key} = ${pg.escapeLiteral(value)}`);
  const url = new URL(shared);
  url.pathname = `/${dbName}`;
  if (migrate) {
    execFileSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '..', 'src', 'cli.ts'), 'migrate'], {
      env: { ...process.env, DATABASE_URL: url.toString(), NODE_OPTIONS: '' },
      stdio: 'ignore',
    });
  }
  return { url: url.toString(), drop: () => admin(`drop database if exists ${dbName} with (force)`) };
}
