/** The `q` field map of a resource: its declared fields, and the keys of its dynamic JSONB column. */
import { FieldMap, type QueryField, type QueryFieldMap } from '../query/fields.js';
import type { DynamicFields, ResourceDef } from './define.js';
import { join, raw, sql } from '../sql.js';

const maps = new WeakMap<ResourceDef, QueryFieldMap>();

/** Filters use the same SQL as the select list: what `q` compares is what a record shows. */
export function queryFieldMap(def: ResourceDef): QueryFieldMap {
  let map = maps.get(def);
  if (!map) {
    // Named as the definition names them, which is how records spell them.
    const declared = new FieldMap([
      ...Object.entries(def.fields).map(([name, f]): [string, QueryField] => [name, { sql: raw(f.sql), type: f.type }]),
      hrefField(def),
      // Every record shows it, so a dynamic key of that name (a form's `datatype`) is no field of its own (src/rest/envelope.ts).
      ['dataType', { sql: sql`${def.dataType}::text`, type: 'string' }],
    ]);
    map = def.dynamic ? withDynamic(declared, def.dynamic) : declared;
    maps.set(def, map);
  }
  return map;
}

/**
 * `href`, which every record shows beside its fields (the spec lists it as a field of each data
 * type): its template over the fields' SQL, as `hrefOf` writes it from the row.
 */
function hrefField(def: ResourceDef): [string, QueryField] {
  const parts = def.href
    .split(/\{(\w+)\}/)
    .map((part, i) => (i % 2 ? sql`(${raw(def.fields[part].sql)})::text` : part && sql`${part}::text`))
    .filter((part) => part !== '');
  return ['href', { sql: sql`(${join(parts, ' || ')})`, type: 'string' }];
}

/** Any other name is a key of the JSONB column (matched as written in lower case), bound as a parameter; a key a row lacks is unset. */
function withDynamic(declared: FieldMap, d: DynamicFields): QueryFieldMap {
  const search = d.search;
  const eqHint = search ? (name: string) => (v: string) => sql`t.${raw(search)} @> jsonb_build_object(${name}::text, lower(${v}))` : undefined;
  return {
    get: (name) => declared.get(name) ?? { sql: sql`(t.${raw(d.column)} ->> ${name})`, type: d.type, eqHint: eqHint?.(name), nullIsEmpty: true, foldsCaseOnly: true },
    names: () => declared.names(),
  };
}
