import { Migration } from '@mikro-orm/migrations';

/**
 * The document library's folders: a tree per tenant. `path` is the folder's whole path as named
 * (`/Top/Child`), unique without regard to case, so a lookup by `folderPath` is one index probe;
 * `top_id` is the top-level folder (the folder itself at the top). Deleting a folder deletes its
 * subfolders (and, through their own keys, what they hold).
 */
export class Migration20261125130000_folders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table folder (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  parent_id uuid,
  top_id uuid not null,
  name text not null check (name <> '' and position('/' in name) = 0),
  description text not null default '',
  path text not null,
  allow_revisions boolean not null default true,
  folder_type smallint not null default 0,
  status smallint not null default 0,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id),
  foreign key (tenant_id, parent_id) references folder (tenant_id, id) on delete cascade,
  foreign key (tenant_id, top_id) references folder (tenant_id, id) on delete cascade
);
create unique index folder_path_uq on folder (tenant_id, lower(path));
create index folder_parent_ix on folder (tenant_id, parent_id, lower(name));
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table folder;');
  }
}
