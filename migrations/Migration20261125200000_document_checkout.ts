import { Migration } from '@mikro-orm/migrations';

/**
 * Who has a document checked out, and since when (docs/decisions.md, "Check-out"): while
 * `checked_out_by_id` is set, only that user (or an administrator) changes the document. A
 * deleted user's check-outs end with them. `check_in_status` gives way to them: the status is
 * whether someone has the document checked out.
 */
export class Migration20261125200000_document_checkout extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table document
  add column checked_out_by_id uuid,
  add column checked_out_at timestamptz,
  add constraint document_checked_out_by_fk foreign key (tenant_id, checked_out_by_id) references app_user (tenant_id, id) on delete set null (checked_out_by_id),
  drop column check_in_status;
create index document_checked_out_ix on document (tenant_id, checked_out_by_id) where checked_out_by_id is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table document add column check_in_status smallint not null default 0, drop column checked_out_by_id, drop column checked_out_at;');
  }
}
