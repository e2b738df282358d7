import { Migration } from '@mikro-orm/migrations';

/**
 * Documents of the library (docs/decisions.md, "Documents"): `document` is the document with its
 * current revision's fields (like `form_instance`), `document_revision` keeps every revision, the
 * current one included, and `form_document` relates form instances to documents. A folder's
 * deletion takes its documents with it; a document's, its revisions and relations.
 */
export class Migration20261125140000_documents extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table document (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  folder_id uuid not null,
  revision_id uuid not null,
  revision text not null,
  name text not null,
  description text not null default '',
  release_state smallint not null default 1,
  check_in_status smallint not null default 0,
  review_date timestamptz,
  expire_date timestamptz,
  archive smallint not null default 0,
  abstract text not null default '',
  keywords text not null default '',
  change_text text,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id),
  foreign key (tenant_id, folder_id) references folder (tenant_id, id) on delete cascade
);
create unique index document_revision_uq on document (tenant_id, revision_id);
create index document_folder_ix on document (tenant_id, folder_id, lower(name), id);
create index document_name_ix on document (tenant_id, lower(name), id);

create table document_revision (
  tenant_id uuid not null,
  id uuid not null,
  document_id uuid not null,
  revision text not null,
  name text not null,
  description text not null default '',
  change_text text,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  primary key (tenant_id, id),
  foreign key (tenant_id, document_id) references document (tenant_id, id) on delete cascade
);
create index document_revision_document_ix on document_revision (tenant_id, document_id, created_at, id);

create table form_document (
  tenant_id uuid not null,
  form_id uuid not null,
  document_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, form_id, document_id),
  foreign key (tenant_id, form_id) references form_instance (tenant_id, id) on delete cascade,
  foreign key (tenant_id, document_id) references document (tenant_id, id) on delete cascade
);
create index form_document_document_ix on form_document (tenant_id, document_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table form_document; drop table document_revision; drop table document;');
  }
}
