import { Migration } from '@mikro-orm/migrations';

/**
 * The outgoing e-mail queue (docs/decisions.md, "E-mail"): each message is a row that waits
 * (status 0) until a batch sends it (1) or gives up on it (2), with its attempts and last error,
 * so the queue is its own log. Attachments keep their bytes beside it and go with it.
 */
export class Migration20261125210000_emails extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table email_message (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  recipients text not null,
  cc_recipients text not null default '',
  bcc_recipients text not null default '',
  subject text not null default '',
  body text not null default '',
  status smallint not null default 0,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  last_error text not null default '',
  smtp_response text not null default '',
  sent_at timestamptz,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  primary key (tenant_id, id)
);
create index email_message_due on email_message (next_attempt_at) where status = 0;
create index email_message_done on email_message (created_at) where status <> 0;

create table email_attachment (
  tenant_id uuid not null,
  id uuid not null,
  message_id uuid not null,
  position integer not null,
  file_name text not null,
  content_type text not null,
  size bigint not null,
  content bytea not null,
  primary key (tenant_id, id),
  constraint email_attachment_message_fk foreign key (tenant_id, message_id) references email_message (tenant_id, id) on delete cascade
);
create index email_attachment_message on email_attachment (tenant_id, message_id, position);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table email_attachment; drop table email_message;');
  }
}
