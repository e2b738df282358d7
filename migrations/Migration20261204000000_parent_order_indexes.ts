import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes that lead with the parent of the lists that read under one (test/db/list-orders.test.ts):
 * a site's users and groups, a folder's alerts, and a link table's rows from the side that had only
 * `(tenant_id, parent)`. An index in the order alone let PostgreSQL walk the whole tenant's rows in
 * that order, keeping the parent's. Each replaced index is a prefix of its replacement, which serves
 * whatever it served (foreign key checks included).
 */
export class Migration20261204000000_parent_order_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop index app_user_site_ix;
create index app_user_site_ix on app_user (tenant_id, site_id, lower(user_id));
drop index user_group_site_ix;
create index user_group_site_ix on user_group (tenant_id, site_id, lower(name));
create index alert_subscription_folder_ix on alert_subscription (tenant_id, folder_id, object_id, event_id, user_id) where folder_id is not null;
drop index group_member_user_ix;
create index group_member_user_ix on group_member (tenant_id, user_id, group_id);
drop index user_supervisor_supervisor_ix;
create index user_supervisor_supervisor_ix on user_supervisor (tenant_id, supervisor_id, user_id);
drop index form_document_document_ix;
create index form_document_document_ix on form_document (tenant_id, document_id, form_id);
drop index folder_index_field_field_ix;
create index folder_index_field_field_ix on folder_index_field (tenant_id, field_id, folder_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index folder_index_field_field_ix;
create index folder_index_field_field_ix on folder_index_field (tenant_id, field_id);
drop index form_document_document_ix;
create index form_document_document_ix on form_document (tenant_id, document_id);
drop index user_supervisor_supervisor_ix;
create index user_supervisor_supervisor_ix on user_supervisor (tenant_id, supervisor_id);
drop index group_member_user_ix;
create index group_member_user_ix on group_member (tenant_id, user_id);
drop index alert_subscription_folder_ix;
drop index user_group_site_ix;
create index user_group_site_ix on user_group (tenant_id, site_id);
drop index app_user_site_ix;
create index app_user_site_ix on app_user (tenant_id, site_id);
`);
  }
}
