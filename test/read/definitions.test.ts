/**
 * The resource mechanism's own checks: a definition and its GraphQL type must agree (the start
 * stops naming what was forgotten), and discovery finds every module of a folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { isObjectType, type GraphQLObjectType } from 'graphql';
import { modulesIn } from '../../src/discover.js';
import { column, defineResource, type ParentScope, type ResourceDef } from '../../src/read/define.js';
import { resource, resources } from '../../src/read/registry.js';
import { buildSchema, checkComputedTypes, checkDefinitions, checkNullableRoots, checkOneSource, checkRootResolvers, readSdl } from '../../src/schema.js';
import { COMPUTED_TYPES, dataTypes, type ComputedType } from '../../src/datatypes.js';
import { hrefOf } from '../../src/read/resolvers.js';

const schema = makeExecutableSchema({
  typeDefs: `
    type Query { things: [Thing!]!, thing(id: ID!): Thing! }
    type Owner { href: String!, dataType: String!, id: ID! }
    type Thing { href: String!, dataType: String!, id: ID!, name: String!, ownerId: ID, owner: Owner }
  `,
});

/** The target of Thing's relation: a definition must exist for every relation's target. */
const owner = defineResource({
  dataType: 'Owner', typeName: 'Owner', table: 'owner', href: '~/owners/{id}', idField: 'id', label: 'Owner',
  fields: { id: column('id', 'guid') }, order: 't.id', access: { see: 'tenant', change: 'admin' },
});

const thing = (over: Partial<ResourceDef> = {}): ResourceDef =>
  defineResource({
    dataType: 'Thing',
    typeName: 'Thing',
    table: 'thing',
    href: '~/things/{id}',
    idField: 'id',
    label: 'Thing',
    fields: { id: column('id', 'guid'), name: column('name', 'string'), ownerId: column('owner_id', 'guid') },
    order: 't.id',
    relations: { owner: { kind: 'one', target: 'Owner', key: 'ownerId' } },
    queries: { things: { op: 'list' }, thing: { op: 'get' } },
    access: { see: 'tenant', change: 'admin' },
    ...over,
  });

describe('checkOneSource', () => {
  test('refuses a root read both declared by a definition and written by hand, naming it; others pass', () => {
    const generated = { Query: { things: () => [] } };
    expect(() => checkOneSource(generated, [{ Query: { others: () => [] } }, { Mutation: { things: () => true } }])).not.toThrow();
    expect(() => checkOneSource(generated, [{ Query: { things: () => [] } }])).toThrow('Query.things is written by hand and declared by a resource definition');
  });
});

