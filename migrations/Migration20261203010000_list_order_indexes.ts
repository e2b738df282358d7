import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes in the order of the lists that read them (the definitions' `order`,
 * test/db/list-orders.test.ts): a list's items, a folder's index fields and a process's runs
 * had an index on all but the last keys of their order (PostgreSQL sorted each page's rows by
 * the rest), and a folder's security members had none in their order (by role, then member).
 */
export class Migration20261203010000_list_order_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop index dropdown_item_list_ix;
create index dropdown_item_list_ix on dropdown_item (tenant_id, list_id, position, id);
drop index folder_index_field_order_ix;
create index folder_index_field_order_ix on folder_index_field (tenant_id, folder_id, position, field_id);
drop index scheduled_run_process;
create index scheduled_run_process on scheduled_run (tenant_id, process_id, started_at desc, id);
create index folder_member_order_ix on folder_member (tenant_id, folder_id, role, member_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index folder_member_order_ix;
drop index scheduled_run_process;
create index scheduled_run_process on scheduled_run (tenant_id, process_id, started_at);
drop index folder_index_field_order_ix;
create index folder_index_field_order_ix on folder_index_field (tenant_id, folder_id, position);
drop index dropdown_item_list_ix;
create index dropdown_item_list_ix on dropdown_item (tenant_id, list_id, position);
`);
  }
}
