/**
 * The component schemas of the OpenAPI document (src/rest/openapi.ts): SOFA's, made to say what
 * the server sends and takes.
 */
import { getNamedType, isInputObjectType, isNonNullType, isObjectType, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import { dataTypes } from '../datatypes.js';
import { ref } from './openapi-envelope.js';
import type { Schema } from './openapi-sofa.js';
import { DATE_TIME_PATTERN } from './sofa-setup.js';

/**
 * A DateTime the server takes (a body's key, a query parameter): any ISO 8601 date or date-time,
 * UTC when it names no zone (src/scalars.ts), not only the form it writes.
 */
export function asDateTimeInput(s: Schema | undefined): Schema | undefined {
  if (!s || s.pattern !== DATE_TIME_PATTERN) return s;
  const { pattern: _, ...rest } = s;
  return { ...rest, description: [rest.description, 'An ISO 8601 date or date-time (`2024-01-31`, `2024-01-31T13:45:00`, a zone optional: UTC without one).'].filter(Boolean).join(' ') };
}

/**
 * GraphQL's nullable fields as `nullable` (OpenAPI 3.0): SOFA leaves them out, and a record's
 * field can be null (a pending zip's size, a document's reviewDate). Input types' DateTime keys
 * take what the scalar reads.
 */
function nullsAndInputs(schemas: Record<string, Schema>, schema: GraphQLSchema): void {
  for (const [name, s] of Object.entries(schemas)) {
    const type = schema.getType(name);
    const properties = s.properties as Record<string, Schema> | undefined;
    if (!properties || !(isObjectType(type) || isInputObjectType(type))) continue;
    for (const [fieldName, field] of Object.entries(type.getFields())) {
      let p = properties[fieldName];
      if (!p) continue;
      if (isInputObjectType(type) && getNamedType(field.type as GraphQLInputType)?.name === 'DateTime') p = properties[fieldName] = asDateTimeInput(p)!;
      // A list of input objects: its elements' type (SOFA writes a bare object).
      const named = getNamedType(field.type as GraphQLInputType);
      const items = p.items as Schema | undefined;
      if (isInputObjectType(named) && p.type === 'array' && items?.type === 'object' && !items.properties && schemas[named.name]) p.items = ref(named.name);
      // Only beside `type`: OpenAPI 3.0 ignores `nullable` without one (a $ref'd type is left as it is).
      if (!isNonNullType(field.type) && typeof p.type === 'string') p.nullable = true;
    }
  }
}

/** A field's description beside its `$ref` (SOFA's), which OpenAPI 3.0 ignores, stands beside an `allOf` of it instead. */
function describedRefs(schemas: Record<string, Schema>): void {
  for (const s of Object.values(schemas)) {
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    for (const [name, { $ref, ...rest }] of Object.entries(properties)) {
      if ($ref && Object.keys(rest).length) properties[name] = { ...rest, allOf: [{ $ref }] };
    }
  }
}

/**
 * A record's `required` keys: those every default answer carries (href, dataType and the data
 * type's default fields, src/resources/), since `fields=` and the defaults decide what is sent;
 * a field only `expand=` or `fields=` brings is optional.
 */
function requiredOfRecords(schemas: Record<string, Schema>): void {
  for (const [name, s] of Object.entries(schemas)) {
    const dt = dataTypes.byTypeName.get(name);
    if (!dt || !Array.isArray(s.required)) continue;
    const sent = new Set(['href', 'dataType', ...dt.defaultFields]);
    s.required = (s.required as string[]).filter((f) => sent.has(f));
  }
}

/** SOFA's component schemas, made to say what the server sends (a copy: SOFA's stay as they are). */
export function truthfulSchemas(schemas: Record<string, Schema>, schema: GraphQLSchema): Record<string, Schema> {
  const out = structuredClone(schemas);
  requiredOfRecords(out);
  nullsAndInputs(out, schema);
  describedRefs(out);
  // A type code or its name (src/domain/index-fields.ts); clients send the code as a JSON number.
  const fieldType = (out.IndexFieldInput?.properties as Record<string, Schema> | undefined)?.fieldType;
  if (fieldType) {
    const { type: _, nullable: __, ...rest } = fieldType;
    (out.IndexFieldInput.properties as Record<string, Schema>).fieldType = { ...rest, oneOf: [{ type: 'integer' }, { type: 'string' }] };
  }
  return out;
}
