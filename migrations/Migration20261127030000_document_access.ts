import { Migration } from '@mikro-orm/migrations';

/**
 * Document accesses (docs/decisions.md, "Recent and frequent documents"): when each user last
 * opened each document, and how often, for `lastdocuments` and `frequentdocuments`. One row per
 * user and document; rows go with either.
 */
export class Migration20261127030000_document_access extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table document_access (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  user_id uuid not null,
  document_id uuid not null,
  accessed_at timestamptz not null default now(),
  access_count integer not null default 1,
  primary key (tenant_id, user_id, document_id),
  constraint document_access_user_fk foreign key (tenant_id, user_id) references app_user (tenant_id, id) on delete cascade,
  constraint document_access_document_fk foreign key (tenant_id, document_id) references document (tenant_id, id) on delete cascade
);
create index document_access_last_ix on document_access (tenant_id, user_id, accessed_at desc, document_id);
create index document_access_frequent_ix on document_access (tenant_id, user_id, access_count desc, accessed_at desc, document_id);
create index document_access_document_ix on document_access (tenant_id, document_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table document_access;');
  }
}
