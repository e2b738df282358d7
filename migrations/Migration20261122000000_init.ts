import { Migration } from '@mikro-orm/migrations';

/** Customers, tenants, sites, groups, users, API clients, refresh tokens, signing keys. */
export class Migration20261122000000_init extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table customer (
  id uuid primary key,
  alias text not null,
  name text not null,
  created_at timestamptz not null default now()
);
create unique index customer_alias_uq on customer (lower(alias));

create table customer_database (
  id uuid primary key,
  customer_id uuid not null references customer (id) on delete cascade,
  alias text not null,
  name text not null,
  created_at timestamptz not null default now()
);
create unique index customer_database_alias_uq on customer_database (customer_id, lower(alias));

create table site (
  id uuid primary key,
  tenant_id uuid not null references customer_database (id) on delete cascade,
  name text not null,
  description text not null default '',
  site_type text not null default 'Location',
  status text not null default 'Open',
  created_at timestamptz not null default now(),
  modified_at timestamptz not null default now()
);
create index site_tenant_name_ix on site (tenant_id, lower(name));

create table user_group (
  id uuid primary key,
  tenant_id uuid not null references customer_database (id) on delete cascade,
  site_id uuid references site (id) on delete set null,
  name text not null,
  description text not null default '',
  created_at timestamptz not null default now(),
  modified_at timestamptz not null default now()
);
create unique index user_group_name_uq on user_group (tenant_id, lower(name));
create index user_group_site_ix on user_group (tenant_id, site_id);

create table app_user (
  id uuid primary key,
  tenant_id uuid not null references customer_database (id) on delete cascade,
  site_id uuid not null references site (id),
  user_id text not null,
  name text not null,
  first_name text not null default '',
  middle_initial text not null default '',
  last_name text not null default '',
  email_address text not null default '',
  password_hash text not null,
  password_expires timestamptz,
  user_id_expires timestamptz,
  user_id_never_expires boolean not null default true,
  password_never_expires boolean not null default true,
  enabled boolean not null default true,
  last_ip_address text not null default '',
  failed_logins integer not null default 0,
  locked_until timestamptz,
  created_at timestamptz not null default now(),
  modified_at timestamptz not null default now()
);
create unique index app_user_user_id_uq on app_user (tenant_id, lower(user_id));
create index app_user_site_ix on app_user (tenant_id, site_id);

create table group_member (
  group_id uuid not null references user_group (id) on delete cascade,
  user_id uuid not null references app_user (id) on delete cascade,
  tenant_id uuid not null references customer_database (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (group_id, user_id)
);
create index group_member_user_ix on group_member (tenant_id, user_id);

create table user_supervisor (
  user_id uuid not null references app_user (id) on delete cascade,
  supervisor_id uuid not null references app_user (id) on delete cascade,
  tenant_id uuid not null references customer_database (id) on delete cascade,
  primary key (user_id, supervisor_id)
);
create index user_supervisor_supervisor_ix on user_supervisor (tenant_id, supervisor_id);

create table api_client (
  id uuid primary key,
  tenant_id uuid not null references customer_database (id) on delete cascade,
  name text not null,
  secret_hash text not null,
  user_id uuid not null references app_user (id) on delete cascade,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_client_tenant_ix on api_client (tenant_id);

create table refresh_token (
  id uuid primary key,
  tenant_id uuid not null references customer_database (id) on delete cascade,
  family_id uuid not null,
  token_hash text not null,
  user_id uuid not null references app_user (id) on delete cascade,
  client_id uuid not null references api_client (id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index refresh_token_hash_uq on refresh_token (tenant_id, token_hash);
create index refresh_token_family_ix on refresh_token (tenant_id, family_id);

create table web_token (
  id uuid primary key,
  tenant_id uuid not null references customer_database (id) on delete cascade,
  token_hash text not null,
  user_id uuid not null references app_user (id) on delete cascade,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index web_token_hash_uq on web_token (tenant_id, token_hash);

create table signing_key (
  kid text primary key,
  alg text not null,
  private_jwk jsonb not null,
  public_jwk jsonb not null,
  created_at timestamptz not null default now()
);
`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists signing_key, web_token, refresh_token, api_client, user_supervisor, group_member,
      app_user, user_group, site, customer_database, customer cascade;`);
  }
}
