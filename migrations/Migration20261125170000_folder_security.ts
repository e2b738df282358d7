import { Migration } from '@mikro-orm/migrations';

/**
 * Folder security members (docs/decisions.md, "Folder security"): a user or a group with a role
 * on a folder. A folder without members is open to everyone in its database; one with members
 * only to them (and administrators). `member_id` is whichever of the two ids is set, so a member
 * is one row per folder whatever its kind; deleting the user, the group or the folder deletes it.
 */
export class Migration20261125170000_folder_security extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table folder_member (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  folder_id uuid not null,
  user_id uuid,
  group_id uuid,
  member_id uuid not null generated always as (coalesce(user_id, group_id)) stored,
  role smallint not null check (role between 1 and 4),
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, folder_id, member_id),
  check ((user_id is null) <> (group_id is null)),
  constraint folder_member_folder_fk foreign key (tenant_id, folder_id) references folder (tenant_id, id) on delete cascade,
  constraint folder_member_user_fk foreign key (tenant_id, user_id) references app_user (tenant_id, id) on delete cascade,
  constraint folder_member_group_fk foreign key (tenant_id, group_id) references user_group (tenant_id, id) on delete cascade
);
create index folder_member_user_ix on folder_member (tenant_id, user_id) where user_id is not null;
create index folder_member_group_ix on folder_member (tenant_id, group_id) where group_id is not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table folder_member;');
  }
}
