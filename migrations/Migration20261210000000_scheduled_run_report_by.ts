import { Migration } from '@mikro-orm/migrations';

/**
 * A scheduled run's `report_by` (docs/decisions.md, "Scheduled processes"): when its start plus
 * SCHEDULED_RUN_TIMEOUT_MINUTES passes with the run still running, it has failed. Runs made before
 * it get the setting's default, 360 minutes. The partial index serves `PUT scheduledProcess/Run`'s
 * look for the tenant's runs past it, among its running ones only.
 */
export class Migration20261210000000_scheduled_run_report_by extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table scheduled_run add column report_by timestamptz;
update scheduled_run set report_by = started_at + interval '360 minutes';
alter table scheduled_run alter column report_by set not null;
create index scheduled_run_open on scheduled_run (tenant_id, report_by) where status = 0;
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index scheduled_run_open; alter table scheduled_run drop column report_by;');
  }
}
