import { Migration } from '@mikro-orm/migrations';

/**
 * Scheduled processes (docs/decisions.md, "Scheduled processes"): a script run every
 * `interval_minutes` when `PUT scheduledProcess/Run` finds it due, and each run with the token
 * the script reports back with (`POST scheduledProcess/{token}`). A script in use cannot be
 * deleted; a process's runs go with it.
 */
export class Migration20261125230000_scheduled_processes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table scheduled_process (
  tenant_id uuid not null references customer_database (id) on delete cascade,
  id uuid not null,
  name text not null,
  description text not null default '',
  script_id uuid not null,
  interval_minutes integer not null,
  enabled boolean not null default true,
  next_run_at timestamptz not null,
  created_at timestamptz not null default now(),
  created_by_id uuid,
  modified_at timestamptz not null default now(),
  modified_by_id uuid,
  primary key (tenant_id, id),
  constraint scheduled_process_script_fk foreign key (tenant_id, script_id) references script (tenant_id, id)
);
create unique index scheduled_process_name_uq on scheduled_process (tenant_id, lower(name));
create index scheduled_process_due on scheduled_process (tenant_id, next_run_at) where enabled;

create table scheduled_run (
  tenant_id uuid not null,
  id uuid not null,
  process_id uuid not null,
  status smallint not null default 0,
  result boolean,
  message text not null default '',
  started_at timestamptz not null default now(),
  completed_at timestamptz,
  started_by_id uuid,
  primary key (tenant_id, id),
  constraint scheduled_run_process_fk foreign key (tenant_id, process_id) references scheduled_process (tenant_id, id) on delete cascade
);
create index scheduled_run_process on scheduled_run (tenant_id, process_id, started_at);
`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table scheduled_run; drop table scheduled_process;');
  }
}
