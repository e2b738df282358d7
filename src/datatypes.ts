/**
 * The legacy data types as the REST face and /meta see them, taken from the resource
 * definitions (src/resources/): the one source for /meta, the REST field projection and `expand`.
 */
import type { FieldType } from './query/fields.js';
import { resources } from './read/registry.js';

export interface DataTypeInfo {
  name: string;
  typeName: string;
  idField: string;
  availableFields: string[];
  defaultFields: string[];
  /** Fields answered whatever `fields=` names (it adds to them). */
  alwaysFields: string[];
  /** Relations that `expand=<name>` adds, by lower-case name. */
  relations: Map<string, string>;
  /** The field whose JSON object REST spreads into the record (form values). */
  dynamic?: string;
  /** Fields with the `q` type of each. */
  scalarTypes: Map<string, FieldType>;
}

export class DataTypes {
  readonly byName = new Map<string, DataTypeInfo>();
  readonly byTypeName = new Map<string, DataTypeInfo>();

  constructor() {
    for (const def of resources) {
      const fields = Object.entries(def.fields);
      const info: DataTypeInfo = {
        name: def.dataType,
        typeName: def.typeName,
        idField: def.idField,
        availableFields: fields.map(([n]) => n),
        defaultFields: fields.filter(([, f]) => f.default).map(([n]) => n),
        alwaysFields: fields.filter(([, f]) => f.always).map(([n]) => n),
        relations: new Map(Object.keys(def.relations ?? {}).map((r) => [r.toLowerCase(), r])),
        scalarTypes: new Map(fields.map(([n, f]) => [n, f.type])),
        dynamic: def.dynamic?.field,
      };
      this.byName.set(info.name.toLowerCase(), info);
      this.byTypeName.set(def.typeName, info);
    }
  }

  get(name: string): DataTypeInfo | undefined {
    return this.byName.get(name.toLowerCase());
  }
}

export const dataTypes = new DataTypes();
