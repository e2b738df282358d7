import { Migration } from '@mikro-orm/migrations';

/**
 * Document zip files (docs/decisions.md, "Zip files"): one zip of documents' current files, in the
 * file store under its download key (`id`), kept for a day for its creator. A row that goes
 * (expired and purged, its creator or tenant deleted) queues its bytes in `file_removal`, as a
 * document file's row does.
 */
export class Migration20261127040000_document_zips extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table document_zip (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  file_name text not null,
  size bigint not null,
  file_count integer not null,
  sha256 text not null,
  created_at timestamptz not null default now(),
  created_by_id uuid not null,
  expires_at timestamptz not null,
  primary key (tenant_id, id),
  constraint document_zip_user_fk foreign key (tenant_id, created_by_id) references app_user (tenant_id, id) on delete cascade
);
create index document_zip_expires_ix on document_zip (expires_at);
create index document_zip_user_ix on document_zip (tenant_id, created_by_id);
create trigger document_zip_removed after delete on document_zip for each row execute function queue_file_removal();
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table document_zip;');
  }
}
