import { Migration } from '@mikro-orm/migrations';

/**
 * Documents' files (docs/decisions.md, "Files"): at most one per revision, its bytes kept in the
 * database beside its name, type, size and SHA-256, so a revision and its file are written in
 * one transaction and backed up together. A revision's deletion takes its file with it.
 */
export class Migration20261125190000_document_files extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table document_file (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  revision_id uuid not null,
  file_name text not null,
  content_type text not null,
  size bigint not null,
  sha256 text not null,
  content bytea not null,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  primary key (tenant_id, id),
  constraint document_file_revision_fk foreign key (tenant_id, revision_id) references document_revision (tenant_id, id) on delete cascade
);
create unique index document_file_revision_uq on document_file (tenant_id, revision_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table document_file;');
  }
}