describe('checkDefinitions', () => {
  test('accepts a definition that matches its type', () => {
    expect(() => checkDefinitions(schema, [thing(), owner])).not.toThrow();
  });

  test.each<[string, Partial<ResourceDef>, string]>([
    ['a field the type lacks', { fields: { ...thing().fields, colour: column('colour', 'string') } }, 'Thing.colour is defined but the GraphQL type has no such field'],
    ['a type field the definition lacks', { fields: { id: column('id', 'guid') } }, 'Thing.name has no field in its resource definition'],
    ['a relation the definition lacks', { relations: {} }, 'Thing.owner has no relation in its resource definition'],
    ['a root read the schema lacks', { queries: { things: { op: 'list' }, thingByName: { op: 'get' } } }, 'declares Query.thingByName, which schema/ lacks'],
    ['a type the schema lacks', { typeName: 'Gadget' }, 'Gadget is not an object type'],
    [
      'a to-many relation without paging arguments',
      { relations: { owner: { kind: 'many', target: 'Owner', column: 'thing_id' } } },
      'Thing.owner is a to-many relation and needs the arguments (q: String, limit: Int, offset: Int)',
    ],
    ['a relation the type lacks', { relations: { owner: { kind: 'one', target: 'Owner', key: 'ownerId' }, maker: { kind: 'one', target: 'Owner', key: 'ownerId' } } }, 'Thing.maker is a relation of the definition but the GraphQL type has no such field'],
    ['a relation to a type no definition defines', { relations: { owner: { kind: 'one', target: 'Ownr', key: 'id' } } }, 'Thing.owner names the target Ownr, which no definition'],
    ['a to-one relation whose key is no field', { relations: { owner: { kind: 'one', target: 'Owner', key: 'makerId' } } }, "Thing.owner's key 'makerId' is not a field of Thing"],
    ['a to-one relation whose targetKey is no column of the target', { relations: { owner: { kind: 'one', target: 'Owner', key: 'id', targetKey: 'name' } } }, "Thing.owner's targetKey 'name' is not a column field of Owner"],
    ['a get whose id argument the root field lacks', { queries: { things: { op: 'list' }, thing: { op: 'get', arg: 'thingId' } } }, "Thing's Query.thing reads the argument 'thingId', which schema/ does not give it"],
    [
      'a parent scope whose argument the root field lacks',
      { queries: { things: { op: 'list', parent: { resource: 'Owner', arg: 'ownerId', field: 'id' } } } },
      "Thing's Query.things reads the argument 'ownerId', which schema/ does not give it",
    ],
  ])('refuses %s, naming it', (_, over, message) => {
    expect(() => checkDefinitions(schema, [thing(over), owner])).toThrow(message);
  });

  test('refuses a to-many relation without q, or without its page with the total, naming what to add', () => {
    const ARGS = '(q: String, limit: Int, offset: Int)';
    const withFields = (fields: string) =>
      makeExecutableSchema({
        typeDefs: `type Query { x: Int } type Owner { href: String!, dataType: String!, id: ID! } type OwnerPage { totalRecords: Int!, items: [Owner!]! }
          type Thing { href: String!, dataType: String!, id: ID!, name: String!, ownerId: ID, ${fields} }`,
      });
    const many = thing({ queries: {}, relations: { owners: { kind: 'many', target: 'Owner', column: 'thing_id' } } });
    const check = (fields: string) => () => checkDefinitions(withFields(fields), [many, owner]);
    expect(check(`owners(limit: Int, offset: Int): [Owner!]!, ownersPage${ARGS}: OwnerPage!`)).toThrow(
      'schema/: Thing.owners is a to-many relation and needs the arguments (q: String, limit: Int, offset: Int)',
    );
    expect(check(`owners${ARGS}: [Owner!]!, ownersPage(limit: Int, offset: Int): OwnerPage!`)).toThrow(
      'schema/: Thing.ownersPage is the page of the to-many relation owners and needs the arguments (q: String, limit: Int, offset: Int)',
    );
    const page = 'Thing.owners is a to-many relation: schema/ must give it its page with the total too, ownersPage(q: String, limit: Int, offset: Int): OwnerPage!';
    expect(check(`owners${ARGS}: [Owner!]!`)).toThrow(page);
    expect(check(`owners${ARGS}: [Owner!]!, ownersPage${ARGS}: [Owner!]!`)).toThrow(page);
    expect(check(`owners${ARGS}: [Owner!]!, ownersPage${ARGS}: OwnerPage!`)).not.toThrow();
  });

  test('refuses a parent scope under a type no definition defines, or by a field that is not a column, naming it', () => {
    const under = (parent: ParentScope) => thing({ relations: {}, queries: { things: { op: 'list', parent } } });
    const scoped = makeExecutableSchema({ typeDefs: 'type Query { things(id: ID!): [Thing!]! } type Thing { href: String!, dataType: String!, id: ID!, name: String!, ownerId: ID }' });
    expect(() => checkDefinitions(scoped, [under({ resource: 'Thing', arg: 'id', field: 'id' })])).not.toThrow();
    expect(() => checkDefinitions(scoped, [under({ resource: 'Ownr', arg: 'id', field: 'id' })])).toThrow("Thing's Query.things is under Ownr, which no definition");
    expect(() => checkDefinitions(scoped, [under({ resource: 'Thing', arg: 'id', field: 'nme' })])).toThrow("finds its parent by 'nme', which is not a column field of Thing");
  });

  test('names the file of a definition the registry loaded, and for a type schema/ lacks the SDL file to add', () => {
    expect(() => checkDefinitions(schema, [resource('Site')])).toThrow(
      'src/resources/site.ts: Site is not an object type in schema/: declare `type Site` in schema/site.graphql (docs/architecture.md, "Adding a resource", step 2)',
    );
    const bare = makeExecutableSchema({ typeDefs: 'type Query { x: Int } type Site { href: String!, dataType: String!, id: ID!, name: String! }' });
    expect(() => checkDefinitions(bare, [resource('Site')])).toThrow('src/resources/site.ts: Site.description is defined but the GraphQL type has no such field');
  });

  test("the project's own definitions match schema/ (the app builds)", () => {
    expect(readSdl().length).toBeGreaterThan(0);
    expect(() => buildSchema()).not.toThrow();
  });

  // That every file of src/resources is a definition, the registry itself checks as it loads them (src/read/registry.ts).
  test('every GraphQL record type (href, dataType) is a definition or a computed type', () => {
    const records = Object.values(buildSchema().getTypeMap()).filter((t) => isObjectType(t) && t.getFields().href && t.getFields().dataType).map((t) => t.name);
    const described = new Set([...resources.map((r) => r.typeName), ...Object.keys(COMPUTED_TYPES)]);
    expect(records.filter((t) => !described.has(t))).toEqual([]);
    expect(resources.every((r) => records.includes(r.typeName))).toBe(true);
  });
});

