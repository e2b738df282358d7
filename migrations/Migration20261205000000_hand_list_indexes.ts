import { Migration } from '@mikro-orm/migrations';

/**
 * A document's alerts (src/resolvers/alert.ts, documentAlerts) read under the document in the
 * subscriptions' order (test/db/list-orders.test.ts). `document_id` had no index at all, though
 * deleting a document cascades to its subscriptions through it.
 */
export class Migration20261205000000_hand_list_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index alert_subscription_document_ix on alert_subscription (tenant_id, document_id, object_id, event_id, user_id) where document_id is not null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index alert_subscription_document_ix;');
  }
}
