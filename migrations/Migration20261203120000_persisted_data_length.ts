import { Migration } from '@mikro-orm/migrations';

/**
 * `dataLength` as the clients count it (docs/decisions.md, "Persisted data"): the dictionary's
 * length in UTF-16 code units, kept at create from the JS `.length` so that list reads never scan
 * the text. Existing rows get the same count in SQL: a character outside the Basic Multilingual
 * Plane is two UTF-16 code units (stored text holds no lone surrogates: creates refuse them).
 * Counted by what removing them takes away, not `regexp_count`, which PostgreSQL 14 lacks.
 */
export class Migration20261203120000_persisted_data_length extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table persisted_data add column data_length int;
update persisted_data set data_length = 2 * char_length(data) - char_length(regexp_replace(data, '[\\U00010000-\\U0010FFFF]', '', 'g'));
alter table persisted_data alter column data_length set not null;
`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table persisted_data drop column data_length;');
  }
}
