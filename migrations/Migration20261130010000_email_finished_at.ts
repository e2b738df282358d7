import { Migration } from '@mikro-orm/migrations';

/**
 * When a message was sent or given up on (`finished_at`), which the purge counts EMAIL_KEEP_DAYS
 * from; before, it counted from when the message was queued. Messages finished before this know
 * only when they were sent, or when their last try came due.
 */
export class Migration20261130010000_email_finished_at extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table email_message add column finished_at timestamptz;
update email_message set finished_at = coalesce(sent_at, next_attempt_at) where status <> 0;
drop index email_message_done;
create index email_message_done on email_message (finished_at) where status <> 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index email_message_done;
alter table email_message drop column finished_at;
create index email_message_done on email_message (created_at) where status <> 0;`);
  }
}
