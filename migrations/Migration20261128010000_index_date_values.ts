import { Migration } from '@mikro-orm/migrations';

/**
 * Date-time values of date index fields were kept with a zone designator (`…T08:00:00.000Z`);
 * they are now kept as the API writes date-times, without it (docs/decisions.md, "Index fields").
 */
export class Migration20261128010000_index_date_values extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
update document_index_value v set value = left(v.value, 23)
  from index_field f
 where f.tenant_id = v.tenant_id and f.id = v.field_id and f.field_type = 4
   and v.value ~ '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
update document_index_value v set value = v.value || 'Z'
  from index_field f
 where f.tenant_id = v.tenant_id and f.id = v.field_id and f.field_type = 4
   and v.value ~ '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}$';
`);
  }
}
