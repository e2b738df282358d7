import { Migration } from '@mikro-orm/migrations';

/**
 * Who last checked a document in (docs/decisions.md, "Check-out"): `checkedInBy` names them, and
 * the document's creator until someone does. A deleted user's check-ins fall back to the creator.
 */
export class Migration20261130000000_document_checked_in_by extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table document
  add column checked_in_by_id uuid,
  add constraint document_checked_in_by_fk foreign key (tenant_id, checked_in_by_id) references app_user (tenant_id, id) on delete set null (checked_in_by_id);
create index document_checked_in_ix on document (tenant_id, checked_in_by_id) where checked_in_by_id is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table document drop column checked_in_by_id;');
  }
}
