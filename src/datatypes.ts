/**
 * The legacy data types, read from the schema's @dataType / @expandOnly directives: the one
 * source for /meta, the REST field projection, href/dataType on records and the `q` field maps.
 */
import {
  getNamedType,
  GraphQLObjectType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { getDirective } from '@graphql-tools/utils';
import type { FieldType } from './query/fields.js';

export interface DataTypeInfo {
  name: string;
  typeName: string;
  path: string;
  idField: string;
  availableFields: string[];
  defaultFields: string[];
  /** Object-typed fields (relations) that `expand=<name>` adds. */
  relations: Map<string, string>;
  /** Scalar fields with the `q` type of each (href and dataType excluded). */
  scalarTypes: Map<string, FieldType>;
}

const ENVELOPE_FIELDS = new Set(['href', 'dataType']);

const scalarToQ: Record<string, FieldType> = {
  UUID: 'guid',
  String: 'string',
  ID: 'string',
  Int: 'integer',
  Float: 'integer',
  Boolean: 'boolean',
  DateTime: 'datetime',
};

export class DataTypes {
  readonly byName = new Map<string, DataTypeInfo>();
  readonly byTypeName = new Map<string, DataTypeInfo>();

  constructor(schema: GraphQLSchema) {
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type)) continue;
      const d = getDirective(schema, type, 'dataType')?.[0];
      if (!d) continue;
      const info = describe(schema, type, d.name as string, d.path as string);
      this.byName.set(info.name.toLowerCase(), info);
      this.byTypeName.set(type.name, info);
    }
  }

  get(name: string): DataTypeInfo | undefined {
    return this.byName.get(name.toLowerCase());
  }
}

function describe(schema: GraphQLSchema, type: GraphQLObjectType, name: string, path: string): DataTypeInfo {
  const availableFields: string[] = [];
  const defaultFields: string[] = [];
  const relations = new Map<string, string>();
  const scalarTypes = new Map<string, FieldType>();
  for (const field of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
    const named = getNamedType(field.type);
    if (isObjectType(named)) {
      relations.set(field.name.toLowerCase(), field.name);
      continue;
    }
    if (ENVELOPE_FIELDS.has(field.name)) continue;
    availableFields.push(field.name);
    if (!getDirective(schema, field, 'expandOnly')?.length) defaultFields.push(field.name);
    if (isScalarType(named)) scalarTypes.set(field.name, scalarToQ[named.name] ?? 'string');
  }
  return { name, typeName: type.name, path, idField: 'id', availableFields, defaultFields, relations, scalarTypes };
}
