/**
 * What SOFA's OpenAPI document of its internal routes, and the schema, say of a root field: its
 * operation, its arguments' schemas, the records it answers and the descriptions. The other
 * openapi-*.ts files build the legacy routes' document from these.
 */
import type { GraphQLSchema } from 'graphql';
import { rootField } from './check-routes.js';
import { sofaPath } from './sofa-setup.js';

export type Schema = Record<string, unknown>;
export type Operation = Record<string, unknown>;
export type SofaDoc = { components?: { schemas?: Record<string, Schema> }; paths?: Record<string, Record<string, Operation>> };

/** SOFA's operation for a root field (its internal route is a POST with every argument in a JSON body). */
export function sofaOperation(doc: SofaDoc, field: string): Operation {
  const op = doc.paths?.[sofaPath(field)]?.post;
  if (!op) throw new Error(`SOFA documented no operation for ${field}`);
  return op;
}

export function argumentSchemas(op: Operation): { properties: Record<string, Schema>; required: string[] } {
  const body = (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content?.['application/json']?.schema;
  return { properties: (body?.properties ?? {}) as Record<string, Schema>, required: (body?.required ?? []) as string[] };
}

/** The schema of the records a field answers: its type, or its page type's `items`. */
export function recordSchema(op: Operation, schemas: Record<string, Schema>): Schema | undefined {
  const result = (op.responses as Record<string, { content?: Record<string, { schema?: Schema }> }>)?.[Object.keys(op.responses as object)[0]]?.content?.['application/json']?.schema;
  const name = typeof result?.$ref === 'string' ? result.$ref.split('/').pop()! : undefined;
  const items = name ? (schemas[name]?.properties as Record<string, Schema> | undefined)?.items : undefined;
  if (items) return (items.items as Schema | undefined) ?? items;
  // A plain list (no page type): its elements are the records, which the envelope's `data` lists.
  if (result?.type === 'array') return (result.items as Schema | undefined) ?? {};
  return result;
}

/**
 * The root field's description and its arguments', from the schema: SOFA reads them from the
 * SDL's syntax tree, which lacks those the schema adds by convention (src/schema-conventions.ts).
 */
export function descriptionsOf(schema: GraphQLSchema, field: string): { field?: string; args: Map<string, string> } {
  const f = rootField(schema, field);
  return { field: f?.description ?? undefined, args: new Map((f?.args ?? []).filter((a) => a.description).map((a) => [a.name, a.description!])) };
}
