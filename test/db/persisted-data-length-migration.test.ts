/**
 * The persisted data length migration counts existing dictionaries as creates now do (the JS
 * `.length`, UTF-16 code units), a row written without the count is refused, and the migration
 * reverts and applies again. Runs on a database of its own, made and dropped here.
 */
import { newId } from '../../src/ids.js';
import { migrationDatabase } from './migration-database.js';

const BEFORE = 'Migration20261202010000_document_zip_failure';
const LENGTH = 'Migration20261203120000_persisted_data_length';
// ASCII; 9 code points but 10 code units; BMP beside astral characters; U+FFFF beside U+10FFFF.
const TEXTS = ['{"a":1}', '{"a":"😀"}', '{"é":"中😀𝄞x"}', '{"edge":"\uffff\u{10ffff}\u{10000}"}'];

const { migrator, sql } = migrationDatabase('pdlen');

const lengthColumns = () =>
  sql<{ is_nullable: string }>("select is_nullable from information_schema.columns where table_name = 'persisted_data' and column_name = 'data_length'");

test('existing dictionaries get their UTF-16 length; a row without one is refused', async () => {
  await migrator().up({ to: BEFORE });
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
  await migrator().up({ to: LENGTH });
  const rows = await sql<{ id: string; data_length: number }>('select id, data_length from persisted_data');
  const lengthOf = new Map(rows.map((r) => [r.id, r.data_length]));
  expect(ids.map((id) => lengthOf.get(id))).toEqual(TEXTS.map((t) => t.length));
  expect(TEXTS.map((t) => t.length)).toEqual([7, 10, 14, 16]);

  await expect(sql(insert, [tenant, newId(), '{}', user, user])).rejects.toThrow(/data_length/);

  // Reverted, the column is gone (a row is written without it); applied again, every row is counted.
  await migrator().down({ to: LENGTH });
  expect(await lengthColumns()).toEqual([]);
  const later = newId();
  await sql(insert, [tenant, later, TEXTS[2], user, user]);
  await migrator().up({ to: LENGTH });
  expect(await lengthColumns()).toEqual([{ is_nullable: 'NO' }]);
  const again = await sql<{ id: string; data_length: number }>('select id, data_length from persisted_data');
  expect(new Map(again.map((r) => [r.id, r.data_length]))).toEqual(new Map([...lengthOf, [later, TEXTS[2].length]]));
});
