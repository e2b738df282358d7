/**
 * Joins the SDL in schema/ with the resolvers: those the resource definitions imply
 * (src/read/resolvers.ts) and the hand-written ones discovered in src/resolvers/ (each file's
 * `resolvers` export). Root fields marked `@allow` get their access check here, once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { mergeResolvers } from '@graphql-tools/merge';
import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import { defaultFieldResolver, getNamedType, isListType, isNonNullType, isObjectType, isScalarType, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { enforce, type AllowRule } from './permissions/access.js';
import type { AppContext } from './context.js';
import { modulesIn } from './discover.js';
import type { ResourceDef } from './read/define.js';
import { COMPUTED_TYPES, type ComputedType } from './datatypes.js';
import { generatedResolvers, relationPageField, type Page } from './read/resolvers.js';
import { definitionFile, resources } from './read/registry.js';
import { scalarResolvers } from './scalars.js';
import { inTransaction } from './db/transaction.js';
import { isPageType, withConventionalDescriptions } from './schema-conventions.js';
import { withFieldPaths } from './field-paths.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
// The project's schema/ folder, found from src/ (tsx, tests) and from dist/src/ (npm start) alike.
const SCHEMA_DIR = schemaDir(HERE);

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

type Resolvers = Record<string, Record<string, unknown>>;

const handWritten: Resolvers[] = [];
for (const [file, mod] of await modulesIn(path.join(HERE, 'resolvers'))) {
  if (!mod.resolvers) throw new Error(`src/resolvers/${file} must export its resolvers as 'resolvers'`);
  handWritten.push(mod.resolvers as Resolvers);
}

/** Stops the start when a definition and its GraphQL type disagree, naming what to fix. */
export function checkDefinitions(schema: GraphQLSchema, defs: readonly ResourceDef[]): void {
  const known = new Map(defs.map((d) => [d.typeName, d]));
  for (const def of defs) {
    const file = definitionFile(def);
    // The definition's own file where the registry loaded it: the message names the file to fix.
    const src = file ? `src/resources/${file}.ts` : 'src/resources';
    const type = schema.getType(def.typeName);
    if (!isObjectType(type)) {
      throw new Error(`${src}: ${def.typeName} is not an object type in schema/: declare \`type ${def.typeName}\` in schema/${file ?? '<name>'}.graphql (docs/architecture.md, "Adding a resource", step 2)`);
    }
    const typeFields = type.getFields();
    // Each to-many relation has two fields: its list, and its page with the total (`usersPage`).
    const pageOf = new Map(Object.entries(def.relations ?? {}).filter(([, r]) => r.kind !== 'one').map(([n]) => [relationPageField(n), n]));
    for (const name of Object.keys(def.fields)) {
      if (!typeFields[name]) throw new Error(`${src}: ${def.typeName}.${name} is defined but the GraphQL type has no such field`);
    }
    for (const [name, f] of Object.entries(typeFields)) {
      const scalar = isScalarType(getNamedType(f.type));
      if (name === 'href' || name === 'dataType' || name === def.dynamic?.field) continue;
      if (scalar && !def.fields[name]) throw new Error(`schema/: ${def.typeName}.${name} has no field in its resource definition (${src})`);
      const ofPage = pageOf.get(name);
      if (!scalar && !def.relations?.[name] && !ofPage) throw new Error(`schema/: ${def.typeName}.${name} has no relation in its resource definition (${src})`);
      // To-many relations are read a page at a time, filtered as the target's list: the field must let the caller ask so.
      const paged = ['q', 'limit', 'offset'].every((a) => f.args.some((x) => x.name === a));
      if (!scalar && def.relations?.[name]?.kind !== 'one' && !paged) {
        const what = ofPage ? `the page of the to-many relation ${ofPage}` : 'a to-many relation';
        throw new Error(`schema/: ${def.typeName}.${name} is ${what} and needs the arguments (q: String, limit: Int, offset: Int)`);
      }
    }
    for (const [name, rel] of Object.entries(def.relations ?? {})) {
      const at = `${src}: ${def.typeName}.${name}`;
      if (!typeFields[name]) throw new Error(`${at} is a relation of the definition but the GraphQL type has no such field`);
      const target = known.get(rel.target);
      if (!target) throw new Error(`${at} names the target ${rel.target}, which no definition in src/resources defines`);
      if (rel.kind === 'one') {
        if (!def.fields[rel.key]) throw new Error(`${at}'s key '${rel.key}' is not a field of ${def.typeName}`);
        if (rel.targetKey && !target.fields[rel.targetKey]?.column) throw new Error(`${at}'s targetKey '${rel.targetKey}' is not a column field of ${rel.target}`);
      } else {
        if (rel.parentKey && !def.fields[rel.parentKey]) throw new Error(`${at}'s parentKey '${rel.parentKey}' is not a field of ${def.typeName}`);
        const page = typeFields[relationPageField(name)];
        const pageType = `${rel.target}Page!`;
        if (page?.type.toString() !== pageType) {
          throw new Error(`${at} is a to-many relation: schema/ must give it its page with the total too, ${relationPageField(name)}(q: String, limit: Int, offset: Int): ${pageType}`);
        }
      }
    }
    for (const [field, read] of Object.entries(def.queries ?? {})) {
      const root = schema.getQueryType()?.getFields()[field];
      if (!root) throw new Error(`${src}: ${def.typeName} declares Query.${field}, which schema/ lacks`);
      const args = [...(read.op === 'get' ? [read.arg ?? 'id'] : []), ...(read.parent ? [read.parent.arg] : [])];
      for (const arg of args) {
        if (!root.args.some((a) => a.name === arg)) throw new Error(`${src}: ${def.typeName}'s Query.${field} reads the argument '${arg}', which schema/ does not give it`);
      }
      const scope = read.parent;
      if (scope && !known.has(scope.resource)) throw new Error(`${src}: ${def.typeName}'s Query.${field} is under ${scope.resource}, which no definition in src/resources defines`);
      if (scope && 'field' in scope && !def.fields[scope.field]?.column) throw new Error(`${src}: ${def.typeName}'s Query.${field} finds its parent by '${scope.field}', which is not a column field of ${def.typeName}`);
    }
  }
}

