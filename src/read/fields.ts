/** The `q` field map of a resource: its declared fields, and the keys of its dynamic JSONB column. */
import type { QueryField, QueryFieldMap } from '../query/fields.js';
import type { DynamicFields, ResourceDef } from './define.js';
import { raw, sql } from '../sql.js';

const maps = new WeakMap<ResourceDef, QueryFieldMap>();

/** Filters use the same SQL as the select list: what `q` compares is what a record shows. */
export function queryFieldMap(def: ResourceDef): QueryFieldMap {
  let map = maps.get(def);
  if (!map) {
    const declared = new Map<string, QueryField>(
      Object.entries(def.fields).map(([name, f]) => [name.toLowerCase(), { sql: raw(f.sql), type: f.type }]),
    );
    map = def.dynamic ? withDynamic(declared, def.dynamic) : declared;
    maps.set(def, map);
  }
  return map;
}

/** Any other name is a key of the JSONB column (matched as written in lower case), bound as a parameter; a key a row lacks is unset. */
function withDynamic(declared: Map<string, QueryField>, d: DynamicFields): QueryFieldMap {
  const search = d.search;
  const eqHint = search ? (name: string) => (v: string) => sql`t.${raw(search)} @> jsonb_build_object(${name}::text, lower(${v}))` : undefined;
  return {
    get: (name) => declared.get(name) ?? { sql: sql`(t.${raw(d.column)} ->> ${name})`, type: d.type, eqHint: eqHint?.(name), nullIsEmpty: true },
    keys: () => declared.keys(),
  };
}
