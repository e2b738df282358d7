import { Migration } from '@mikro-orm/migrations';

/** Site lists are ordered by `lower(name), id` (src/resources/site.ts): an index in that order. */
export class Migration20261124000000_site_order_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop index if exists site_tenant_name_ix;
create index site_tenant_name_ix on site (tenant_id, lower(name), id);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index if exists site_tenant_name_ix;
create index site_tenant_name_ix on site (tenant_id, lower(name));
`);
  }
}
