import { Migration } from '@mikro-orm/migrations';

/**
 * Zips are built in the background (docs/decisions.md, "Zip files"): a request records what goes
 * in (`entries`, decided and checked when it asked) as a pending zip, and a server's zip builder
 * (src/jobs/zip-builder.ts) claims it under a lease, streams it into the file store and marks it
 * ready, or failed. Size and hash are known once it is built. Zips made before are ready.
 */
export class Migration20261128000000_document_zip_queue extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table document_zip
  add column status smallint not null default 1 check (status in (0, 1, 2)),
  add column entries jsonb not null default '[]',
  add column attempts integer not null default 0,
  add column lease_until timestamptz,
  add column last_error text not null default '',
  alter column size drop not null,
  alter column sha256 drop not null;
alter table document_zip alter column status set default 0;
create index document_zip_pending_ix on document_zip (created_at) where status = 0;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
delete from document_zip where status <> 1;
drop index document_zip_pending_ix;
alter table document_zip
  drop column status, drop column entries, drop column attempts, drop column lease_until, drop column last_error,
  alter column size set not null,
  alter column sha256 set not null;
`);
  }
}
