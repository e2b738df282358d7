/**
 * The resource mechanism's own checks: a definition and its GraphQL type must agree (the start
 * stops naming what was forgotten), and discovery finds every module of a folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { modulesIn } from '../../src/discover.js';
import { column, defineResource, type ResourceDef } from '../../src/read/define.js';
import { resources } from '../../src/read/registry.js';
import { buildSchema, checkComputedTypes, checkDefinitions, checkOneSource, readSdl } from '../../src/schema.js';
import { dataTypes, type ComputedType } from '../../src/datatypes.js';
import { hrefOf } from '../../src/read/resolvers.js';

const schema = makeExecutableSchema({
  typeDefs: `
    type Query { things: [Thing!]!, thing(id: ID!): Thing! }
    type Owner { id: ID! }
    type Thing { href: String!, dataType: String!, id: ID!, name: String!, owner: Owner }
  `,
});

const thing = (over: Partial<ResourceDef> = {}): ResourceDef =>
  defineResource({
    dataType: 'Thing',
    typeName: 'Thing',
    table: 'thing',
    href: '~/things/{id}',
    idField: 'id',
    label: 'Thing',
    fields: { id: column('id', 'guid'), name: column('name', 'string') },
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
    expect(() => checkDefinitions(schema, [thing()])).not.toThrow();
  });

  test.each<[string, Partial<ResourceDef>, string]>([
    ['a field the type lacks', { fields: { id: column('id', 'guid'), name: column('name', 'string'), colour: column('colour', 'string') } }, 'Thing.colour is defined but the GraphQL type has no such field'],
    ['a type field the definition lacks', { fields: { id: column('id', 'guid') } }, 'Thing.name has no field in its resource definition'],
    ['a relation the definition lacks', { relations: {} }, 'Thing.owner has no relation in its resource definition'],
    ['a root read the schema lacks', { queries: { things: { op: 'list' }, thingByName: { op: 'get' } } }, 'declares Query.thingByName, which schema/ lacks'],
    ['a type the schema lacks', { typeName: 'Gadget' }, 'Gadget is not an object type'],
    [
      'a to-many relation without paging arguments',
      { relations: { owner: { kind: 'many', target: 'Owner', column: 'thing_id' } } },
      'Thing.owner is a to-many relation and needs the arguments (limit: Int, offset: Int)',
    ],
  ])('refuses %s, naming it', (_, over, message) => {
    expect(() => checkDefinitions(schema, [thing(over)])).toThrow(message);
  });

  test("the project's own definitions match schema/ (the app builds)", () => {
    expect(readSdl().length).toBeGreaterThan(0);
    expect(() => buildSchema()).not.toThrow();
    expect(resources.map((r) => r.typeName).sort()).toEqual([
      'AlertSubscription', 'Document', 'DocumentFile', 'DocumentIndexField', 'DocumentRevision', 'DocumentType', 'DocumentZip', 'DropDownList', 'DropDownListItem', 'Email', 'EmailAttachment', 'Folder', 'FolderIndexField', 'FormField', 'FormInstance', 'FormInstanceRevision', 'FormTemplate', 'FormTemplateRevision', 'Group', 'IndexFieldDefinition',
      'PersistedData', 'SavedSearch', 'ScheduledProcess', 'ScheduledRun', 'Script', 'SecurityMember', 'Site', 'User',
    ]);
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
