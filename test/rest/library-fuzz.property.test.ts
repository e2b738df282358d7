/**
 * The document library's writes with real ids in their paths and junk in their bodies and query
 * strings (test/fuzz.property.test.ts puts junk in the ids, so its requests stop at the path),
 * sent by an administrator or by an ordinary user who is an Editor of the folder (so the role
 * checks run too): every answer is a 2xx or a 4xx envelope, never a 5xx, and the library still
 * reads afterwards. FUZZ_RUNS sets the number of requests (default 300).
 */
import fc from 'fast-check';
import { getNamedType, isInputObjectType } from 'graphql';
import { isSofaRoute, routes, type SofaRoute } from '../../src/rest/routes.js';
import { buildSchema } from '../../src/schema.js';
import { type Api, createGroup, uniq } from './support.js';
import { A, plain, setUpTwoTenants } from './two-tenants.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const LIBRARY = /^\/(folders|documents|indexfields|lists|securitymembers)\b/;

/** An ordinary user, Editor of the fixtures' folder. */
let E: Api;
let editorId: string;
/** A real value for each path parameter, refreshed when a request deletes what it named. */
let ids: Record<string, string>;

async function fixtures(): Promise<Record<string, string>> {
  const folder = (await A.post('/folders', { folderpath: `/${uniq('Fuzz')}/inner` })).body.data;
  const field = (await A.post('/indexfields', { label: uniq('FuzzField'), fieldType: 'Text' })).body.data;
  await A.put(`/indexfields/${field.id}/folders/${folder.id}`);
  const doc = (await A.post('/documents', { folderId: folder.id, name: uniq('FuzzDoc') })).body.data;
  const list = (await A.post('/lists', { Name: uniq('FuzzList'), Items: [{ itemName: 'a' }] })).body.data;
  const group = await createGroup(A);
  await A.put(`/folders/${folder.id}/securitymembers/${group.id}`, { securityRole: 2 });
  await A.put(`/folders/${folder.id}/securitymembers/${editorId}`, { securityRole: 2 });
  return { folder: folder.id, field: field.id, document: doc.documentId, revision: doc.id, list: list.listID, member: group.id };
}

setUpTwoTenants();
beforeAll(async () => {
  E = A.as(plain.token);
  editorId = plain.id;
  ids = await fixtures();
});

const schema = buildSchema();
const rows = routes.filter(isSofaRoute).filter((r) => LIBRARY.test(r.path) && r.method !== 'GET');

/** The keys of a row's body (its input type's fields) and of its other arguments. */
function keysOf(r: SofaRoute): string[] {
  const [op, name] = r.field.split('.');
  const field = (op === 'Query' ? schema.getQueryType() : schema.getMutationType())!.getFields()[name];
  const body = r.body ? getNamedType(field.args.find((a) => a.name === r.body)!.type) : undefined;
  return [...field.args.map((a) => a.name), ...(body && isInputObjectType(body) ? Object.keys(body.getFields()) : [])];
}

/** A path parameter's real value, by its name and the segment before it. */
function valueOf(param: string, previous: string): string {
  if (param === 'documentId') return ids.document;
  if (param === 'fieldId') return ids.field;
  if (param === 'folderId') return ids.folder;
  if (param === 'memberId') return ids.member;
  return { folders: ids.folder, documents: ids.document, revisions: ids.revision, indexfields: ids.field, lists: ids.list }[previous] ?? ids.folder;
}

const JUNK = ["'", '%', '..', '/', '\u0000', '\uD800', '😀', ' ', '', 'null', '-1', '1e309', 'NaN', '9'.repeat(40), 'a'.repeat(5000), '00000000-0000-0000-0000-000000000000'];
const junk = fc.oneof(fc.constantFrom(...JUNK), fc.string({ maxLength: 20 }), fc.uuid(), fc.integer(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));

/** A row, and a body of some of its keys (also sent as the query string) with junk values. */
const requestArb = fc.constantFrom(...rows).chain((row) => fc.tuple(fc.constant(row), fc.dictionary(fc.constantFrom(...keysOf(row), 'x'), junk, { maxKeys: 4 })));

const encode = (v: string) => {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80'; // a lone surrogate, as raw bytes
  }
};

test('library writes with real ids and junk bodies: never a 5xx, and the library still reads', async () => {
  await fc.assert(
    fc.asyncProperty(requestArb, fc.boolean(), async ([row, body], asEditor) => {
      const segments = row.path.split('/');
      const path = segments.map((s, i) => (s.startsWith(':') ? valueOf(s.slice(1), segments[i - 1]) : s)).join('/');
      // A junk value may be an object that String() cannot convert (`{toString: ""}`): JSON text then.
      const query = Object.entries(body).map(([k, v]) => `${k}=${encode(typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)))}`).join('&');
      const r = await (asEditor ? E : A).request(row.method, `${path}${query ? `?${query}` : ''}`, { body });
      expect([row.method, row.path, r.status < 500]).toEqual([row.method, row.path, true]);
      if (r.status >= 400) expect(r.body.meta.status).toBe(r.status);
      // A delete that succeeded took a fixture with it.
      if (row.method === 'DELETE' && r.status === 200) ids = await fixtures();
    }),
    { numRuns: RUNS },
  );
  for (const p of [`/folders/${ids.folder}`, `/documents/${ids.document}/indexfields`, `/lists/${ids.list}/items`, `/folders/${ids.folder}/securitymembers`]) {
    expect([p, (await A.get(p)).status]).toEqual([p, 200]);
  }
}, 600_000);
