import { Migration } from '@mikro-orm/migrations';

/**
 * `q` over calendar values: PostgreSQL reads '4714-11-24 BC' and '294276-12-31' as timestamps at
 * the ends of its range, and any `dateadd` on such a value then failed the statement ("timestamp out
 * of range", a 500 for every filter of that field). Dates here are of the years 1 to 9999 (the
 * DateTime scalar and `q`'s literals, src/scalars.ts, src/query/coerce.ts); a value outside them
 * reads as NULL, as other text that is not a date does, and MAX_DATEADD_YEARS keeps every shift of
 * one inside PostgreSQL's range.
 */
export class Migration20261209000000_form_value_years extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function form_value_timestamp(v text) returns timestamp language plpgsql stable as $$
declare t timestamp;
begin
  t := v::timestamp;
  return case when t >= '0001-01-01' and t < '10000-01-01' then t end;
exception when others then return null;
end $$;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
create or replace function form_value_timestamp(v text) returns timestamp language plpgsql stable as $$
declare t timestamp;
begin
  t := v::timestamp;
  return case when isfinite(t) then t end;
exception when others then return null;
end $$;
`);
  }
}
