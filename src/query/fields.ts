/** What the caller tells the compiler about the fields a resource exposes to `q`. */
import { raw, Sql } from '../sql.js';

export type FieldType = 'string' | 'guid' | 'integer' | 'numeric' | 'boolean' | 'datetime';

export interface QueryField {
  /** The field's SQL (a column or an expression); spliced in as it is, its own values kept as parameters. */
  sql: Sql;
  type: FieldType;
  /**
   * An index-friendly condition implied by `field eq <string literal>` (a JSONB containment
   * probe for form values), AND-ed before the exact comparison, which still decides.
   */
  eqHint?: (value: string) => Sql;
  /**
   * NULL is an unset value, which reads as '' (a form key the row lacks): compared with the literal
   * '' (eq, ne, ..., in, not in), the field is `coalesce(field, '')`. Other comparisons keep the plain field.
   */
  nullIsEmpty?: boolean;
  /**
   * A datetime field shown as the text it is kept as (a form's calendar value), not by the DateTime
   * scalar: compared at the precision it holds, not cut to the millisecond as other datetime fields are.
   */
  shownAsKept?: boolean;
  /**
   * The text a typed value is kept as (a form's calendar or cell value, NULL when unset): compared
   * by eq or ne with the literal '', the field is whether that text is empty, so `eq ''` finds the
   * unset values as on a text field. Every other comparison with '' stays a 400 (not a date-time).
   */
  keptText?: Sql;
}

/**
 * Lookups by the lower-case API field name (the compiler lower-cases the client's spelling). A
 * Map is one; a resource with dynamic fields answers names no Map lists (src/read/fields.ts).
 */
export interface QueryFieldMap {
  get(lowerName: string): QueryField | undefined;
  /** The names an "unknown field" message lists. */
  keys(): Iterable<string>;
}

/** Builds a QueryFieldMap from a plain object, lower-casing the keys; SQL given as text is trusted text. */
export function queryFields(fields: Record<string, { sql: string | Sql; type: FieldType }>): QueryFieldMap {
  const map = new Map<string, QueryField>();
  for (const [name, f] of Object.entries(fields)) map.set(name.toLowerCase(), { sql: typeof f.sql === 'string' ? raw(f.sql) : f.sql, type: f.type });
  return map;
}
