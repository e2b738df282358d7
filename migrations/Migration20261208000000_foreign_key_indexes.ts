import { Migration } from '@mikro-orm/migrations';

/**
 * An index for every foreign key that had none led by its columns. Deleting a referenced row
 * makes PostgreSQL look for the rows that point at it, once per row deleted: without such an
 * index, each look reads the tenant's rows of the referencing table. Deleting a folder with 11,000
 * folders under it took 13 s, most of it looking for folders whose top-level folder was one
 * going (`top_id`), so a tree of about 15,000 could not be deleted within the default statement
 * timeout. The other four are small tables today (saved searches, form templates, scheduled
 * processes) that grow with their tenant as that one did. test/db/foreign-key-indexes.test.ts
 * keeps every foreign key so covered.
 */
const INDEXES = [
  'folder_top_ix on folder (tenant_id, top_id)',
  'saved_search_folder_ix on saved_search (tenant_id, folder_id)',
  'form_template_latest_ix on form_template (tenant_id, latest_revision_id)',
  'form_template_released_ix on form_template (tenant_id, released_revision_id)',
  'scheduled_process_script_ix on scheduled_process (tenant_id, script_id)',
];

export class Migration20261208000000_foreign_key_indexes extends Migration {
  override async up(): Promise<void> {
    for (const index of INDEXES) this.addSql(`create index ${index};`);
  }

  override async down(): Promise<void> {
    for (const index of INDEXES) this.addSql(`drop index ${index.split(' ')[0]};`);
  }
}
