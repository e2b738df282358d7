import { Migration } from '@mikro-orm/migrations';

/**
 * `q` over calendar and cell values: PostgreSQL reads 'NaN', 'Infinity' and 'infinity' as a number
 * or a timestamp, which then compared greater than every real one (`qty gt 1` matched 'NaN').
 * They are no values a person means, so they read as NULL, as other text that is not a number or
 * a date does.
 */
export class Migration20261128020000_form_value_finite extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create or replace function form_value_timestamp(v text) returns timestamp language plpgsql stable as $$
declare t timestamp;
begin
  t := v::timestamp;
  return case when isfinite(t) then t end;
exception when others then return null;
end $$;
create or replace function form_value_numeric(v text) returns numeric language plpgsql immutable as $$
declare n numeric;
begin
  n := v::numeric;
  return case when n in ('NaN'::numeric, 'Infinity'::numeric, '-Infinity'::numeric) then null else n end;
exception when others then return null;
end $$;
`);
  }

  override async down(): Promise<void> {
    this.addSql(`
create or replace function form_value_timestamp(v text) returns timestamp language plpgsql stable as $$
begin return v::timestamp; exception when others then return null; end $$;
create or replace function form_value_numeric(v text) returns numeric language plpgsql immutable as $$
begin return v::numeric; exception when others then return null; end $$;
`);
  }
}
