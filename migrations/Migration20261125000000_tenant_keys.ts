import { Migration } from '@mikro-orm/migrations';

/**
 * Tenant integrity in the database itself: every tenant-owned table's primary key starts with
 * tenant_id (`(tenant_id, id)`), and every reference between tenant-owned rows is a composite
 * foreign key `(tenant_id, x_id) references t (tenant_id, id)`, so a row of one tenant can never
 * point at another tenant's row, whoever writes it. Unique indexes already start with tenant_id.
 * The layout can thus be distributed by tenant_id (Citus wants it in every unique key).
 *
 * Changes beside the keys:
 * - Deleting a user who owns an API client is refused (no action: checked at the end of the
 *   statement, so deleting a whole tenant still cascades), no longer a cascade that
 *   locked every client of the tenant out (the API answers 409 naming the client first).
 * - Deleting a site leaves its groups without a site: `set null (site_id)` only, tenant_id stays.
 * - Every foreign key has an index starting (tenant_id, x_id), so cascades and checks probe one.
 * - `api_client_id_ix`: the token endpoint finds a client by its id alone (the legacy clients
 *   send no tenant); a plain, not unique, index, so distribution stays possible.
 * Existing rows are kept: only constraints and indexes change. A row that already points across
 * tenants (none can come from the API, whose writes check the tenant) stops the migration, which
 * is rolled back whole, with PostgreSQL naming the constraint and the row.
 */
export class Migration20261125000000_tenant_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table user_group drop constraint user_group_site_id_fkey;
alter table app_user drop constraint app_user_site_id_fkey;
alter table group_member drop constraint group_member_group_id_fkey, drop constraint group_member_user_id_fkey;
alter table user_supervisor drop constraint user_supervisor_user_id_fkey, drop constraint user_supervisor_supervisor_id_fkey;
alter table api_client drop constraint api_client_user_id_fkey;
alter table refresh_token drop constraint refresh_token_user_id_fkey, drop constraint refresh_token_client_id_fkey;
alter table web_token drop constraint web_token_user_id_fkey;

alter table site drop constraint site_pkey, add constraint site_pkey primary key (tenant_id, id);
alter table user_group drop constraint user_group_pkey, add constraint user_group_pkey primary key (tenant_id, id);
alter table app_user drop constraint app_user_pkey, add constraint app_user_pkey primary key (tenant_id, id);
alter table group_member drop constraint group_member_pkey, add constraint group_member_pkey primary key (tenant_id, group_id, user_id);
alter table user_supervisor drop constraint user_supervisor_pkey, add constraint user_supervisor_pkey primary key (tenant_id, user_id, supervisor_id);
alter table api_client drop constraint api_client_pkey, add constraint api_client_pkey primary key (tenant_id, id);
alter table refresh_token drop constraint refresh_token_pkey, add constraint refresh_token_pkey primary key (tenant_id, id);
alter table web_token drop constraint web_token_pkey, add constraint web_token_pkey primary key (tenant_id, id);

alter table user_group add constraint user_group_site_fk foreign key (tenant_id, site_id) references site (tenant_id, id) on delete set null (site_id);
alter table app_user add constraint app_user_site_fk foreign key (tenant_id, site_id) references site (tenant_id, id);
alter table group_member
  add constraint group_member_group_fk foreign key (tenant_id, group_id) references user_group (tenant_id, id) on delete cascade,
  add constraint group_member_user_fk foreign key (tenant_id, user_id) references app_user (tenant_id, id) on delete cascade;
alter table user_supervisor
  add constraint user_supervisor_user_fk foreign key (tenant_id, user_id) references app_user (tenant_id, id) on delete cascade,
  add constraint user_supervisor_supervisor_fk foreign key (tenant_id, supervisor_id) references app_user (tenant_id, id) on delete cascade;
alter table api_client add constraint api_client_user_fk foreign key (tenant_id, user_id) references app_user (tenant_id, id);
alter table refresh_token
  add constraint refresh_token_user_fk foreign key (tenant_id, user_id) references app_user (tenant_id, id) on delete cascade,
  add constraint refresh_token_client_fk foreign key (tenant_id, client_id) references api_client (tenant_id, id) on delete cascade;
alter table web_token add constraint web_token_user_fk foreign key (tenant_id, user_id) references app_user (tenant_id, id) on delete cascade;

drop index api_client_tenant_ix;
create index api_client_user_ix on api_client (tenant_id, user_id);
create index api_client_id_ix on api_client (id);
create index refresh_token_user_ix on refresh_token (tenant_id, user_id);
create index refresh_token_client_ix on refresh_token (tenant_id, client_id);
create index web_token_user_ix on web_token (tenant_id, user_id);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
drop index web_token_user_ix, refresh_token_client_ix, refresh_token_user_ix, api_client_id_ix, api_client_user_ix;
create index api_client_tenant_ix on api_client (tenant_id);

alter table web_token drop constraint web_token_user_fk;
alter table refresh_token drop constraint refresh_token_user_fk, drop constraint refresh_token_client_fk;
alter table api_client drop constraint api_client_user_fk;
alter table user_supervisor drop constraint user_supervisor_user_fk, drop constraint user_supervisor_supervisor_fk;
alter table group_member drop constraint group_member_group_fk, drop constraint group_member_user_fk;
alter table app_user drop constraint app_user_site_fk;
alter table user_group drop constraint user_group_site_fk;

alter table site drop constraint site_pkey, add constraint site_pkey primary key (id);
alter table user_group drop constraint user_group_pkey, add constraint user_group_pkey primary key (id);
alter table app_user drop constraint app_user_pkey, add constraint app_user_pkey primary key (id);
alter table group_member drop constraint group_member_pkey, add constraint group_member_pkey primary key (group_id, user_id);
alter table user_supervisor drop constraint user_supervisor_pkey, add constraint user_supervisor_pkey primary key (user_id, supervisor_id);
alter table api_client drop constraint api_client_pkey, add constraint api_client_pkey primary key (id);
alter table refresh_token drop constraint refresh_token_pkey, add constraint refresh_token_pkey primary key (id);
alter table web_token drop constraint web_token_pkey, add constraint web_token_pkey primary key (id);

alter table user_group add constraint user_group_site_id_fkey foreign key (site_id) references site (id) on delete set null;
alter table app_user add constraint app_user_site_id_fkey foreign key (site_id) references site (id);
alter table group_member
  add constraint group_member_group_id_fkey foreign key (group_id) references user_group (id) on delete cascade,
  add constraint group_member_user_id_fkey foreign key (user_id) references app_user (id) on delete cascade;
alter table user_supervisor
  add constraint user_supervisor_user_id_fkey foreign key (user_id) references app_user (id) on delete cascade,
  add constraint user_supervisor_supervisor_id_fkey foreign key (supervisor_id) references app_user (id) on delete cascade;
alter table api_client add constraint api_client_user_id_fkey foreign key (user_id) references app_user (id) on delete cascade;
alter table refresh_token
  add constraint refresh_token_user_id_fkey foreign key (user_id) references app_user (id) on delete cascade,
  add constraint refresh_token_client_id_fkey foreign key (client_id) references api_client (id) on delete cascade;
alter table web_token add constraint web_token_user_id_fkey foreign key (user_id) references app_user (id) on delete cascade;
`);
  }
}
