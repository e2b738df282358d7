/**
 * The name key migration: names that become one under `name_key` (any case, any Unicode normal
 * form) keep the oldest as it is and give the others the end of their id; a renamed folder's
 * subtree follows it; the unique indexes then hold, and the migration reverts and applies again.
 * Runs on a database of its own, made and dropped here.
 */
import { newId } from '../../src/ids.js';
import { migrationDatabase } from './migration-database.js';

const BEFORE = 'Migration20261204000000_parent_order_indexes';
const NAME_KEY = 'Migration20261205000000_name_key';
const NFC = 'Résumé'.normalize('NFC');
const NFD = 'Résumé'.normalize('NFD');
/** The first é decomposed, the second not: a third spelling, in upper case. */
const MIXED = `RE\u0301SUM\u00c9`;

const { migrator, sql } = migrationDatabase('namekey');

const suffix = (id: string) => ` (${id.slice(-12)})`;

test('colliding names are parted, folders with their subtrees; the unique indexes hold; it reverts', async () => {
  await migrator().up({ to: BEFORE });
  const [customer, tenant, other] = [newId(), newId(), newId()];
  await sql(
    `insert into customer (id, alias, name) values (?, 'one', 'one');
     insert into customer_database (id, customer_id, alias, name) values (?, ?, 'main', 'main'), (?, ?, 'other', 'other')`,
    [customer, tenant, customer, other, customer],
  );
  // Ids in creation order (UUIDv7): the first of each name is the oldest.
  const groups = [newId(), newId(), newId(), newId()];
  const groupRows: [string, string, string][] = [
    [tenant, groups[0], NFC],
    [tenant, groups[1], NFD],
    [tenant, groups[2], MIXED],
    [other, groups[3], NFD], // another tenant's: not a collision
  ];
  for (const [t, id, name] of groupRows) await sql('insert into user_group (tenant_id, id, name) values (?, ?, ?)', [t, id, name]);

  const [topC, topD, subD, deepD] = [newId(), newId(), newId(), newId()];
  const folder = (id: string, top: string, parent: string | null, name: string, path: string) =>
    sql('insert into folder (tenant_id, id, top_id, parent_id, name, path) values (?, ?, ?, ?, ?, ?)', [tenant, id, top, parent, name, path]);
  await folder(topC, topC, null, NFC, `/${NFC}`);
  await folder(topD, topD, null, NFD, `/${NFD}`);
  await folder(subD, topD, topD, 'Sub', `/${NFD}/Sub`);
  await folder(deepD, topD, subD, 'Deep', `/${NFD}/Sub/Deep`);

  await migrator().up({ to: NAME_KEY });
  const names = new Map((await sql<{ id: string; name: string }>('select id, name from user_group')).map((r) => [r.id, r.name]));
  expect(groups.map((id) => names.get(id))).toEqual([NFC, NFD + suffix(groups[1]), MIXED + suffix(groups[2]), NFD]);

  const folders = new Map((await sql<{ id: string; name: string; path: string }>('select id, name, path from folder')).map((r) => [r.id, r]));
  const parted = `/${NFD}${suffix(topD)}`;
  expect([topC, topD, subD, deepD].map((id) => [folders.get(id)!.name, folders.get(id)!.path])).toEqual([
    [NFC, `/${NFC}`],
    [NFD + suffix(topD), parted],
    ['Sub', `${parted}/Sub`],
    ['Deep', `${parted}/Sub/Deep`],
  ]);

  // Now one name: another spelling of a taken one is refused by the unique indexes.
  await expect(sql('insert into user_group (tenant_id, id, name) values (?, ?, ?)', [tenant, newId(), 'RÉSUMÉ'.normalize('NFD')])).rejects.toThrow(/user_group_name_uq/);
  const dup = newId();
  await expect(folder(dup, dup, null, 'résumé', '/résumé')).rejects.toThrow(/folder_path_uq/);

  // Reverted, the key is gone and names compare by lower() again (NFD and NFC are two); applied again, they hold.
  await migrator().down({ to: NAME_KEY });
  expect(await sql("select 1 from pg_proc where proname = 'name_key'")).toEqual([]);
  const later = newId();
  await sql('insert into user_group (tenant_id, id, name) values (?, ?, ?)', [other, later, NFC]);
  await migrator().up({ to: NAME_KEY });
  const otherNames = (await sql<{ name: string }>('select name from user_group where tenant_id = ? order by id', [other])).map((r) => r.name);
  expect(otherNames).toEqual([NFD, NFC + suffix(later)]);
});
