import { Migration } from '@mikro-orm/migrations';

/**
 * Why a zip failed, in the words its download's 409 may use (src/resolvers/document-zip.ts):
 * larger than FILE_MAX_BYTES (ask for fewer documents), a file missing from the store, or reads
 * that kept failing (ask again). `last_error` keeps the detail, which stays off the wire.
 */
export class Migration20261202010000_document_zip_failure extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table document_zip add column failure text not null default '' check (failure in ('', 'tooLarge', 'sourceLost', 'unreadable'));`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table document_zip drop column failure;');
  }
}
