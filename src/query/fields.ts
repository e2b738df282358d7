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
   * by eq or ne with the literal '' (or listed with it in `in`), the field is whether that text is
   * empty, so `eq ''` finds the unset values as on a text field. Every other comparison with ''
   * stays a 400 (not a date-time).
   */
  keptText?: Sql;
  /**
   * Text compared case-insensitively only, not in any Unicode normal form as names are (a form
   * value: its search index, which eqHint probes, holds `lower(values)`).
   */
  foldsCaseOnly?: boolean;
}

/**
 * Lookups by the lower-case API field name (the compiler lower-cases the client's spelling). A
 * FieldMap is one; a resource with dynamic fields answers names it does not list (src/read/fields.ts).
 */
export interface QueryFieldMap {
  get(lowerName: string): QueryField | undefined;
  /**
   * The fields an "unknown field" message lists, in its order: each lookup key (lower case) with
   * the name as records spell it (`siteid` -> `siteId`), which the message shows.
   */
  names(): ReadonlyMap<string, string>;
}

/** Fields by their names as records spell them: looked up in lower case, listed as spelled. */
export class FieldMap implements QueryFieldMap {
  private readonly byKey = new Map<string, QueryField>();
  private readonly spelled = new Map<string, string>();

  constructor(fields: Iterable<readonly [name: string, field: QueryField]>) {
    for (const [name, field] of fields) {
      this.byKey.set(name.toLowerCase(), field);
      this.spelled.set(name.toLowerCase(), name);
    }
  }

  get(lowerName: string): QueryField | undefined {
    return this.byKey.get(lowerName);
  }

  names(): ReadonlyMap<string, string> {
    return this.spelled;
  }
}

/** A FieldMap from a plain object; SQL given as text is trusted text. */
export function queryFields(fields: Record<string, { sql: string | Sql; type: FieldType }>): QueryFieldMap {
  return new FieldMap(Object.entries(fields).map(([name, f]) => [name, { sql: typeof f.sql === 'string' ? raw(f.sql) : f.sql, type: f.type }]));
}
