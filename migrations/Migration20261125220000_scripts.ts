import { Migration } from '@mikro-orm/migrations';

/**
 * Scripts (docs/decisions.md, "Scripts"): a tenant's named scripts, whose source the outside
 * process (the script server at SCRIPT_SERVER_URL) runs when `POST scripts` names one. Names are
 * unique without regard to case; a lookup by name reads one index entry.
 */
export class Migration20261125220000_scripts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table script (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  name text not null,
  description text not null default '',
  source text not null,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id)
);
create unique index script_name_uq on script (tenant_id, lower(name));
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table script;');
  }
}