/** A resolver as graphql-tools takes it: a function, or an object with a `resolve` function. */
const isResolver = (r: unknown) => typeof r === 'function' || typeof (r as { resolve?: unknown } | undefined)?.resolve === 'function';

/** Stops the start when a root field has no resolver (neither a definition's `queries` nor src/resolvers/ gives one), naming it. */
export function checkRootResolvers(schema: GraphQLSchema, resolvers: Resolvers): void {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.keys(type?.getFields() ?? {})) {
      if (!isResolver(resolvers[type!.name]?.[field])) throw new Error(`schema/: ${type!.name}.${field} has no resolver: declare it in a definition's queries (src/resources) or write it in src/resolvers/`);
    }
  }
}

/**
 * Stops the start when a root field that may fail on its own is non-null: every Mutation field and
 * every Query field answering one record. Non-null, one alias's error made the whole `data` null,
 * losing the other aliases' answers (and mutations already committed). Pages and lists may stay
 * non-null: they fail only on bad arguments.
 */
export function checkNullableRoots(schema: GraphQLSchema): void {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      if (!isNonNullType(field.type)) continue;
      const inner = field.type.ofType;
      if (type === schema.getQueryType() && (isListType(inner) || isPageType(inner))) continue;
      throw new Error(`schema/: ${type!.name}.${field.name} must be nullable (${inner}, not ${field.type}), so that its error leaves the other fields' answers`);
    }
  }
}

/** Stops the start when a record a resolver makes (src/datatypes.ts) and its GraphQL type disagree, naming what to fix. */
export function checkComputedTypes(schema: GraphQLSchema, declared: Record<string, ComputedType> = COMPUTED_TYPES): void {
  for (const [name, c] of Object.entries(declared)) {
    const type = schema.getType(name);
    if (!isObjectType(type)) throw new Error(`src/datatypes.ts: ${name} is not an object type in schema/`);
    const typeFields = type.getFields();
    for (const field of Object.keys(c.fields)) {
      if (!typeFields[field]) throw new Error(`src/datatypes.ts: ${name}.${field} is declared but the GraphQL type has no such field`);
    }
    for (const field of Object.keys(typeFields)) {
      if (field !== 'href' && field !== 'dataType' && !(field in c.fields)) throw new Error(`schema/: ${name}.${field} is not declared in COMPUTED_TYPES (src/datatypes.ts)`);
    }
    if (!(c.idField in c.fields)) throw new Error(`src/datatypes.ts: ${name}'s idField '${c.idField}' is not one of its fields`);
  }
}

/** Runs every Mutation field in one transaction (src/db/transaction.ts), after its access check, but those marked `@outsideTransaction`. */
function withTransactions(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.MUTATION_ROOT_FIELD]: (config) => {
      if (getDirective(schema, config, 'outsideTransaction')?.length) return config;
      const resolve = config.resolve ?? defaultFieldResolver;
      return { ...config, resolve: (source, args, ctx: AppContext, info) => inTransaction(ctx, (tx) => Promise.resolve(resolve(source, args, tx, info))) };
    },
  });
}

/** Wraps every root field that declares `@allow` with its access check. */
function withAccessChecks(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.ROOT_FIELD]: (config) => {
      const rule = getDirective(schema, config, 'allow')?.[0] as AllowRule | undefined;
      if (!rule || rule.to === 'TENANT') return config;
      const resolve = config.resolve ?? defaultFieldResolver;
      return {
        ...config,
        resolve: async (source, args, ctx: AppContext, info) => {
          await enforce(rule, ctx, args);
          return resolve(source, args, ctx, info);
        },
      };
    },
  });
}

/**
 * One source for each root read: a resource definition declares it (`queries`), or src/resolvers/
 * writes it, never both (the hand-written one would silently replace the declared one).
 */
export function checkOneSource(generated: Resolvers, written: Resolvers[]): void {
  const declared = new Set(Object.keys((generated.Query as object | undefined) ?? {}));
  for (const r of written) {
    for (const field of Object.keys((r.Query as object | undefined) ?? {})) {
      if (declared.has(field)) throw new Error(`src/resolvers: Query.${field} is written by hand and declared by a resource definition in src/resources: keep one`);
    }
  }
}

export function buildSchema(): GraphQLSchema {
  const typeDefs = readSdl();
  const plain = makeExecutableSchema({ typeDefs });
  checkDefinitions(plain, resources);
  checkComputedTypes(plain);
  checkNullableRoots(plain);
  // Pages compute their items and total only when selected (see src/read/resolvers.ts).
  const pages: Resolvers = {};
  for (const type of Object.values(plain.getTypeMap())) {
    if (isPageType(type)) {
      pages[type.name] = { items: (p: Page<unknown>, _: unknown, __: unknown, info: GraphQLResolveInfo) => p.items(info), totalRecords: (p: Page<unknown>) => p.totalRecords() };
    }
  }
  const generated = generatedResolvers();
  checkOneSource(generated, handWritten);
  const resolvers = mergeResolvers([scalarResolvers, generated, pages, ...handWritten]);
  checkRootResolvers(plain, resolvers as Resolvers);
  return withFieldPaths(withAccessChecks(withTransactions(withConventionalDescriptions(makeExecutableSchema({ typeDefs, resolvers })))));
}
