/** Joins the SDL in schema/ with the resolvers; href and dataType come from @dataType. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { mergeResolvers } from '@graphql-tools/merge';
import type { GraphQLSchema } from 'graphql';
import { dataTypesOf } from './resolvers/schema-info.js';
import { groupResolvers } from './resolvers/group.js';
import { metaResolvers } from './resolvers/meta.js';
import { siteResolvers } from './resolvers/site.js';
import { userResolvers } from './resolvers/user.js';
import { scalarResolvers } from './scalars.js';

const SCHEMA_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'schema');

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
  const envelopeFields: Record<string, Record<string, (o: { id: string }) => string>> = {};
  for (const dt of dataTypesOf(plain).byTypeName.values()) {
    envelopeFields[dt.typeName] = {
      dataType: () => dt.name,
      href: (o) => `~/${dt.path}/${o.id}`,
    };
  }
  return makeExecutableSchema({ typeDefs, resolvers: mergeResolvers([resolvers, envelopeFields]) });
}
