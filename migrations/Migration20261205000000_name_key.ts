import { Migration } from '@mikro-orm/migrations';

/**
 * Names are one name in any case and in any Unicode normal form: `Résumé` typed on a Mac (NFD, e
 * and a combining accent) is the `Résumé` typed elsewhere (NFC, one character). `name_key(text)`
 * is the key a name is compared and kept unique by, `normalize(lower(x), NFC)`; names themselves
 * are kept as sent. PostgreSQL normalizes only in a UTF-8 database: in another, the key is
 * `lower(x)`, as before (the start-up warns of such a database).
 *
 * Lists of these names are ordered by the key, as their unique indexes (and the site-scoped and
 * vault-access indexes of users and groups, rebuilt on it) read them.
 *
 * Rows that become one name under the new key keep the oldest as it is; each later one gets the
 * end of its id, ` (<12 hex digits>)`, added to its name (for a folder, to its path and to the
 * paths under it), so that the unique indexes can be made.
 */
const NAMED: { table: string; column: string; index: string; scope: string }[] = [
  { table: 'user_group', column: 'name', index: 'user_group_name_uq', scope: 'tenant_id' },
  { table: 'app_user', column: 'user_id', index: 'app_user_user_id_uq', scope: 'tenant_id' },
  { table: 'form_template', column: 'name', index: 'form_template_name_uq', scope: 'tenant_id' },
  { table: 'index_field', column: 'label', index: 'index_field_label_uq', scope: 'tenant_id' },
  { table: 'dropdown_list', column: 'name', index: 'dropdown_list_name_uq', scope: 'tenant_id' },
  { table: 'script', column: 'name', index: 'script_name_uq', scope: 'tenant_id' },
  { table: 'scheduled_process', column: 'name', index: 'scheduled_process_name_uq', scope: 'tenant_id' },
  { table: 'document_type', column: 'name', index: 'document_type_name_uq', scope: 'tenant_id' },
  { table: 'saved_search', column: 'name', index: 'saved_search_name_uq', scope: 'tenant_id, owner_id' },
];

/** What a parted name gets added: ` (` and the last 12 hex digits of `id` (the row's id column) and `)`. */
const suffix = (id: string) => `' (' || right(${id}::text, 12) || ')'`;

export class Migration20261205000000_name_key extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
do $$ begin
  if current_setting('server_encoding') = 'UTF8' then
    create function name_key(text) returns text language sql immutable parallel safe as 'select normalize(lower($1), NFC)';
  else
    create function name_key(text) returns text language sql immutable parallel safe as 'select lower($1)';
  end if;
end $$;`);
    for (const { table, column, index, scope } of NAMED) {
      this.addSql(`
update ${table} t set ${column} = t.${column} || ${suffix('t.id')}
  from (select id, row_number() over (partition by ${scope}, name_key(${column}) order by id) as n from ${table}) d
 where t.id = d.id and d.n > 1;
drop index ${index};
create unique index ${index} on ${table} (${scope}, name_key(${column}));`);
    }
    // A folder's path ends with its name; the paths under a renamed folder change with it. The
    // shallowest first: renaming one parts the paths under it too.
    this.addSql(`
do $$
declare
  r record;
begin
  loop
    select f.id, f.tenant_id, f.path into r
      from (select id, tenant_id, path, row_number() over (partition by tenant_id, name_key(path) order by id) as n from folder) f
     where f.n > 1 order by char_length(f.path), f.id limit 1;
    exit when not found;
    update folder set path = r.path || ${suffix('r.id')} || substr(path, char_length(r.path) + 1)
     where tenant_id = r.tenant_id and (id = r.id or starts_with(path, r.path || '/'));
    update folder set name = name || ${suffix('r.id')} where id = r.id;
  end loop;
end $$;
drop index folder_path_uq;
create unique index folder_path_uq on folder (tenant_id, md5(name_key(path)));
create index document_name_key_ix on document (tenant_id, name_key(name));
create index site_name_key_ix on site (tenant_id, name_key(name));
drop index app_user_site_ix;
create index app_user_site_ix on app_user (tenant_id, site_id, name_key(user_id));
drop index app_user_vault_access_ix;
create index app_user_vault_access_ix on app_user (tenant_id, name_key(user_id)) where is_vault_access;
drop index user_group_site_ix;
create index user_group_site_ix on user_group (tenant_id, site_id, name_key(name));`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index user_group_site_ix;
create index user_group_site_ix on user_group (tenant_id, site_id, lower(name));
drop index app_user_vault_access_ix;
create index app_user_vault_access_ix on app_user (tenant_id, lower(user_id)) where is_vault_access;
drop index app_user_site_ix;
create index app_user_site_ix on app_user (tenant_id, site_id, lower(user_id));
drop index site_name_key_ix;
drop index document_name_key_ix;
drop index folder_path_uq;
create unique index folder_path_uq on folder (tenant_id, md5(lower(path)));`);
    for (const { table, column, index, scope } of NAMED) {
      this.addSql(`
drop index ${index};
create unique index ${index} on ${table} (${scope}, lower(${column}));`);
    }
    this.addSql('drop function name_key(text);');
  }
}