describe('checkRootResolvers', () => {
  const roots = makeExecutableSchema({ typeDefs: 'type Query { things: Int } type Mutation { addThing: Int }' });
  test('refuses a root field without a resolver, naming it', () => {
    expect(() => checkRootResolvers(roots, { Query: { things: () => 1 }, Mutation: { addThing: () => 1 } })).not.toThrow();
    expect(() => checkRootResolvers(roots, { Query: { things: () => 1 } })).toThrow('schema/: Mutation.addThing has no resolver');
  });
  test('takes a resolver given as { resolve }, as graphql-tools does; refuses an object without one', () => {
    expect(() => checkRootResolvers(roots, { Query: { things: { resolve: () => 1 } }, Mutation: { addThing: () => 1 } })).not.toThrow();
    expect(() => checkRootResolvers(roots, { Query: { things: { description: 'x' } }, Mutation: { addThing: () => 1 } })).toThrow('schema/: Query.things has no resolver');
  });
});

describe('checkNullableRoots', () => {
  const page = 'type ThingPage { items: [Int!]!, totalRecords: Int! }';
  const roots = (query: string, mutation = 'addThing: Int') => makeExecutableSchema({ typeDefs: `${page} type Query { ${query} } type Mutation { ${mutation} }` });
  test('takes nullable roots, and non-null pages and lists', () => {
    expect(() => checkNullableRoots(roots('thing: Int, things: ThingPage!, all: [Int!]!', 'addThing: Int, addThings: [Int!]'))).not.toThrow();
  });
  test('refuses a non-null root answering one record, and a non-null mutation of any type, naming it', () => {
    expect(() => checkNullableRoots(roots('thing: Int!'))).toThrow('schema/: Query.thing must be nullable (Int, not Int!)');
    expect(() => checkNullableRoots(roots('thing: Int', 'addThings: ThingPage!'))).toThrow('schema/: Mutation.addThings must be nullable (ThingPage, not ThingPage!)');
  });
});

describe('audit relations', () => {
  test('every record that names its creator or last changer by id reaches that user (createByUser, modifyByUser)', () => {
    for (const def of resources) {
      for (const [id, relation] of [['createById', 'createByUser'], ['modifyById', 'modifyByUser']]) {
        if (def.fields[id]) expect([def.typeName, def.relations?.[relation]]).toEqual([def.typeName, expect.objectContaining({ kind: 'one', target: 'User', key: id })]);
      }
    }
  });
});

