/**
 * For a migration's test: a database of its own, left empty (the test migrates it step by step),
 * with an ORM on it; made before the file's tests and dropped after them.
 */
import type { Migrator } from '@mikro-orm/migrations';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm } from '../../src/db/orm.js';
import { ownDatabase, type OwnDatabase } from '../own-database.js';

export interface MigrationDatabase {
  migrator(): Migrator;
  /** One statement (knex's `?` placeholders) on the database; its rows. */
  sql<T extends object>(text: string, values?: unknown[]): Promise<T[]>;
}

export function migrationDatabase(name: string): MigrationDatabase {
  let db: OwnDatabase;
  let orm: MikroORM;
  beforeAll(async () => {
    db = await ownDatabase(name, { migrate: false });
    orm = await initOrm(db.url, 2);
  });
  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });
  return {
    migrator: () => orm.getMigrator(),
    sql: <T extends object>(text: string, values: unknown[] = []) => orm.em.getConnection().execute<T[]>(text, values),
  };
}
