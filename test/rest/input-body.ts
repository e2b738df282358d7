/**
 * A request body built from a root field's input type: the keys `known` gives a value (matched
 * in any case), plus a value of its type for every other required field, so a new input type's
 * mandatory fields need no new test code.
 */
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';

/** A value of each scalar a required input field may have. */
const SCALARS: Record<string, unknown> = {
  String: 'conformance',
  ID: 'conformance',
  Int: 1,
  Float: 1,
  Boolean: true,
  UUID: '00000000-0000-4000-8000-000000000000',
  DateTime: '2000-01-01T00:00:00.000',
  JSON: {},
  ReleaseState: 1,
  DataScope: 1,
  CheckInStatus: 1,
};

function valueOf(type: GraphQLInputType, where: string): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return [valueOf(inner.ofType, where)];
  if (isEnumType(inner)) return inner.getValues()[0].value;
  if (isInputObjectType(inner)) return requiredOf(inner.getFields(), {}, where);
  if (isScalarType(inner) && inner.name in SCALARS) return SCALARS[inner.name];
  throw new Error(`${where}: no sample value for a required ${inner.toString()}: add one to SCALARS in test/rest/input-body.ts`);
}

function requiredOf(fields: Record<string, { name: string; type: GraphQLInputType; defaultValue?: unknown }>, known: Record<string, unknown>, where: string) {
  const body: Record<string, unknown> = {};
  for (const f of Object.values(fields)) {
    const key = Object.keys(known).find((k) => k.toLowerCase() === f.name.toLowerCase());
    if (key) body[key] = known[key];
    else if (isNonNullType(f.type) && f.defaultValue === undefined) body[f.name] = valueOf(f.type, `${where} ${f.name}`);
  }
  return body;
}

/** A value for the key `name` of the field's input `arg` (of its type where the input has it, else a string). */
export function valueFor(field: GraphQLField<unknown, unknown>, arg: string, name: string, where: string): unknown {
  const named = getNamedType(field.args.find((a) => a.name === arg)!.type);
  const f = isInputObjectType(named) ? Object.values(named.getFields()).find((x) => x.name.toLowerCase() === name.toLowerCase()) : undefined;
  return f ? valueOf(f.type, `${where} ${name}`) : SCALARS.String;
}

/** The body for the field's `arg` when it is an input object, as above; undefined for any other type (the JSON of a form's values, a script's input). */
export function bodyFor(field: GraphQLField<unknown, unknown>, arg: string, known: Record<string, unknown>, where: string): Record<string, unknown> | undefined {
  const type = field.args.find((a) => a.name === arg)?.type;
  if (!type) throw new Error(`${where}: its body argument '${arg}' is not an argument of ${field.name}`);
  const named = getNamedType(type);
  return isInputObjectType(named) ? requiredOf(named.getFields(), known, where) : undefined;
}

/** `body` as the GraphQL variable of the field's input `arg`: a number the clients send as text (KNOWN's `'1'`) as the number its type takes. */
export function asVariable(field: GraphQLField<unknown, unknown>, arg: string, body: Record<string, unknown>): Record<string, unknown> {
  const named = getNamedType(field.args.find((a) => a.name === arg)!.type);
  if (!isInputObjectType(named)) return body;
  const fields = named.getFields();
  const numeric = (k: string) => ['Int', 'Float'].includes(fields[k] ? getNamedType(fields[k].type).name : '');
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' && numeric(k) ? Number(v) : v]));
}
