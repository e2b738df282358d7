import { Migration } from '@mikro-orm/migrations';

/**
 * A scheduled process sent without `nextRunDate` first runs when it is made, by the database's
 * clock (the column's default), as every other timestamp: before, the app's clock wrote it, and a
 * server whose clock ran ahead of the database's made a process that was not yet due.
 */
export class Migration20261130020000_scheduled_next_run_default extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table scheduled_process alter column next_run_at set default now();`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table scheduled_process alter column next_run_at drop default;`);
  }
}
