/**
 * The scheduled run report_by migration: runs made before it, running or ended, get the default
 * limit of SCHEDULED_RUN_TIMEOUT_MINUTES (360) from their start, so that a run left running by a
 * script that died reads as failed; it reverts and applies again. Runs on a database of its own,
 * made and dropped here.
 */
import { newId } from '../../src/ids.js';
import { migrationDatabase } from './migration-database.js';

const BEFORE = 'Migration20261209000000_form_value_years';
const REPORT_BY = 'Migration20261210000000_scheduled_run_report_by';

const { migrator, sql } = migrationDatabase('reportby');

const limits = () =>
  sql<{ id: string; minutes: number }>('select id, extract(epoch from report_by - started_at)::int / 60 as minutes from scheduled_run order by id');

test("runs made before it get 360 minutes from their start; it reverts and applies again", async () => {
  await migrator().up({ to: BEFORE });
  const [customer, tenant, script, process, running, ended] = [newId(), newId(), newId(), newId(), newId(), newId()];
  await sql(
    `insert into customer (id, alias, name) values (?, 'one', 'one');
     insert into customer_database (id, customer_id, alias, name) values (?, ?, 'main', 'main');
     insert into script (tenant_id, id, name, source) values (?, ?, 'job', 'x');
     insert into scheduled_process (tenant_id, id, name, script_id, interval_minutes) values (?, ?, 'every hour', ?, 60);
     insert into scheduled_run (tenant_id, id, process_id, started_at) values (?, ?, ?, now() - interval '2 days');
     insert into scheduled_run (tenant_id, id, process_id, status, result, completed_at) values (?, ?, ?, 1, true, now())`,
    [customer, tenant, customer, tenant, script, tenant, process, script, tenant, running, process, tenant, ended, process],
  );
  const expected = [running, ended].sort().map((id) => ({ id, minutes: 360 }));

  await migrator().up({ to: REPORT_BY });
  expect(await limits()).toEqual(expected);
  const [overdue] = await sql<{ overdue: boolean }>('select report_by <= now() as overdue from scheduled_run where id = ?', [running]);
  expect(overdue).toEqual({ overdue: true });
  await expect(sql('insert into scheduled_run (tenant_id, id, process_id) values (?, ?, ?)', [tenant, newId(), process])).rejects.toThrow(/report_by/);

  await migrator().down({ to: REPORT_BY });
  expect(await sql("select 1 from information_schema.columns where table_name = 'scheduled_run' and column_name = 'report_by'")).toEqual([]);
  await migrator().up({ to: REPORT_BY });
  expect(await limits()).toEqual(expected);
});
