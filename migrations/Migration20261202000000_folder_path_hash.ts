import { Migration } from '@mikro-orm/migrations';

/**
 * A btree index row holds at most 2,704 bytes, and a folder path may have 4,000 characters (up to
 * 16,000 bytes): `folder_path_uq` on `lower(path)` refused a long path with error 54000 (a 500).
 * It is now unique on the path's MD5 (without regard to case), which always fits; a lookup by path
 * probes it with the same expression and compares the paths themselves too (`folderAt`).
 */
export class Migration20261202000000_folder_path_hash extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop index folder_path_uq;
create unique index folder_path_uq on folder (tenant_id, md5(lower(path)));
`);
  }

  // Fails while a path over the old index's row limit exists.
  override async down(): Promise<void> {
    this.addSql(`
drop index folder_path_uq;
create unique index folder_path_uq on folder (tenant_id, lower(path));
`);
  }
}
