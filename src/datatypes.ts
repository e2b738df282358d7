/**
 * The legacy data types as the REST face and /meta see them, taken from the resource
 * definitions (src/resources/) and the few records a resolver makes (COMPUTED_TYPES): the one
 * source for /meta, the REST field projection and `expand`.
 */
import { FieldMap, type FieldType, type QueryField, type QueryFieldMap } from './query/fields.js';
import type { Sql } from './sql.js';
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

/** A record a resolver makes rather than reads through a resource definition: its API fields, each with its `q` type (null: `q` cannot name it). */
export interface ComputedType {
  idField: string;
  fields: Record<string, FieldType | null>;
}

/**
 * Records no table holds, by GraphQL type (also their data type), with their fields in the order
 * records show them (their GraphQL type's, but href and dataType: the start checks,
 * checkComputedTypes in src/schema.ts). Every field is a default one. The resolver that makes them
 * applies `q` over the fields with a type.
 */
export const COMPUTED_TYPES: Record<string, ComputedType> = {
  // An option of a drop-down index field has no id: its value is what a document stores.
  IndexFieldSelectOption: { idField: 'value', fields: { display: 'string', value: 'string' } },
  // One of the fixed events of src/alert-events.ts; what it applies to is a list, which q cannot compare.
  AlertEvent: { idField: 'id', fields: { id: 'guid', name: 'string', description: 'string', appliesTo: null } },
  // A field documents have (src/domain/document-fields.ts), named by its API name.
  DocumentField: {
    idField: 'name',
    fields: { name: 'string', label: 'string', databaseField: 'string', fieldType: 'integer', valueType: 'string', queryable: 'boolean' },
  },
};

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
        relations: new Map(Object.entries(def.relations ?? {}).filter(([, r]) => !r.graphqlOnly).map(([r]) => [r.toLowerCase(), r])),
        scalarTypes: new Map(fields.map(([n, f]) => [n, f.type])),
        dynamic: def.dynamic?.field,
      };
      this.add(info);
    }
    for (const [name, c] of Object.entries(COMPUTED_TYPES)) {
      const fields = Object.keys(c.fields);
      this.add({
        name,
        typeName: name,
        idField: c.idField,
        availableFields: fields,
        defaultFields: fields,
        alwaysFields: [],
        relations: new Map(),
        scalarTypes: new Map(Object.entries(c.fields).filter((e): e is [string, FieldType] => e[1] !== null)),
      });
    }
  }

  private add(info: DataTypeInfo): void {
    this.byName.set(info.name.toLowerCase(), info);
    this.byTypeName.set(info.typeName, info);
  }

  get(name: string): DataTypeInfo | undefined {
    return this.byName.get(name.toLowerCase());
  }
}

export const dataTypes = new DataTypes();

/**
 * The `q` field map of a computed type (COMPUTED_TYPES): its fields that have a `q` type, each
 * compared as `sqlOf` says it is held where the resolver reads its records.
 */
export function computedQueryFields(typeName: string, sqlOf: (field: string) => Sql): QueryFieldMap {
  return new FieldMap(Object.entries(COMPUTED_TYPES[typeName].fields).flatMap(([name, type]): [string, QueryField][] => (type ? [[name, { sql: sqlOf(name), type }]] : [])));
}
