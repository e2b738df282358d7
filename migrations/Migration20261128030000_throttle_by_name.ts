import { Migration } from '@mikro-orm/migrations';

/**
 * A user's lock-out is keyed by the user name tried, lower-cased (src/auth/throttle.ts), no longer
 * by the user's id: so a new password (or an administrator's reset) lifts the locks of the user's
 * name. The keys of the old form run out with their window; the purge takes them.
 */
export class Migration20261128030000_throttle_by_name extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function app_user_end_sessions() returns trigger language plpgsql as $$
declare prefix text := 'user:' || new.tenant_id || ':' || lower(new.user_id) || ':';
begin
  if new.enabled is distinct from old.enabled
     or (new.password_hash is distinct from old.password_hash
         and coalesce(current_setting('quire.password_rehash', true), '') <> 'on') then
    new.session_epoch := old.session_epoch + 1;
  end if;
  if new.password_hash is distinct from old.password_hash then
    -- A new password (or an administrator's reset) lifts the lock-outs of the user's name.
    delete from login_throttle where left(key, length(prefix)) = prefix;
  end if;
  return new;
end $$;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
create or replace function app_user_end_sessions() returns trigger language plpgsql as $$
begin
  if new.enabled is distinct from old.enabled
     or (new.password_hash is distinct from old.password_hash
         and coalesce(current_setting('quire.password_rehash', true), '') <> 'on') then
    new.session_epoch := old.session_epoch + 1;
  end if;
  if new.password_hash is distinct from old.password_hash then
    delete from login_throttle where key like 'user:' || new.tenant_id || ':' || new.id || ':%';
  end if;
  return new;
end $$;
`);
  }
}
