/** Joins the SDL in schema/ with the resolvers; href and dataType come from @dataType, page fields from *Page types. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { mergeResolvers } from '@graphql-tools/merge';
import { isObjectType, type GraphQLSchema } from 'graphql';
import type { Page } from './resolvers/lists.js';
import { dataTypesOf } from './resolvers/schema-info.js';
import { groupResolvers } from './resolvers/group.js';
import { metaResolvers } from './resolvers/meta.js';
import { siteResolvers } from './resolvers/site.js';
import { userResolvers } from './resolvers/user.js';
import { scalarResolvers } from './scalars.js';

// The project's schema/ folder, found from src/ (tsx, tests) and from dist/src/ (npm start) alike.
const SCHEMA_DIR = schemaDir(path.dirname(fileURLToPath(import.meta.url)));

function schemaDir(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'schema');
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${from}`);
  }
}

export function readSdl(): string[] {
  return fs
    .readdirSync(SCHEMA_DIR)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => fs.readFileSync(path.join(SCHEMA_DIR, f), 'utf8'));
}

export function buildSchema(): GraphQLSchema {
  const typeDefs = readSdl();
  const resolvers = mergeResolvers([scalarResolvers, metaResolvers, siteResolvers, groupResolvers, userResolvers]);
  // Two passes: the first schema tells which types carry @dataType; the second adds their resolvers.
  const plain = makeExecutableSchema({ typeDefs });
  const generated: Record<string, Record<string, (o: never) => unknown>> = {};
  for (const dt of dataTypesOf(plain).byTypeName.values()) {
    generated[dt.typeName] = {
      dataType: () => dt.name,
      href: (o: { id: string }) => `~/${dt.path}/${o.id}`,
    };
  }
  // Pages compute their items and total only when selected (see resolvers/lists.ts).
  for (const type of Object.values(plain.getTypeMap())) {
    if (isObjectType(type) && type.name.endsWith('Page') && type.getFields().items && type.getFields().totalRecords) {
      generated[type.name] = { items: (p: Page<unknown>) => p.items(), totalRecords: (p: Page<unknown>) => p.totalRecords() };
    }
  }
  return makeExecutableSchema({ typeDefs, resolvers: mergeResolvers([resolvers, generated]) });
}
