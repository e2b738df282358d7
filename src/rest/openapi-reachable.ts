/**
 * The component schemas an OpenAPI document's operations reach. SOFA documents every GraphQL
 * type, the page types of relations only GraphQL reads and the inputs of mutations only GraphQL
 * runs among them; a client generator makes a type of each, so the document keeps only those
 * its paths name, directly or through other schemas.
 */
type Schema = Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';

/** The schema names that `value` refers to, at any depth. */
function namesReferredIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) namesReferredIn(v, found);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string' && v.startsWith(SCHEMA_REF)) found.push(v.slice(SCHEMA_REF.length));
      else namesReferredIn(v, found);
    }
  }
  return found;
}

/** `schemas` less those that nothing in `paths` reaches through a chain of `$ref`s. */
export function reachableSchemas(schemas: Record<string, Schema>, paths: unknown): Record<string, Schema> {
  const reached = new Set<string>();
  const queue = namesReferredIn(paths);
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (reached.has(name) || !schemas[name]) continue;
    reached.add(name);
    queue.push(...namesReferredIn(schemas[name]));
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name)));
}
