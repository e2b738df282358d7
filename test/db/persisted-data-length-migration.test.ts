/**
 * The persisted data length migration counts existing dictionaries as creates now do (the JS
 * `.length`, UTF-16 code units), and a row written without the count is refused. Runs on a
 * database of its own, made and dropped here.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { initOrm } from '../../src/db/orm.js';
import { newId } from '../../src/ids.js';

const BEFORE = 'Migration20261202010000_document_zip_failure';
const LENGTH = 'Migration20261203120000_persisted_data_length';
// ASCII; 9 code points but 10 code units; BMP beside astral characters; U+FFFF beside U+10FFFF.
const TEXTS = ['{"a":1}', '{"a":"😀"}', '{"é":"中😀𝄞x"}', '{"edge":"\uffff\u{10ffff}\u{10000}"}'];

let admin: pg.Client;
let orm: MikroORM;
const name = `quire_pdlen_${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  const url = new URL(process.env.QUIRE_TEST_DATABASE_URL!);
  admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  url.pathname = `/${name}`;
  orm = await initOrm(url.toString(), 2);
});

afterAll(async () => {
  await orm?.close(true);
  await admin.query(`drop database if exists ${name}`);
  await admin.end();
});

const sql = <T extends object>(text: string, values: unknown[] = []) => orm.em.getConnection().execute<T[]>(text, values);

test('existing dictionaries get their UTF-16 length; a row without one is refused', async () => {
  const migrator = orm.getMigrator();
  await migrator.up({ to: BEFORE });
  const [customer, tenant, user] = [newId(), newId(), newId()];
  await sql(
    `insert into customer (id, alias, name) values (?, 'one', 'one');
     insert into customer_database (id, customer_id, alias, name) values (?, ?, 'main', 'main')`,
    [customer, tenant, customer],
  );
  const insert = `insert into persisted_data (tenant_id, id, name, scope, data, data_mime_type, created_by_id, modified_by_id)
                  values (?, ?, 'd', 0, ?, 'application/json', ?, ?)`;
  const ids = TEXTS.map(() => newId());
  for (const [i, text] of TEXTS.entries()) await sql(insert, [tenant, ids[i], text, user, user]);

  // Named, so that later migrations neither run here nor get reverted in its place.
  await migrator.up({ to: LENGTH });
  const rows = await sql<{ id: string; data_length: number }>('select id, data_length from persisted_data');
  const lengthOf = new Map(rows.map((r) => [r.id, r.data_length]));
  expect(ids.map((id) => lengthOf.get(id))).toEqual(TEXTS.map((t) => t.length));
  expect(TEXTS.map((t) => t.length)).toEqual([7, 10, 14, 16]);

  await expect(sql(insert, [tenant, newId(), '{}', user, user])).rejects.toThrow(/data_length/);
});
