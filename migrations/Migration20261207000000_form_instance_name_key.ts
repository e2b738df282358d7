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
const ANALYZE_NAME_KEY_TABLES = `do $$
  declare r record;
  begin
    for r in select distinct tablename from pg_indexes where schemaname = current_schema() and indexdef like '%name_key(%' loop
      execute format('analyze %I', r.tablename);
    end loop;
  end $$;`;

export class Migration20261207000000_form_instance_name_key extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index form_instance_name_ix;');
    this.addSql('create index form_instance_name_ix on form_instance (tenant_id, name_key(instance_name));');
    this.addSql(ANALYZE_NAME_KEY_TABLES);
  }

  override async down(): Promise<void> {
    this.addSql('drop index form_instance_name_ix;');
    this.addSql('create index form_instance_name_ix on form_instance (tenant_id, lower(instance_name));');
  }
}
