import { Migration } from '@mikro-orm/migrations';

/**
 * `dataLength` as the clients count it (docs/decisions.md, "Persisted data"): the dictionary's
 * length in UTF-16 code units, kept at create from the JS `.length` so that list reads never scan
 * the text. Existing rows get the same count in SQL: a character outside the Basic Multilingual
 * Plane is two UTF-16 code units (stored text holds no lone surrogates: creates refuse them).
 */
export class Migration20261203120000_persisted_data_length extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table persisted_data add column data_length int;
update persisted_data set data_length = char_length(data) + regexp_count(data, '[\\U00010000-\\U0010FFFF]');
alter table persisted_data alter column data_length set not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table persisted_data drop column data_length;');
  }
}
