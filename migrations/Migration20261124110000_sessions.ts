import { Migration } from '@mikro-orm/migrations';

/**
 * Sessions that end with their account, and login throttling shared by every process.
 *
 * - `app_user.session_epoch`: access and refresh tokens carry the epoch they were issued under;
 *   a token whose epoch is not the user's current one is refused. A trigger bumps it whenever
 *   `enabled` or `password_hash` changes, whoever writes the row (API, CLI, SQL), so no writer
 *   can forget it. A rehash of the same password at login (new hashing parameters) is not a
 *   password change: it sets `quire.password_rehash` for its transaction and keeps the sessions.
 * - `login_throttle`: failure counters per source address, per API client and per (user, address),
 *   counted atomically in the database (src/auth/throttle.ts). Replaces app_user's
 *   failed_logins/locked_until, which were read, incremented and written back.
 */
export class Migration20261124110000_sessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table app_user add column session_epoch integer not null default 0;
alter table refresh_token add column session_epoch integer not null default 0;

create function app_user_end_sessions() returns trigger language plpgsql as $$
begin
  if new.enabled is distinct from old.enabled
     or (new.password_hash is distinct from old.password_hash
         and coalesce(current_setting('quire.password_rehash', true), '') <> 'on') then
    new.session_epoch := old.session_epoch + 1;
  end if;
  if new.password_hash is distinct from old.password_hash then
    -- A new password (or an administrator's reset) lifts the user's lock-outs.
    delete from login_throttle where key like 'user:' || new.tenant_id || ':' || new.id || ':%';
  end if;
  return new;
end $$;

create trigger app_user_end_sessions before update on app_user
  for each row execute function app_user_end_sessions();

create table login_throttle (
  key text primary key,
  attempts integer not null,
  window_start timestamptz not null,
  locked_until timestamptz
);
create index login_throttle_window_ix on login_throttle (window_start);

alter table app_user drop column failed_logins, drop column locked_until;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
alter table app_user add column failed_logins integer not null default 0, add column locked_until timestamptz;
drop table if exists login_throttle;
drop trigger if exists app_user_end_sessions on app_user;
drop function if exists app_user_end_sessions();
alter table refresh_token drop column if exists session_epoch;
alter table app_user drop column if exists session_epoch;
`);
  }
}
