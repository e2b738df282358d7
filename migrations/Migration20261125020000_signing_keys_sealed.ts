import { Migration } from '@mikro-orm/migrations';

/**
 * JWT signing keys sealed at rest, and key rotation.
 *
 * - `private_key_sealed`: the private JWK encrypted with AES-256-GCM under the key-encryption key
 *   (KEY_ENCRYPTION_KEY, or a 0600 file under DATA_DIR; src/auth/kek.ts). That key lives outside
 *   the database, so a copy of the database alone signs nothing. The plaintext `private_jwk` of
 *   existing rows is sealed and cleared by the first start after this migration (the migration
 *   cannot: the key-encryption key is configuration, not data); the check keeps every row to one
 *   of the two.
 * - `retired_at`: set by `quire keys rotate` on the keys a new one replaces. A retired key signs
 *   nothing more and verifies until the tokens it signed have expired; then the purge drops it.
 */
export class Migration20261125020000_signing_keys_sealed extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table signing_key alter column private_jwk drop not null;
alter table signing_key add column private_key_sealed text;
alter table signing_key add column retired_at timestamptz;
alter table signing_key add constraint signing_key_private_once check ((private_jwk is null) <> (private_key_sealed is null));
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
alter table signing_key drop constraint if exists signing_key_private_once;
alter table signing_key drop column if exists retired_at;
alter table signing_key drop column if exists private_key_sealed;
`);
  }
}
