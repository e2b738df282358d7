/**
 * `GET documentfields` (docs/decisions.md, "Document fields"): the Node client's
 * `documents.getDocumentFields` reads `meta.status` 200 and `data` as an array, and looks for
 * `databaseField === 'DhDocType'`. One record per field of the Document data type, from its
 * definition; `q`, `fields`, `limit`/`offset`; one by name; /meta; GraphQL.
 */
import { resource } from '../../src/read/registry.js';
import { expectEnvelope, expectError, keysOf, q, sorted, uniq } from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

const KEYS = ['href', 'dataType', 'name', 'label', 'databaseField', 'fieldType', 'valueType', 'queryable'];

type Field = Record<string, unknown> & { href: string; name: string; databaseField: string; valueType: string };

let folder: { id: string };
let doc: { id: string; documentId: string; name: string };

setUpTwoTenants();
beforeAll(async () => {
  folder = (await A.post('/folders', { name: uniq('Fields') })).body.data;
  doc = (await A.post('/documents', { folderId: folder.id, name: uniq('Doc'), description: 'about it' })).body.data;
});

const names = (r: { body: { data: Field[] } }) => r.body.data.map((f) => f.name);

describe('GET documentfields', () => {
  test("as the Node client reads it: 200, an array of every Document field, in the definition's order, without pagination", async () => {
    const r = await A.get('/documentfields');
    expectEnvelope(r, 'GET', A.url('/documentfields'));
    expect(Array.isArray(r.body.data)).toBe(true);
    expect(r.body).not.toHaveProperty('pagination');
    // The definition is the one source: /meta/Document's fields, one record each.
    const documentFields = (await A.get('/meta/Document')).body.data.availableFields;
    expect(names(r)).toEqual(documentFields);
    expect(names(r)).toEqual(Object.keys(resource('Document').fields));
    for (const f of r.body.data as Field[]) {
      expect(keysOf(f)).toEqual(sorted(KEYS));
      expect(f).toMatchObject({ href: `~/documentfields/${f.name}`, dataType: 'DocumentField', queryable: true });
    }
    const byName = new Map((r.body.data as Field[]).map((f) => [f.name, f]));
    expect(byName.get('id')).toEqual({ href: '~/documentfields/id', dataType: 'DocumentField', name: 'id', label: 'ID', databaseField: 'DhID', fieldType: 1, valueType: 'guid', queryable: true });
    expect(byName.get('documentId')).toMatchObject({ label: 'Document ID', databaseField: 'DlID', fieldType: 1, valueType: 'guid' });
    expect(byName.get('name')).toMatchObject({ label: 'Name', databaseField: 'DhDocID', fieldType: 1, valueType: 'string' });
    expect(byName.get('description')).toMatchObject({ label: 'Description', databaseField: 'DhDesc', fieldType: 1, valueType: 'string' });
    // The rest: `Dh` and the name, a final Id as ID; date-times are calendar fields (4), numbers numeric (5).
    expect(byName.get('folderPath')).toMatchObject({ label: 'Folder Path', databaseField: 'DhFolderPath', fieldType: 1, valueType: 'string' });
    expect(byName.get('checkedOutById')).toMatchObject({ label: 'Checked Out By ID', databaseField: 'DhCheckedOutByID', fieldType: 1, valueType: 'string' });
    expect(byName.get('createDate')).toMatchObject({ label: 'Create Date', databaseField: 'DhCreateDate', fieldType: 4, valueType: 'datetime' });
    expect(byName.get('fileSize')).toMatchObject({ label: 'File Size', databaseField: 'DhFileSize', fieldType: 5, valueType: 'integer' });
    const columns = (r.body.data as Field[]).map((f) => f.databaseField);
    expect(columns).toEqual([...new Set(columns)]);
    // Documents here name no document type, so no field claims the legacy type column: the
    // client's check for the system document type field answers no.
    expect((r.body.data as Field[]).some((f) => f.databaseField === 'DhDocType')).toBe(false);
  });

  test("the Node client's 'document discovery methods' test: document fields, then last and frequent documents, each 200", async () => {
    for (const path of ['/documentfields', '/lastdocuments?useDocApi=false', '/frequentdocuments?useDocApi=false']) {
      const r = await A.get(path);
      expect([path, r.body.meta.status, Array.isArray(r.body.data)]).toEqual([path, 200, true]);
    }
  });

  test('every name is one that q and fields= on documents take', async () => {
    const fields = (await A.get('/documentfields')).body.data as Field[];
    for (const f of fields) {
      const field = f.name.toUpperCase();
      const r = await A.get(`/documents?${q(`(${field} eq null or ${field} ne null) and documentId eq '${doc.documentId}'`)}&fields=${f.name}`);
      expect([f.name, r.status, r.body.data.length]).toEqual([f.name, 200, 1]);
      expect([f.name, keysOf(r.body.data[0])]).toEqual([f.name, sorted(['href', 'dataType', f.name])]);
    }
  });

  test('q over the records, fields=, limit and offset, as on other lists', async () => {
    const all = names(await A.get('/documentfields'));
    const dates = await A.get(`/documentfields?${q("valueType eq 'DATETIME'")}`);
    expect(names(dates)).toEqual(['reviewDate', 'expireDate', 'checkOutDate', 'createDate', 'modifyDate']);
    expect(names(await A.get(`/documentfields?${q("databaseField like 'dh%id' and not (name in ('id', 'fileId'))")}`))).toEqual(['name', 'folderId', 'checkedOutById', 'createById', 'modifyById']);
    expect(names(await A.get(`/documentfields?${q("fieldType eq 5 or label eq 'document id'")}`))).toEqual(['documentId', 'releaseState', 'checkInStatus', 'archive', 'fileSize']);
    expect(names(await A.get(`/documentfields?${q('queryable eq false')}`))).toEqual([]);
    expect(names(await A.get(`/documentfields?${q('  ')}`))).toEqual(all);

    const projected = await A.get(`/documentfields?fields=DATABASEFIELD&${q("name eq 'name'")}`);
    expect(projected.body.data).toEqual([{ href: '~/documentfields/name', dataType: 'DocumentField', databaseField: 'DhDocID' }]);
    expect(names(await A.get('/documentfields?limit=2&offset=1'))).toEqual(all.slice(1, 3));
    expect(names(await A.get(`/documentfields?limit=1&offset=1&${q("valueType eq 'guid'")}`))).toEqual(['documentId']);

    expectError(await A.get(`/documentfields?${q("nosuch eq 'x'")}`), 400, /nosuch/);
    expectError(await A.get(`/documentfields?${q("fieldType eq 'text'")}`), 400, "Invalid q: 'text' is not an integer (compared with 'fieldType')");
    expectError(await A.get('/documentfields?limit=-1'), 400, /limit/);
  });

  test('q costs one statement over the records, which reads no table; without q there is none', async () => {
    const plainList = await h.countQueries(() => A.get('/documentfields'));
    expect(plainList.result.status).toBe(200);
    expect(plainList.statements.filter((s) => /values|document/.test(s))).toEqual([]);
    const filtered = await h.countQueries(() => A.get(`/documentfields?${q("name like 'file%'")}`));
    expect(names(filtered.result)).toEqual(['fileId', 'fileName', 'fileSize']);
    const added = filtered.statements.filter((s) => !plainList.statements.includes(s));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^select t\."row\$" as row from \(values \(\$1::int, /);
    expect(added[0]).not.toMatch(/tenant_id|\bdocument\b/);
  });

  test('GET documentfields/{name}: the record its href names, by name in any case; an unknown name is a 404', async () => {
    const list = (await A.get('/documentfields')).body.data as Field[];
    const wanted = list.find((f) => f.name === 'documentId')!;
    const r = await A.get('/documentfields/DOCUMENTID');
    expectEnvelope(r, 'GET', A.url('/documentfields/DOCUMENTID'));
    expect(r.body.data).toEqual(wanted);
    for (const f of list) expect((await A.get(f.href.slice(1))).body.data).toEqual(f);
    expectError(await A.get('/documentfields/documentType'), 404, "Document field 'documentType' was not found");
  });

  test('anyone in the tenant reads them; another tenant\'s token is refused', async () => {
    expect((await A.as(plain.token).get('/documentfields')).body.data).toEqual((await A.get('/documentfields')).body.data);
    expect((await A.as(plain.token).get('/documentfields/name')).status).toBe(200);
    expectError(await B.on(A.t).get('/documentfields'), 403);
    expectError(await A.as(undefined).get('/documentfields'), 401);
  });

  test('/meta describes the DocumentField data type as it describes the others', async () => {
    const described = { dataType: 'DocumentField', availableFields: KEYS.slice(2), defaultFields: KEYS.slice(2), idField: 'name' };
    expect((await A.get('/meta/documentfield')).body.data).toEqual(described);
    expect((await A.get('/meta?expand=true')).body.data).toContainEqual(described);
  });

  test('GraphQL: documentFields with q and paging, documentField by name', async () => {
    const r = await A.as(plain.token).gql(
      `{ documentFields(q: "valueType eq 'guid'", limit: 2) { totalRecords items { href dataType name databaseField fieldType queryable } }
         documentField(name: "Description") { label databaseField } }`,
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.documentFields).toEqual({
      totalRecords: 6,
      items: [
        { href: '~/documentfields/id', dataType: 'DocumentField', name: 'id', databaseField: 'DhID', fieldType: 1, queryable: true },
        { href: '~/documentfields/documentId', dataType: 'DocumentField', name: 'documentId', databaseField: 'DlID', fieldType: 1, queryable: true },
      ],
    });
    expect(r.body.data.documentField).toEqual({ label: 'Description', databaseField: 'DhDesc' });
    const bad = await A.gql('{ documentFields(q: "nosuch eq 1") { items { name } } }');
    expect(bad.body.errors[0]).toMatchObject({ path: ['documentFields'], message: expect.stringMatching(/nosuch/), extensions: { code: 'BAD_REQUEST' } });
    const missing = await A.gql('{ documentField(name: "nope") { name } }');
    expect(missing.body.errors[0]).toMatchObject({ message: expect.stringMatching(/Document field 'nope' was not found/), extensions: { code: 'NOT_FOUND' } });
  });
});
