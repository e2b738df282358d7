/** What the caller tells the compiler about the fields a resource exposes to `q`. */

export type FieldType = 'string' | 'guid' | 'integer' | 'boolean' | 'datetime';

export interface QueryField {
  /** A column expression supplied by the caller, e.g. `"e0"."user_id"`; used verbatim, never quoted or altered. */
  sql: string;
  type: FieldType;
}

/** Keyed by the lower-case API field name (lookups lower-case the client's spelling). */
export type QueryFieldMap = ReadonlyMap<string, QueryField>;

/** Builds a QueryFieldMap from a plain object, lower-casing the keys. */
export function queryFields(fields: Record<string, QueryField>): QueryFieldMap {
  const map = new Map<string, QueryField>();
  for (const [name, field] of Object.entries(fields)) map.set(name.toLowerCase(), field);
  return map;
}
