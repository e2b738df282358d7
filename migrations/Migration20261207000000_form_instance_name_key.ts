import { Migration } from '@mikro-orm/migrations';

/**
 * A form's instance name is found as other names are, in any case and Unicode normal form
 * (`name_key`, migrations/Migration20261205000000_name_key.ts): by `relateForm?relateToDocId=` and
 * by `q=instanceName eq '...'`, which compares strings by `name_key` since that migration. The index
 * on `lower(instance_name)` served neither after it: `q` read every form of the template (2 s at a
 * million forms). Not unique: templates may share an instance name prefix.
 *
 * PostgreSQL keeps no statistics of an index's expression until its table is analyzed, and until
 * then guesses that an equality on it matches 0.5% of the rows: a list ordered by another index
 * then walks that one instead (1.4 s at a million forms with the index in place, 10 ms analyzed).
 * So the tables of every `name_key` index, this one's and the name key migration's, are analyzed
 * here rather than left to autovacuum, which waits for a tenth of a table to change.
 */
const NAME_KEY_TABLES = [
  'form_instance', 'app_user', 'user_group', 'site', 'folder', 'document', 'form_template', 'index_field',
  'dropdown_list', 'script', 'scheduled_process', 'document_type', 'saved_search',
];

export class Migration20261207000000_form_instance_name_key extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index form_instance_name_ix;');
    this.addSql('create index form_instance_name_ix on form_instance (tenant_id, name_key(instance_name));');
    this.addSql(`analyze ${NAME_KEY_TABLES.join(', ')};`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index form_instance_name_ix;');
    this.addSql('create index form_instance_name_ix on form_instance (tenant_id, lower(instance_name));');
  }
}
