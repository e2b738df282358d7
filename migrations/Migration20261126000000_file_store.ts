import { Migration } from '@mikro-orm/migrations';

/**
 * File bytes move to the file store (src/storage/, docs/decisions.md "Files"): `content` stays only
 * for files stored before this change. Whenever a stored file's row goes (a revision or document
 * deleted, a folder with what it holds, a purge, a tenant), the same transaction queues its key in
 * `file_removal`, whatever statement or cascade removed it; the purge then deletes the bytes.
 * The queue has no foreign key: it must outlive the rows, and the tenant, it names.
 */
export class Migration20261126000000_file_store extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table document_file alter column content drop not null;
create table file_removal (
  tenant_id uuid not null,
  file_id uuid not null,
  queued_at timestamptz not null default now(),
  primary key (tenant_id, file_id)
);
create function queue_file_removal() returns trigger language plpgsql as $$
begin
  insert into file_removal (tenant_id, file_id) values (old.tenant_id, old.id) on conflict do nothing;
  return null;
end $$;
create trigger document_file_removed after delete on document_file
  for each row when (old.content is null) execute function queue_file_removal();
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop trigger document_file_removed on document_file;
drop function queue_file_removal();
drop table file_removal;
`);
  }
}
