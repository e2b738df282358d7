/** Per-schema derived facts, computed once per schema object. */
import type { GraphQLSchema } from 'graphql';
import { DataTypes } from '../datatypes.js';

const cache = new WeakMap<GraphQLSchema, DataTypes>();

export function dataTypesOf(schema: GraphQLSchema): DataTypes {
  let dt = cache.get(schema);
  if (!dt) cache.set(schema, (dt = new DataTypes(schema)));
  return dt;
}
