import { Migration } from '@mikro-orm/migrations';

/**
 * A zip may also fail because the file store had no room for it (`noRoom`, its download's 409 says
 * so: src/resolvers/document-zip.ts); before, that read as files that could not be read.
 */
export class Migration20261211000000_document_zip_no_room extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table document_zip drop constraint document_zip_failure_check;');
    this.addSql(`alter table document_zip add constraint document_zip_failure_check check (failure in ('', 'tooLarge', 'sourceLost', 'noRoom', 'unreadable'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`update document_zip set failure = 'unreadable' where failure = 'noRoom';`);
    this.addSql('alter table document_zip drop constraint document_zip_failure_check;');
    this.addSql(`alter table document_zip add constraint document_zip_failure_check check (failure in ('', 'tooLarge', 'sourceLost', 'unreadable'));`);
  }
}
