/**
 * Every resource definition, discovered from src/resources/ (each file's default export). Adding
 * a resource is adding a file there; src/schema.ts refuses to start when a definition and its
 * GraphQL type disagree.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { modulesIn } from '../discover.js';
import type { ResourceDef } from './define.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'resources');

const byType = new Map<string, ResourceDef>();
const files = new Map<ResourceDef, string>();
for (const [file, mod] of await modulesIn(dir)) {
  const def = mod.default as ResourceDef | undefined;
  if (!def?.typeName || !def.fields) throw new Error(`src/resources/${file} must export a resource definition (defineResource) as its default`);
  if (byType.has(def.typeName)) throw new Error(`Two resource definitions name the type ${def.typeName}`);
  byType.set(def.typeName, def);
  files.set(def, file);
}

export const resources: readonly ResourceDef[] = [...byType.values()];

/** The file of src/resources/ a definition came from (`site` for site.ts), so the start's checks can name it. */
export const definitionFile = (def: ResourceDef): string | undefined => files.get(def);

/** The definition of a GraphQL type (or a 500 at start-up for a definition naming an unknown one). */
export function resource(typeName: string): ResourceDef {
  const def = byType.get(typeName);
  if (!def) throw new Error(`No resource definition for ${typeName}`);
  return def;
}
