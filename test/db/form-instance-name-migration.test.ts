/**
 * The form instance name migration: `form_instance_name_ix` moves from `lower(instance_name)` to
 * `name_key(instance_name)`, and the tables of the name key indexes are analyzed, so PostgreSQL
 * knows how few rows one name matches before the first autovacuum (without the statistics, `q` on
 * an instance name walked the template's order index over every form); it reverts and applies again.
 * Runs on a database of its own, made and dropped here.
 */
import { newId } from '../../src/ids.js';
import { migrationDatabase } from './migration-database.js';

const BEFORE = 'Migration20261206000000_alert_event_ids';
const MIGRATION = 'Migration20261207000000_form_instance_name_key';

const { migrator, sql } = migrationDatabase('instancename');

const indexDef = async () => (await sql<{ indexdef: string }>("select indexdef from pg_indexes where indexname = 'form_instance_name_ix'"))[0].indexdef;
/** Which of this index and the name key migration's index on sites PostgreSQL has statistics of the expressions of. */
const withStatistics = async () =>
  (await sql<{ tablename: string }>("select distinct tablename from pg_stats where tablename in ('form_instance_name_ix', 'site_name_key_ix') order by tablename")).map((r) => r.tablename);

test('the index moves to name_key and the name key indexes get statistics; it reverts and applies again', async () => {
  await migrator().up({ to: BEFORE });
  const [customer, tenant, template, site] = [newId(), newId(), newId(), newId()];
  await sql(
    `insert into customer (id, alias, name) values (?, 'one', 'one');
     insert into customer_database (id, customer_id, alias, name) values (?, ?, 'main', 'main');
     insert into site (tenant_id, id, name) values (?, ?, 'Home');
     insert into form_template (tenant_id, id, name, instance_prefix, next_instance_seq) values (?, ?, 'Intake', 'Intake-', 101)`,
    [customer, tenant, customer, tenant, site, tenant, template],
  );
  await sql(
    `insert into form_instance (tenant_id, id, template_id, revision_id, revision, seq, instance_name, values)
       select ?, gen_random_uuid(), ?, gen_random_uuid(), 1, i, 'Intake-' || lpad(i::text, 6, '0'), '{}' from generate_series(1, 100) i`,
    [tenant, template],
  );
  expect(await indexDef()).toMatch(/\(tenant_id, lower\(instance_name\)\)/);
  expect(await withStatistics()).toEqual([]);

  await migrator().up({ to: MIGRATION });
  expect(await indexDef()).toMatch(/\(tenant_id, name_key\(instance_name\)\)/);
  expect(await withStatistics()).toEqual(['form_instance_name_ix', 'site_name_key_ix']);

  await migrator().down({ to: BEFORE });
  expect(await indexDef()).toMatch(/\(tenant_id, lower\(instance_name\)\)/);
  await migrator().up({ to: MIGRATION });
  expect(await indexDef()).toMatch(/\(tenant_id, name_key\(instance_name\)\)/);
});
