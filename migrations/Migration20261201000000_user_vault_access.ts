import { Migration } from '@mikro-orm/migrations';

/**
 * A user's `isVaultAccess`, the account-owner flag the .NET client sets (SetUserAsAccountOwner)
 * and lists by (GetAccountOwnersList, `GET users?isVaultAccess=true`); before, it was kept nowhere.
 * The partial index serves that list in its order: owners are few among a tenant's users.
 */
export class Migration20261201000000_user_vault_access extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table app_user add column is_vault_access boolean not null default false;
create index app_user_vault_access_ix on app_user (tenant_id, lower(user_id)) where is_vault_access;`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table app_user drop column is_vault_access;');
  }
}
