/**
 * GraphiQL's documentation explorer and the OpenAPI document (SOFA takes its route and parameter
 * descriptions from the schema) describe everything: every type, field, argument, enum value and
 * directive carries a description, from schema/ or from src/schema-conventions.ts.
 */
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType, isSpecifiedDirective, isSpecifiedScalarType, type GraphQLArgument } from 'graphql';
import { buildSchema } from '../../src/schema.js';

function undescribed(): string[] {
  const schema = buildSchema();
  const out: string[] = [];
  const args = (where: string, list: readonly GraphQLArgument[]) => {
    for (const a of list) if (!a.description) out.push(`${where}(${a.name})`);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || isSpecifiedScalarType(type)) continue;
    // The root types are containers; their fields say what they do.
    const root = ['Query', 'Mutation'].includes(type.name);
    if (!type.description && !root) out.push(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const f of Object.values(type.getFields())) {
        if (!f.description) out.push(`${type.name}.${f.name}`);
        args(`${type.name}.${f.name}`, f.args);
      }
    } else if (isInputObjectType(type)) {
      for (const f of Object.values(type.getFields())) if (!f.description) out.push(`${type.name}.${f.name}`);
    } else if (isEnumType(type)) {
      for (const v of type.getValues()) if (!v.description) out.push(`${type.name}.${v.name}`);
    }
  }
  for (const d of schema.getDirectives()) {
    if (isSpecifiedDirective(d)) continue;
    if (!d.description) out.push(`@${d.name}`);
    args(`@${d.name}`, d.args);
  }
  return out;
}

test('every type, field, argument, enum value and directive of the schema is described', () => {
  expect(undescribed()).toEqual([]);
});

test('the shared names are described once, by convention, where the SDL says nothing', () => {
  const schema = buildSchema();
  const sites = schema.getQueryType()!.getFields().sites;
  expect(sites.args.find((a) => a.name === 'q')!.description).toMatch(/query language/);
  expect(sites.args.find((a) => a.name === 'limit')!.description).toMatch(/DEFAULT_PAGE_SIZE/);
  const site = schema.getType('Site');
  expect(isObjectType(site) && site.getFields().href.description).toMatch(/REST address/);
});

test('the scalars the code defines keep the descriptions schema/base.graphql gives them', () => {
  const schema = buildSchema();
  for (const name of ['UUID', 'DateTime', 'JSON']) {
    const type = schema.getType(name)!;
    expect([name, type.description]).toEqual([name, type.astNode?.description?.value]);
    expect(type.description).toBeTruthy();
  }
});