describe('checkComputedTypes', () => {
  const computed = makeExecutableSchema({ typeDefs: 'type Query { a: Int } type Option { href: String!, dataType: String!, display: String!, value: String! }' });
  test('accepts records a resolver makes whose declared fields are their GraphQL type\'s', () => {
    expect(() => checkComputedTypes(computed, { Option: { idField: 'value', fields: { display: 'string', value: 'string' } } })).not.toThrow();
    expect(() => checkComputedTypes(buildSchema())).not.toThrow();
  });

  test.each<[string, Record<string, ComputedType>, string]>([
    ['a field the type lacks', { Option: { idField: 'value', fields: { display: 'string', value: 'string', colour: 'string' } } }, 'Option.colour is declared but the GraphQL type has no such field'],
    ['a type field the declaration lacks', { Option: { idField: 'value', fields: { value: 'string' } } }, 'schema/: Option.display is not declared'],
    ['an id field it does not declare', { Option: { idField: 'id', fields: { display: 'string', value: 'string' } } }, "Option's idField 'id' is not one of its fields"],
    ['a type the schema lacks', { Gadget: { idField: 'id', fields: { id: 'guid' } } }, 'Gadget is not an object type'],
  ])('refuses %s, naming it', (_, declared, message) => {
    expect(() => checkComputedTypes(computed, declared)).toThrow(message);
  });

  test('they are data types as the definitions are: /meta, fields= and q read them', () => {
    expect(dataTypes.get('alertevent')).toMatchObject({ typeName: 'AlertEvent', idField: 'id', availableFields: ['id', 'name', 'description', 'appliesTo'], defaultFields: ['id', 'name', 'description', 'appliesTo'] });
    expect(dataTypes.get('IndexFieldSelectOption')).toMatchObject({ idField: 'value', availableFields: ['display', 'value'] });
  });
});

describe('data types come from the definitions', () => {
  test("every definition lists its fields in its GraphQL type's order, which records show: /meta's lists follow the definition", () => {
    const types = buildSchema().getTypeMap();
    const differ = resources.flatMap((def) => {
      const own = Object.keys(def.fields);
      const shown = Object.keys((types[def.typeName] as GraphQLObjectType).getFields()).filter((f) => own.includes(f));
      return shown.join() === own.join() ? [] : [`${def.typeName}: ${own.join()} where records show ${shown.join()}`];
    });
    expect(differ).toEqual([]);
  });

  test('/meta field lists are the declared fields, in order, with the declared defaults', () => {
    const site = dataTypes.get('site')!;
    expect(site.availableFields).toEqual(['id', 'name', 'description', 'siteType', 'status']);
    expect(site.defaultFields).toEqual(site.availableFields);
    expect(site.idField).toBe('id');
    expect([...dataTypes.get('group')!.relations.values()]).toEqual(['site', 'users']);
  });
});

describe('href templates', () => {
  test('fill every {field} from the record, nested ones too', () => {
    expect(hrefOf('~/sites/{id}')({ id: 'a' })).toBe('~/sites/a');
    expect(hrefOf('~/formtemplates/{templateId}/forms/{revisionId}')({ templateId: 't1', revisionId: 'r2' })).toBe('~/formtemplates/t1/forms/r2');
  });
});

describe('modulesIn', () => {
  test('finds every .ts/.js module of a folder (not declarations, not sub-folders), in name order', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-discover-'));
    try {
      fs.writeFileSync(path.join(dir, 'b.js'), 'export default 2;');
      fs.writeFileSync(path.join(dir, 'a.js'), 'export default 1; export const extra = 3;');
      fs.writeFileSync(path.join(dir, 'a.d.ts'), 'export {};');
      fs.writeFileSync(path.join(dir, 'notes.md'), '#');
      fs.mkdirSync(path.join(dir, 'nested'));
      fs.writeFileSync(path.join(dir, 'nested', 'c.js'), 'export default 3;');
      const found = await modulesIn(dir);
      expect([...found.keys()]).toEqual(['a', 'b']);
      expect(found.get('a')).toMatchObject({ default: 1, extra: 3 });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
