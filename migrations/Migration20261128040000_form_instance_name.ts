import { Migration } from '@mikro-orm/migrations';

/**
 * A form is also found by its instance name (`relateForm?relateToDocId=`), without regard to
 * case: an index of the lookup's form. Not unique: templates may share an instance name prefix.
 */
export class Migration20261128040000_form_instance_name extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index form_instance_name_ix on form_instance (tenant_id, lower(instance_name));');
  }

  override async down(): Promise<void> {
    this.addSql('drop index form_instance_name_ix;');
  }
}
