import { Migration } from '@mikro-orm/migrations';

/**
 * Alert subscriptions (docs/decisions.md, "Alerts"): a user asks to be told by e-mail when an
 * event (src/alert-events.ts) happens to the documents of a folder or to one document. One row per
 * user, event and folder or document; rows go with the user, the folder or the document.
 */
export class Migration20261127010000_alert_subscriptions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table alert_subscription (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  event_id uuid not null,
  folder_id uuid,
  document_id uuid,
  object_id uuid not null generated always as (coalesce(folder_id, document_id)) stored,
  user_id uuid not null,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  primary key (tenant_id, id),
  check ((folder_id is null) <> (document_id is null)),
  constraint alert_subscription_folder_fk foreign key (tenant_id, folder_id) references folder (tenant_id, id) on delete cascade,
  constraint alert_subscription_document_fk foreign key (tenant_id, document_id) references document (tenant_id, id) on delete cascade,
  constraint alert_subscription_user_fk foreign key (tenant_id, user_id) references app_user (tenant_id, id) on delete cascade
);
create unique index alert_subscription_uq on alert_subscription (tenant_id, object_id, event_id, user_id);
create index alert_subscription_user_ix on alert_subscription (tenant_id, user_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table alert_subscription;');
  }
}
