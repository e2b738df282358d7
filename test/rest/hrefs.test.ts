/**
 * A record's `href` is an address: for every resource definition, a GET route of the route table
 * matches its href template and answers records of that type. The few that no GET answers are
 * named below with the reason; a new resource whose href leads nowhere fails here.
 */
import { getNamedType, isObjectType } from 'graphql';
import { resources } from '../../src/read/registry.js';
import { RouteMatcher, segmentsOf } from '../../src/rest/match.js';
import { rootField } from '../../src/rest/check-routes.js';
import { isSofaRoute } from '../../src/rest/routes.js';
import { buildSchema } from '../../src/schema.js';

const NO_GET: Record<string, string> = {};

/** Answered as another type's record. */
const READ_AS: Record<string, string> = {
  // A form read by an older revision id answers that revision's values, as a form instance.
  FormInstanceRevision: 'FormInstance',
  // An attachment's address downloads its bytes.
  EmailAttachment: 'FileContent',
};

const SAMPLE_ID = '0a0a0a0a-0a0a-0a0a-0a0a-0a0a0a0a0a0a';

test('every href template is answered by a GET route that reads records of its type, but the named few', () => {
  const schema = buildSchema();
  const matcher = new RouteMatcher();
  const answered: string[] = [];
  const wrong: string[] = [];
  for (const def of resources) {
    const [path, query = ''] = def.href.replace(/^~/, '/api/v1/customer/database').replace(/\{\w+\}/g, SAMPLE_ID).split('?');
    const m = matcher.match('GET', segmentsOf(path)!, new URLSearchParams(query));
    const route = 'match' in m && isSofaRoute(m.match.route) ? m.match.route : undefined;
    const type = route && getNamedType(rootField(schema, route.field)!.type);
    const items = type && isObjectType(type) && type.name.endsWith('Page') ? type.getFields().items : undefined;
    const reads = type && getNamedType(items ? items.type : type).name;
    if (reads === (READ_AS[def.typeName] ?? def.typeName)) answered.push(def.typeName);
    else if (!(def.typeName in NO_GET)) wrong.push(`${def.typeName}: ${def.href} is answered by ${route ? route.field : 'no GET route'}`);
  }
  expect(wrong).toEqual([]);
  // The exceptions stay exceptions: one that gains a GET route leaves the list.
  expect(answered.filter((t) => t in NO_GET)).toEqual([]);
  expect(answered.length).toBe(resources.length - Object.keys(NO_GET).length);
});
