/**
 * Documents (rest-api-v1.md "Documents"; client-compatibility.md: `GET documents` without q,
 * `POST documents {folderId, name, description, documentState}` answers `data.id` (revision id)
 * and `data.documentId`, documents named by either id) and their relations to form instances
 * (`PUT forminstance/{id}/relateDocument?relateToId=|relateToDocId=`, `GET forminstance/{id}/documents`).
 */
import { randomUUID } from 'node:crypto';
import {
  expectEnvelope,
  expectAsUnknown,
  expectError,
  formTemplateWith,
  GUID,
  keysOf,
  multipart,
  PAGINATION_KEYS,
  q,
  sorted,
  uniq,
  UNKNOWN_ID,
  whileHeld,
  ZERO_GUID,
} from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';
import { purgeExpired } from '../../src/purge.js';

const DOCUMENT_KEYS = [
  'href', 'dataType', 'id', 'documentId', 'name', 'description', 'releaseState', 'checkInStatus', 'revision', 'reviewDate', 'expireDate',
  'archive', 'abstract', 'keywords', 'changeText', 'folderId', 'folderName', 'folderPath', 'fileId', 'fileName', 'fileSize', 'extension',
  'contentType', 'checkedInBy', 'checkedOutById', 'checkedOutBy', 'checkOutDate', 'createDate', 'modifyDate', 'createById', 'modifyById',
  'createBy', 'modifyBy',
];
const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

let admin: { id: string; name: string };
let folder: { id: string; name: string; folderPath: string };
let template: { id: string };

type Doc = Record<string, unknown> & { id: string; documentId: string; name: string };

setUpTwoTenants();
beforeAll(async () => {
  admin = (await A.get('/users/me')).body.data;
  folder = (await A.post('/folders', { folderpath: `/${uniq('Library')}/Docs` })).body.data;
  template = await formTemplateWith(A, ['textField']);
});

async function newDoc(name = uniq('Doc'), more: Record<string, unknown> = {}): Promise<Doc> {
  const r = await A.post('/documents', { folderId: folder.id, name, description: 'about it', documentState: 1, ...more });
  expect([r.status, r.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
  return r.body.data;
}
const newForm = async () => (await A.post(`/formtemplates/${template.id}/forms`, { textField: 'x' })).body.data as { revisionId: string; formId: string };

describe('documents', () => {
  test('POST /documents: 200, a Document object with every spec field; file fields empty until files exist', async () => {
    const name = uniq('Report');
    const r = await A.post('/documents', { folderId: folder.id, name, description: 'the report', documentState: 1, keywords: 'k1 k2' });
    expectEnvelope(r, 'POST', A.url('/documents'));
    const d = r.body.data;
    // In the spec's order, as the legacy service writes them.
    expect(Object.keys(d)).toEqual(DOCUMENT_KEYS);
    expect(d).toEqual({
      href: `~/documents/${d.id}`, dataType: 'Document', id: expect.stringMatching(GUID), documentId: expect.stringMatching(GUID),
      name, description: 'the report', releaseState: 1, checkInStatus: 0, revision: '1', reviewDate: null, expireDate: null, archive: 0,
      abstract: '', keywords: 'k1 k2', changeText: null, folderId: folder.id, folderName: 'Docs', folderPath: folder.folderPath,
      fileId: ZERO_GUID, fileName: '', fileSize: 0, extension: '', contentType: '', checkedInBy: admin.name, checkedOutById: ZERO_GUID,
      checkedOutBy: '', checkOutDate: null, createDate: expect.stringMatching(DATE), modifyDate: expect.stringMatching(DATE),
      createById: admin.id, modifyById: admin.id, createBy: admin.name, modifyBy: admin.name,
    });
    expect(d.id).not.toBe(d.documentId);
  });

  test('a document nobody has checked out reads checkedOutById as the all-zero GUID, which the .NET client\'s Guid property takes (an empty string failed its whole read)', async () => {
    const own = (await A.post('/folders', { name: uniq('NotHeld') })).body.data;
    const d: Doc = (await A.post('/documents', { folderId: own.id, name: uniq('Doc') })).body.data;
    for (const read of [await A.get(`/documents/${d.id}`), await A.get(`/documents/${d.documentId}/revisions`), await A.get(`/folders/${own.id}/documents`)]) {
      const docs = [read.body.data].flat().filter((x: Doc) => x.documentId === d.documentId);
      expect(docs.map((x: Doc) => [x.checkInStatus, x.checkedOutById])).toEqual([[0, ZERO_GUID]]);
    }
    expect((await A.get(`/documents?${q(`checkedOutById eq '${ZERO_GUID}' and documentId eq '${d.documentId}'`)}`)).body.data.map((x: Doc) => x.id)).toEqual([d.id]);
  });

  test('GET /documents/{id} by the document id or the revision id: the same object', async () => {
    const d = await newDoc();
    for (const id of [d.documentId, d.id, d.id.toUpperCase()]) {
      const r = await A.get(`/documents/${id}`);
      expect([id, r.status]).toEqual([id, 200]);
      expect(r.body.data).toEqual(d);
    }
    expectError(await A.get(`/documents/${UNKNOWN_ID}`), 404);
    expectError(await A.get('/documents/nope'), 400);
  });

  test('GET /documents?q=id in (1,000 GUIDs): a page of ids as a client asks for it, within the q and URL limits', async () => {
    const [a, b] = [await newDoc(), await newDoc()];
    const ids = [a.id, ...Array.from({ length: 998 }, () => randomUUID()), b.id];
    const r = await A.get(`/documents?q=${encodeURIComponent(`id in (${ids.map((i) => `'${i}'`).join(', ')})`)}`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: Doc) => d.id).sort()).toEqual([a.id, b.id].sort());
  });

  test('GET /documents: without q every document (as the Node client calls it), paged; q filters over the Document fields', async () => {
    const tag = uniq('tagged');
    const made = [await newDoc(`${tag}-b`), await newDoc(`${tag}-a`), await newDoc(`${tag}-c`)];
    const all = await A.get('/documents?limit=2');
    expectEnvelope(all, 'GET', A.url('/documents?limit=2'));
    expect(all.body.data).toHaveLength(2);
    expect(keysOf(all.body.pagination)).toEqual(sorted(PAGINATION_KEYS));
    const mine = await A.get(`/documents?${q(`name like '${tag}%'`)}`);
    expect(mine.body.data.map((d: Doc) => d.name)).toEqual([`${tag}-a`, `${tag}-b`, `${tag}-c`]);
    const byFolder = await A.get(`/documents?${q(`folderId eq '${folder.id}' and name eq '${made[0].name}'`)}`);
    expect(byFolder.body.data.map((d: Doc) => d.id)).toEqual([made[0].id]);
  });

  test('GET /folders/{id}/documents: the folder\'s documents, paged; another folder\'s are not there', async () => {
    const other = (await A.post(`/folders/${folder.id}`, { name: uniq('Sub') })).body.data;
    const inOther = (await A.post('/documents', { folderId: other.id, name: uniq('There') })).body.data;
    const page = await A.get(`/folders/${other.id}/documents`);
    expect(page.body.data.map((d: Doc) => d.id)).toEqual([inOther.id]);
    expect(page.body.data[0]).toMatchObject({ folderId: other.id, folderPath: `${folder.folderPath}/${other.name}` });
    expect(page.body.pagination.totalRecords).toBe(1);
    expectError(await A.get(`/folders/${UNKNOWN_ID}/documents`), 404);
  });

  test("GET /folders/{id}/documents?metaonly=true (the .NET client's GetFolderDocumentsCount): data is how many it lists, its subfolders' too when asked", async () => {
    const top = (await A.post('/folders', { name: uniq('Counted') })).body.data;
    const sub = (await A.post(`/folders/${top.id}`, { name: uniq('Sub') })).body.data;
    const hidden = (await A.post(`/folders/${sub.id}`, { name: uniq('Hidden') })).body.data;
    for (const [f, n] of [[top, 2], [sub, 1], [hidden, 1]] as const) for (let i = 0; i < n; i++) await A.post('/documents', { folderId: f.id, name: uniq('Counted') });
    const gone = (await A.post('/documents', { folderId: top.id, name: uniq('Gone') })).body.data;
    await A.del(`/documents/${gone.documentId}`);
    // Only the administrator sees the hidden folder.
    await A.put(`/folders/${hidden.id}/securitymembers/${admin.id}`, { memberType: 0, securityRole: 1 });
    await A.put(`/folders/${top.id}/securitymembers/${plain.id}`, { memberType: 0, securityRole: 4, cascadeSecurityChanges: false });
    await A.put(`/folders/${sub.id}/securitymembers/${plain.id}`, { memberType: 0, securityRole: 4 });
    const count = async (api: typeof A, query: string) => {
      const r = await api.get(`/folders/${top.id}/documents?${query}`);
      expect([query, r.status, r.text.slice(0, 300)]).toEqual([query, 200, expect.any(String)]);
      return r.body.data;
    };
    // As the .NET client sends it, beside the parameters it always appends.
    expect(await count(A, 'metaonly=true&includesubfolders=False&q=&fields=&expand=true&limit=200&offset=0')).toBe(2);
    expect(await count(A, 'metaonly=True&includesubfolders=True')).toBe(4);
    expect(await count(A.as(plain.token), 'metaonly=true&includesubfolders=true')).toBe(3);
    expect(await count(A, `metaonly=true&includesubfolders=true&${q("name like 'Counted%'")}`)).toBe(4);
    // metaonly false (or left out) is the list.
    expect(Array.isArray(await count(A, 'metaonly=false'))).toBe(true);
    expect((await A.get(`/folders/${top.id}/documents?metaonly=true`)).body).not.toHaveProperty('pagination');
    expectError(await A.get(`/folders/${UNKNOWN_ID}/documents?metaonly=true`), 404);
  });

  test('revisions: GET /documents/{id}/revisions lists them as Documents; /revisions/{rev} answers one object', async () => {
    const d = await newDoc(uniq('Revised'), { changeText: 'first' });
    const list = await A.get(`/documents/${d.documentId}/revisions`);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(keysOf(list.body.data[0])).toEqual(sorted(DOCUMENT_KEYS));
    expect(list.body.data[0]).toMatchObject({ dataType: 'Document', id: d.id, documentId: d.documentId, revision: '1', changeText: 'first', folderId: folder.id });
    const one = await A.get(`/documents/${d.id}/revisions/${d.id}`);
    expect(one.body.data).toEqual(list.body.data[0]);
    expectError(await A.get(`/documents/${d.documentId}/revisions/${UNKNOWN_ID}`), 404, 'has no revision');
    const other = await newDoc();
    expectError(await A.get(`/documents/${d.documentId}/revisions/${other.id}`), 404);
  });

  test('GET /documents/revisions/{id} (the .NET client\'s GetDocumentRevision by revision id alone): that revision, as /documents/{id}/revisions/{id} answers it', async () => {
    const d = await newDoc(uniq('ByRevision'), { changeText: 'first' });
    const one = await A.get(`/documents/${d.documentId}/revisions/${d.id}`);
    for (const id of [d.id, d.id.toUpperCase()]) {
      const r = await A.get(`/Documents/Revisions/${id}`);
      expectEnvelope(r, 'GET', A.url(`/Documents/Revisions/${id}`));
      expect(r.body.data).toEqual(one.body.data);
    }
    expectError(await A.get(`/documents/revisions/${UNKNOWN_ID}`), 404, 'Document revision');
    // A document's own id names no revision.
    expectError(await A.get(`/documents/revisions/${d.documentId}`), 404, 'Document revision');
    // Another tenant's revision is not there.
    expectError(await B.get(`/documents/revisions/${d.id}`), 404);
  });

  test('bad input: 400s naming the field, an unknown folder a 404', async () => {
    expectError(await A.post('/documents', { name: 'x' }), 400, "'folderId'");
    expectError(await A.post('/documents', { folderId: 'nope', name: 'x' }), 400, /folderId.*GUID/);
    expectError(await A.post('/documents', { folderId: folder.id }), 400, "'name'");
    expectError(await A.post('/documents', { folderId: folder.id, name: '  ' }), 400, "'name'");
    expectError(await A.post('/documents', { folderId: folder.id, name: 'x'.repeat(257) }), 400, 'longer than 256');
    expectError(await A.post('/documents', { folderId: folder.id, name: 'bad\u0007' }), 400, 'control characters');
    // DEL and the C1 controls (NEL, U+0085, is a line break) too: Unicode's Cc, as every name.
    for (const name of ['del\u007fname', 'nel\u0085name', 'c1\u009f']) expectError(await A.post('/documents', { folderId: folder.id, name }), 400, "The field 'name' may not contain control characters.");
    expectError(await A.post('/documents', { folderId: folder.id, name: 'x', documentState: 7 }), 400, "The field 'documentState' must be 1 (or Released) or 0 (or Unreleased), got 7.");
    expectError(await A.post('/documents', { folderId: folder.id, name: 'x', documentState: 'Draft' }), 400, "The field 'documentState' must be 1 (or Released) or 0 (or Unreleased)");
    expectError(await A.post('/documents', { folderId: UNKNOWN_ID, name: 'x' }), 404, 'Folder');
  });

  test('documentState by name as the .NET client sends it (Released, Unreleased, any case), in JSON and in a multipart form, or by number', async () => {
    const states: [unknown, number][] = [['Released', 1], ['unreleased', 0], [' UNRELEASED ', 0], ['1', 1], [0, 0], [1, 1]];
    for (const [sent, kept] of states) {
      const r = await A.post('/documents', { folderId: folder.id, name: uniq('State'), documentState: sent });
      expect([sent, r.status, r.body.data?.releaseState]).toEqual([sent, 200, kept]);
    }
    const form = await A.post('/documents', undefined, await multipart({ folderId: folder.id, name: uniq('Form'), documentState: 'Unreleased' }, 'bytes', 'f.txt', 'fileupload_0'));
    expect([form.status, form.body.data?.releaseState]).toEqual([200, 0]);
  });

  test('a create takes the first revision label (`revision`) and its change text as `changeText` or `changeReason`, in JSON and in a multipart form; both names must agree', async () => {
    const form = await A.post('/documents', undefined, await multipart({ folderId: folder.id, name: uniq('Labelled'), revision: ' v1.0 ', changeReason: 'imported' }, 'bytes', 'f.txt'));
    expect(form.status).toBe(200);
    expect(form.body.data).toMatchObject({ revision: 'v1.0', changeText: 'imported', fileName: 'f.txt' });
    expect((await A.get(`/documents/${form.body.data.documentId}/revisions`)).body.data).toEqual([expect.objectContaining({ revision: 'v1.0', changeText: 'imported' })]);
    const json = await A.post('/documents', { folderId: folder.id, name: uniq('Json'), revision: 'A', changeReason: 'why', changeText: 'why' });
    expect(json.body.data).toMatchObject({ revision: 'A', changeText: 'why' });
    // Blank is the default label.
    expect((await A.post('/documents', { folderId: folder.id, name: uniq('Blank'), revision: ' ' })).body.data.revision).toBe('1');
    const name = uniq('Refused');
    expectError(await A.post('/documents', { folderId: folder.id, name, changeText: 'one', changeReason: 'two' }), 400, "The change text ('changeText', 'changeReason') was sent 2 times with different values ('one' as 'changeText' and 'two' as 'changeReason'): send it once.");
    expectError(await A.post('/documents', undefined, await multipart({ folderId: folder.id, name, changeText: 'one', changeReason: 'two' }, 'bytes', 'f.txt')), 400, 'sent 2 times with different values');
    expectError(await A.post('/documents', { folderId: folder.id, name, revision: 'x'.repeat(65) }), 400, "The field 'revision' is longer than 64 characters.");
    expectError(await A.post('/documents', { folderId: folder.id, name, revision: 'v\u001b1' }), 400, "The field 'revision' may not contain control characters.");
    expectError(await A.post('/documents', { folderId: folder.id, name, changeReason: 'x'.repeat(4001) }), 400, "The field 'changeReason' is longer than 4000 characters.");
    expect((await A.get(`/documents?${q(`name eq '${name}'`)}`)).body.data).toEqual([]);
  });

  test('DELETE /documents/{id} (the client deletes by revision id): 200 without data; it then reads archive 2, is listed nowhere and changes no more; twice at once: one 200, one 404', async () => {
    const d = await newDoc();
    const form = await newForm();
    await A.put(`/forminstance/${form.formId}/relateDocument?relateToId=${d.id}`);
    const r = await A.del(`/documents/${d.id}`);
    expectEnvelope(r, 'DELETE', A.url(`/documents/${d.id}`));
    expect(r.body).not.toHaveProperty('data');
    expect((await A.get(`/documents/${d.documentId}`)).body.data).toMatchObject({ id: d.id, archive: 2 });
    expect((await A.get(`/documents/${d.documentId}/revisions`)).body.data).toHaveLength(1);
    expect((await A.get(`/folders/${folder.id}/documents?limit=2000`)).body.data.map((x: Doc) => x.documentId)).not.toContain(d.documentId);
    expect((await A.get(`/documents?${q(`name eq '${d.name}'`)}`)).body.data).toEqual([]);
    expect((await A.get(`/forminstance/${form.formId}/documents`)).body.data).toEqual([]);
    expectError(await A.put(`/documents/${d.documentId}/expiration`, { expirationDate: null }), 409, /deleted/);
    expectError(await A.put(`/forminstance/${(await newForm()).formId}/relateDocument?relateToId=${d.id}`), 409, /deleted/);
    expectError(await A.put(`/documents/${d.documentId}/status`, { checkIn: 1 }), 409, /deleted/);
    expectError(await A.del(`/documents/${d.documentId}`), 404, /already deleted/);
    const e = await newDoc();
    const both = await Promise.all([A.del(`/documents/${e.documentId}`), A.del(`/documents/${e.id}`)]);
    expect(both.map((x) => x.status).sort()).toEqual([200, 404]);
  });

  test('the purge deletes for good the documents deleted more than DELETED_DOCUMENT_DAYS ago, and nothing else', async () => {
    const [old, recent, untouched] = [await newDoc(), await newDoc(), await newDoc()];
    await A.post('/files', undefined, await multipart({ documentId: old.documentId }, 'bytes', 'old.txt'));
    for (const d of [old, recent]) await A.del(`/documents/${d.documentId}`);
    const days = h.services.config.deletedDocumentDays;
    await h.services.reads.query(`update document set modified_at = now() - make_interval(days => $3 + 1) where tenant_id = $1 and id = any($2::uuid[])`, [
      A.t.tenantId, [old.documentId, untouched.documentId], days,
    ]);
    await purgeExpired(h.orm.em.fork(), h.services.config, h.services.files);
    expectError(await A.get(`/documents/${old.documentId}`), 404);
    expectError(await A.get(`/files/${old.id}`), 404);
    expect((await A.get(`/documents/${recent.documentId}`)).body.data.archive).toBe(2);
    expect((await A.get(`/documents/${untouched.documentId}`)).body.data.archive).toBe(0);
  });

  test('deleting a folder deletes its documents, deleted ones too', async () => {
    const f = (await A.post('/folders', { name: uniq('Gone') })).body.data;
    const d = (await A.post('/documents', { folderId: f.id, name: 'inside' })).body.data;
    const deleted = (await A.post('/documents', { folderId: f.id, name: 'binned' })).body.data;
    await A.del(`/documents/${deleted.documentId}`);
    expect((await A.del(`/folders/${f.id}`)).status).toBe(200);
    expectError(await A.get(`/documents/${d.documentId}`), 404);
    expectError(await A.get(`/documents/${deleted.documentId}`), 404);
  });
});

describe('search', () => {
  test("documents?q=folderpath like '/X%' as the clients search, paged with offset and limit, any case", async () => {
    const top = uniq('Search');
    for (const sub of ['a', 'b']) {
      const f = (await A.post('/folders', { folderpath: `/${top}/${sub}` })).body.data;
      for (let i = 0; i < 2; i++) await A.post('/documents', { folderId: f.id, name: `${sub}${i}` });
    }
    const other = (await A.post('/folders', { folderpath: `/${top}x` })).body.data;
    await A.post('/documents', { folderId: other.id, name: 'outside' });
    const all = await A.get(`/documents?q=${encodeURIComponent(`folderpath like '/${top}/%'`)}&offset=0&limit=10`);
    expect(all.body.pagination.totalRecords).toBe(4);
    expect(sorted(all.body.data.map((d: Doc) => d.name))).toEqual(['a0', 'a1', 'b0', 'b1']);
    const page = await A.get(`/documents?q=${encodeURIComponent(`folderPath like '/${top.toUpperCase()}/B%'`)}&offset=1&limit=1`);
    expect(page.body.pagination.totalRecords).toBe(2);
    expect(page.body.data).toHaveLength(1);
  });
});

describe('copy, move, expiration', () => {
  test('a copy checks the name sent (no DEL or C1 control) and keeps the original\'s as it is, one stored before they were refused included', async () => {
    const d = (await A.post('/documents', { folderId: folder.id, name: uniq('Old') })).body.data;
    expectError(await A.post(`/documents/${d.documentId}/copy`, { folderId: folder.id, name: 'copy\u0085' }), 400, "The field 'name' may not contain control characters.");
    await h.orm.em.getConnection().execute('update document set name = ? where id = ?', ['old\u007fname', d.documentId]);
    const copy = await A.post(`/documents/${d.documentId}/copy`, { folderId: folder.id });
    expect([copy.status, copy.body.data.name]).toEqual([200, 'old\u007fname']);
  });

  test('POST /documents/{id}/copy: a new document (new ids, every revision) in the folder named, with the name given or the original\'s', async () => {
    const d = await newDoc(uniq('Original'), { changeText: 'first' });
    const other = (await A.post(`/folders/${folder.id}`, { name: uniq('CopyHere') })).body.data;
    const named = await A.post(`/documents/${d.documentId}/copy`, { folderId: other.id, name: 'Copied Document' });
    expectEnvelope(named, 'POST', A.url(`/documents/${d.documentId}/copy`));
    expect(named.body.data).toMatchObject({ folderId: other.id, name: 'Copied Document', description: d.description, revision: '1', changeText: 'first' });
    expect([d.id, d.documentId]).not.toContain(named.body.data.documentId);
    expect((await A.get(`/documents/${named.body.data.documentId}/revisions`)).body.data.map((r: Doc) => [r.id, r.name])).toEqual([[named.body.data.id, 'Copied Document']]);
    const same = await A.post(`/documents/${d.id}/copy`, { folderId: folder.id });
    expect(same.body.data).toMatchObject({ name: d.name, folderId: folder.id });
    expect((await A.get(`/documents/${d.id}`)).body.data).toEqual(d);
    expectError(await A.post(`/documents/${d.id}/copy`, {}), 400, "'folderId'");
    expectError(await A.post(`/documents/${d.id}/copy`, { folderId: UNKNOWN_ID }), 404, 'Folder');
    expectError(await A.post(`/documents/${UNKNOWN_ID}/copy`, { folderId: folder.id }), 404, 'Document');
  });

  test("a copy takes the expirationDate sent (null or '' none), else keeps the original's; a bad one is a 400 naming it and copies nothing", async () => {
    const d = (await A.post('/documents', { folderId: folder.id, name: uniq('Expiring'), expirationDate: '2030-01-01T00:00:00' })).body.data;
    const copyAs = (body: Record<string, unknown>) => A.post(`/documents/${d.documentId}/copy`, { folderId: folder.id, ...body });
    expect((await copyAs({ expirationDate: '2031-02-03T04:05:06' })).body.data.expireDate).toBe('2031-02-03T04:05:06.000');
    expect((await copyAs({ expirationDate: null })).body.data.expireDate).toBeNull();
    expect((await copyAs({ expirationDate: '' })).body.data.expireDate).toBeNull();
    expect((await copyAs({})).body.data.expireDate).toBe('2030-01-01T00:00:00.000');
    const before = (await A.get(`/folders/${folder.id}/documents?limit=1`)).body.pagination.totalRecords;
    expectError(await copyAs({ expirationDate: 'soon' }), 400, "The field 'expirationDate'");
    expect((await A.get(`/folders/${folder.id}/documents?limit=1`)).body.pagination.totalRecords).toBe(before);
    expect((await A.get(`/documents/${d.documentId}`)).body.data.expireDate).toBe('2030-01-01T00:00:00.000');
  });

  test('a deleted document is not copied (409): its copy would be born deleted; nothing is made', async () => {
    const d = await newDoc(uniq('Gone'));
    const target = (await A.post(`/folders/${folder.id}`, { name: uniq('CopyTarget') })).body.data;
    expect((await A.del(`/documents/${d.documentId}`)).status).toBe(200);
    expectError(await A.post(`/documents/${d.documentId}/copy`, { folderId: target.id }), 409, /deleted/);
    expect((await A.get(`/documents?q=folderId eq '${target.id}'`)).body.data).toEqual([]);
  });

  test('PUT /documents/{id}/move: the same document (same ids) in another folder', async () => {
    const d = await newDoc();
    const other = (await A.post(`/folders/${folder.id}`, { name: uniq('MoveHere') })).body.data;
    const r = await A.put(`/documents/${d.documentId}/move`, { folderId: other.id });
    expectEnvelope(r, 'PUT', A.url(`/documents/${d.documentId}/move`));
    expect(r.body.data).toMatchObject({ id: d.id, documentId: d.documentId, folderId: other.id, folderPath: other.folderPath });
    expect((await A.get(`/folders/${other.id}/documents`)).body.data.map((x: Doc) => x.id)).toEqual([d.id]);
    expectError(await A.put(`/documents/${d.id}/move`, { folderId: UNKNOWN_ID }), 404);
  });

  test.each([
    ['POST documents', (d: Doc, to: string) => A.post('/documents', { folderId: to, name: d.name })],
    ['POST documents/{id}/copy', (d: Doc, to: string) => A.post(`/documents/${d.documentId}/copy`, { folderId: to, name: d.name })],
    ['PUT documents/{id}/move', (d: Doc, to: string) => A.put(`/documents/${d.documentId}/move`, { folderId: to })],
  ])('%s racing a delete of the folder folderId names, committed meanwhile: the 404 of an unknown folder, not the foreign key\'s; nothing written', async (_, send) => {
    const d = await newDoc(uniq('Racer'));
    const target = (await A.post(`/folders/${folder.id}`, { name: uniq('Vanishing') })).body.data;
    // The delete, committed while the write waits for the folder's row.
    const other = { text: 'delete from folder where tenant_id = $1 and id = $2', values: [A.t.tenantId, target.id] };
    const r = await whileHeld(h, other, () => send(d, target.id));
    expectError(r, 404, `Folder '${target.id}' was not found.`);
    expectAsUnknown(r, await send(d, UNKNOWN_ID), target.id);
    // The document as it was, where it was, and no other of its name.
    expect((await A.get(`/documents/${d.documentId}`)).body.data).toEqual(d);
    expect((await A.get(`/documents?q=${encodeURIComponent(`name eq '${d.name}'`)}`)).body.data.map((x: Doc) => x.documentId)).toEqual([d.documentId]);
  });

  test('PUT /documents/{id}/expiration sets expireDate (UTC, a zone honoured), null clears it, junk is a 400', async () => {
    const d = await newDoc();
    const r = await A.put(`/documents/${d.documentId}/expiration`, { expirationDate: '2031-02-03T04:05:06.789Z' });
    expectEnvelope(r, 'PUT', A.url(`/documents/${d.documentId}/expiration`));
    expect(r.body.data.expireDate).toBe('2031-02-03T04:05:06.789');
    expect((await A.put(`/documents/${d.id}/expiration`, { expirationDate: '2031-02-03T06:05:06+02:00' })).body.data.expireDate).toBe('2031-02-03T04:05:06.000');
    // A year below 100 reads back as itself, not as 19xx (as Date's own parsing has it).
    expect((await A.put(`/documents/${d.id}/expiration`, { expirationDate: '0050-06-01' })).body.data.expireDate).toBe('0050-06-01T00:00:00.000');
    expect((await A.get(`/documents/${d.id}`)).body.data.expireDate).toBe('0050-06-01T00:00:00.000');
    expect((await A.put(`/documents/${d.id}/expiration`, { expirationDate: null })).body.data.expireDate).toBeNull();
    expectError(await A.put(`/documents/${d.id}/expiration`, { expirationDate: 'next year' }), 400, "'expirationDate'");
    expectError(await A.put(`/documents/${d.id}/expiration`, { expirationDate: '2031-02-30T00:00:00' }), 400, "'expirationDate'");
    expectError(await A.put(`/documents/${d.id}/expiration`, {}), 400, "'expirationDate'");
  });

  test('review and expiration dates: given on create (a bad one makes no document), changed by setDocumentDates, the expiration route leaves the review date', async () => {
    const d = await newDoc(uniq('Dated'), { reviewDate: '2030-05-06T07:08:09Z', expirationDate: '2031-01-02' });
    expect((await A.get(`/documents/${d.id}?fields=reviewDate,expireDate`)).body.data).toMatchObject({ reviewDate: '2030-05-06T07:08:09.000', expireDate: '2031-01-02T00:00:00.000' });
    const name = uniq('Refused');
    expectError(await A.post('/documents', { folderId: folder.id, name, reviewDate: 'soon' }), 400, "'reviewDate'");
    expect((await A.get(`/documents?${q(`name eq '${name}'`)}`)).body.data).toEqual([]);

    const set = 'mutation ($id: UUID!, $input: DocumentDatesInput!) { setDocumentDates(documentId: $id, input: $input) { reviewDate expireDate } }';
    const dates = async (input: object) => (await A.gql(set, { id: d.documentId, input })).body;
    expect((await dates({ reviewDate: '2032-03-04T05:06:07+01:00' })).data.setDocumentDates).toEqual({ reviewDate: '2032-03-04T04:06:07.000', expireDate: '2031-01-02T00:00:00.000' });
    expect((await dates({ expirationDate: null })).data.setDocumentDates).toEqual({ reviewDate: '2032-03-04T04:06:07.000', expireDate: null });
    expect((await dates({})).errors[0].message).toBe("Send at least one of 'reviewDate', 'expirationDate' (null clears it).");
    expect((await dates({ reviewDate: '2032-02-30' })).errors[0].extensions.code).toBe('BAD_REQUEST');
    // Year 0 (PostgreSQL would keep it as 1 BC, which no read renders): refused on every path, nothing written.
    expect((await dates({ reviewDate: '0000-12-31T23:00:00Z' })).errors[0].extensions.code).toBe('BAD_REQUEST');
    const literal = await A.gql(`mutation { setDocumentDates(documentId: "${d.documentId}", input: { reviewDate: "0001-01-01T00:00:00+05:00" }) { reviewDate } }`);
    expect(literal.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expectError(await A.put(`/documents/${d.id}/expiration`, { expirationDate: '0000-01-01T00:00:00' }), 400, "'expirationDate'");
    expectError(await A.post('/documents', { folderId: folder.id, name, reviewDate: '0000-01-01T00:00:00' }), 400, "'reviewDate'");
    expect((await A.get(`/documents/${d.id}`)).status).toBe(200);
    expect((await A.put(`/documents/${d.id}/expiration`, { expirationDate: '2033-01-01', reviewDate: null })).body.data).toMatchObject({ expireDate: '2033-01-01T00:00:00.000', reviewDate: '2032-03-04T04:06:07.000' });
    const denied = await A.as(plain.token).gql(set, { id: d.documentId, input: { reviewDate: null } });
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await A.get(`/documents/${d.id}`)).body.data.reviewDate).toBe('2032-03-04T04:06:07.000');
  });

  test('an ordinary user may not copy, move or change expiration (403)', async () => {
    const U = A.as(plain.token);
    const d = await newDoc();
    expectError(await U.post(`/documents/${d.id}/copy`, { folderId: folder.id }), 403);
    expectError(await U.put(`/documents/${d.id}/move`, { folderId: folder.id }), 403);
    expectError(await U.put(`/documents/${d.id}/expiration`, { expirationDate: null }), 403);
  });
});

describe('form <-> document relations', () => {
  test('relateDocument by revision id, document id or name; GET /forminstance/{id}/documents lists them; unrelate removes one', async () => {
    const form = await newForm();
    const [d1, d2, d3] = [await newDoc(uniq('Rel-a')), await newDoc(uniq('Rel-b')), await newDoc(uniq('Rel-c'))];
    expectEnvelope(await A.put(`/forminstance/${form.revisionId}/relateDocument?relateToId=${d1.id}`), 'PUT', A.url(`/forminstance/${form.revisionId}/relateDocument?relateToId=${d1.id}`));
    expect((await A.put(`/forminstance/${form.formId}/relateDocument?relateToDocId=${d2.documentId}`)).status).toBe(200);
    expect((await A.put(`/forminstance/${form.formId}/relateDocument?relateToDocId=${encodeURIComponent(d3.name.toUpperCase())}`)).status).toBe(200);
    // Relating again changes nothing.
    expect((await A.put(`/forminstance/${form.formId}/relateDocument?relateToId=${d1.documentId}`)).status).toBe(200);
    const list = await A.get(`/forminstance/${form.revisionId}/documents`);
    expectEnvelope(list, 'GET', A.url(`/forminstance/${form.revisionId}/documents`));
    expect(list.body.data.map((d: Doc) => d.id)).toEqual([d1.id, d2.id, d3.id]);
    expect(list.body.pagination.totalRecords).toBe(3);
    expect((await A.put(`/forminstance/${form.formId}/unrelateDocument?relateToId=${d2.id}`)).status).toBe(200);
    expect((await A.put(`/forminstance/${form.formId}/unrelateDocument?relateToDocId=${d3.name}`)).status).toBe(200);
    expect((await A.get(`/forminstance/${form.formId}/documents`)).body.data.map((d: Doc) => d.id)).toEqual([d1.id]);
    expectError(await A.put(`/forminstance/${form.formId}/unrelateDocument?relateToId=${d2.id}`), 404, 'is not related');
  });

  test('a new form answers its related documents as an empty list (the Node client\'s getFormRelatedDocs)', async () => {
    const form = await newForm();
    const r = await A.get(`/forminstance/${form.revisionId}/documents`);
    expect([r.status, r.body.data]).toEqual([200, []]);
  });

  test('refusals: no document named, unknown form or document, a name two documents share', async () => {
    const form = await newForm();
    expectError(await A.put(`/forminstance/${form.formId}/relateDocument`), 400, /^The mandatory query parameter 'relateToId' \(or 'relateToDocId'\) is missing\.$/);
    // Sent blank, relateToDocId chooses no row of its own: the message names it, not only relateToId.
    for (const blank of ['', '%20']) {
      const r = await A.put(`/forminstance/${form.formId}/relateDocument?relateToDocId=${blank}`);
      expectError(r, 400, /^The query parameter 'relateToDocId' was sent without a value: give it one, or send 'relateToId' instead\.$/);
    }
    expectError(await A.put(`/forminstance/${form.formId}/relateDocument?relateToId=nope`), 400);
    expectError(await A.put(`/forminstance/${UNKNOWN_ID}/relateDocument?relateToId=${(await newDoc()).id}`), 404, 'Form instance');
    expectError(await A.put(`/forminstance/${form.formId}/relateDocument?relateToId=${UNKNOWN_ID}`), 404, 'Document');
    expectError(await A.put(`/forminstance/${form.formId}/relateDocument?relateToDocId=${uniq('none')}`), 404, 'Document');
    const twin = uniq('Twin');
    await newDoc(twin);
    await newDoc(twin);
    expectError(await A.put(`/forminstance/${form.formId}/relateDocument?relateToDocId=${twin}`), 409, 'More than one document');
  });

  test('a deleted document leaves the form\'s documents; relating while the document is deleted: 200 or 409, never a 500', async () => {
    const form = await newForm();
    const d = await newDoc();
    await A.put(`/forminstance/${form.formId}/relateDocument?relateToId=${d.id}`);
    expect((await A.del(`/documents/${d.documentId}`)).status).toBe(200);
    expect((await A.get(`/forminstance/${form.formId}/documents`)).body.data).toEqual([]);
    const rounds = [];
    for (let i = 0; i < 10; i++) {
      const doc = await newDoc();
      rounds.push(Promise.all([A.put(`/forminstance/${form.formId}/relateDocument?relateToId=${doc.id}`), A.del(`/documents/${doc.id}`)]));
    }
    for (const [relate, del] of await Promise.all(rounds)) {
      expect([200, 409]).toContain(relate.status);
      expect(del.status).toBe(200);
    }
    expect((await A.get(`/forminstance/${form.formId}/documents`)).body.data).toEqual([]);
  });
});

describe('check-out', () => {
  /** A document in a folder where the ordinary user is an Editor, so both may change it. */
  async function shared() {
    const f = (await A.post('/folders', { name: uniq('Shared') })).body.data;
    await A.put(`/folders/${f.id}/securitymembers/${plain.id}`, { securityRole: 2 });
    await A.put(`/folders/${f.id}/securitymembers/${admin.id}`, { securityRole: 1 });
    const doc = (await A.post('/documents', { folderId: f.id, name: uniq('Locked') })).body.data as Doc;
    return { folder: f, doc, U: A.as(plain.token) };
  }

  test('PUT documents/{id}/status {checkIn: 1} (the CheckInStatus the .NET and Python clients send) checks out to the caller; others get a 409 on every change until it is checked in', async () => {
    const { folder: f, doc, U } = await shared();
    const out = await U.put(`/documents/${doc.documentId}/status`, { checkIn: 1 });
    expectEnvelope(out, 'PUT', A.url(`/documents/${doc.documentId}/status`));
    expect(out.body.data).toMatchObject({ checkInStatus: 1, checkedOutById: plain.id, checkedOutBy: plain.name });
    expect(out.body.data.checkOutDate).toMatch(DATE);
    // The same answer again: no change.
    expect((await U.put(`/documents/${doc.documentId}/status`, { checkIn: '1' })).body.data.checkOutDate).toBe(out.body.data.checkOutDate);
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data[0]).toMatchObject({ checkInStatus: 1, checkedOutBy: plain.name });
    // The administrator, too, must wait for the check-in.
    expectError(await A.put(`/documents/${doc.documentId}/status`, { checkIn: 1 }), 409, /already checked out/);
    expectError(await A.put(`/documents/${doc.documentId}/expiration`, { expirationDate: '2030-01-01T00:00:00Z' }), 409, /checked out by/);
    expectError(await A.put(`/documents/${doc.documentId}/move`, { folderId: f.id }), 409, /checked out/);
    expectError(await A.del(`/documents/${doc.documentId}`), 409, /checked out/);
    expectError(await A.post('/files', undefined, await multipart({ documentId: doc.documentId }, 'x', 'x.txt')), 409, /checked out/);
    // Its holder changes it, and checks it in with an upload.
    expect((await U.put(`/documents/${doc.documentId}/expiration`, { expirationDate: '2030-01-01T00:00:00Z' })).status).toBe(200);
    const up = await U.post('/files', undefined, await multipart({ documentId: doc.documentId, checkIn: 'true' }, 'mine', 'm.txt'));
    expect(up.body.data).toMatchObject({ fileName: 'm.txt', checkInStatus: 0, checkedOutById: ZERO_GUID, checkedOutBy: '', checkOutDate: null });
    expect((await A.put(`/documents/${doc.documentId}/expiration`, { expirationDate: null })).status).toBe(200);
  });

  test('only the holder or an administrator checks it in; bad values are 400s', async () => {
    const { doc, U } = await shared();
    await A.put(`/documents/${doc.documentId}/status`, { checkIn: 1 });
    expectError(await U.put(`/documents/${doc.documentId}/status`, { checkIn: 0 }), 403, /only they or an administrator/);
    // Anything but 0 or 1 (a number or its text), booleans too, is told the values checkInStatus reads, not an Int's range.
    for (const [value, shown] of [['maybe', '"maybe"'], [2, '2'], [true, 'true'], [false, 'false'], [1.5, '1.5'], [[1], '[1]']] as const) {
      expectError(await U.put(`/documents/${doc.documentId}/status`, { checkIn: value }), 400, `The field 'checkIn' must be 0 (check in) or 1 (check out), the values of checkInStatus, got ${shown}.`);
    }
    const form = { headers: { 'content-type': 'application/x-www-form-urlencoded' }, raw: 'checkIn=true' };
    expectError(await U.put(`/documents/${doc.documentId}/status`, undefined, form), 400, `The field 'checkIn' must be 0 (check in) or 1 (check out), the values of checkInStatus, got "true".`);
    expectError(await U.put(`/documents/${doc.documentId}/status`, {}), 400, /checkIn/);
    const back = await A.put(`/documents/${doc.documentId}/status`, { checkIn: 0 });
    expect(back.body.data).toMatchObject({ checkInStatus: 0, checkedOutById: ZERO_GUID });
    // Forced by an administrator: the holder's check-out is gone.
    await U.put(`/documents/${doc.documentId}/status`, { checkIn: 1 });
    expect((await A.put(`/documents/${doc.documentId}/status`, { checkIn: 0 })).body.data.checkInStatus).toBe(0);
  });

  test('checkedInBy names who last checked the document in: its creator until someone does', async () => {
    const { doc, U } = await shared();
    expect(doc.checkedInBy).toBe(admin.name);
    await U.put(`/documents/${doc.documentId}/status`, { checkIn: 1 });
    const back = await U.put(`/documents/${doc.documentId}/status`, { checkIn: 0 });
    expect(back.body.data).toMatchObject({ checkInStatus: 0, checkedInBy: plain.name });
    expect((await A.get(`/documents/${doc.documentId}`)).body.data.checkedInBy).toBe(plain.name);
    // Forced in by an administrator: the administrator.
    await U.put(`/documents/${doc.documentId}/status`, { checkIn: 1 });
    expect((await A.put(`/documents/${doc.documentId}/status`, { checkIn: 0 })).body.data.checkedInBy).toBe(admin.name);
  });

  test('a check-out and a check-in each name their caller as the changer, with a new modifyDate; one that changes nothing neither', async () => {
    const { doc, U } = await shared();
    const out = (await U.put(`/documents/${doc.documentId}/status`, { checkIn: 1 })).body.data;
    expect(out).toMatchObject({ modifyById: plain.id, modifyBy: plain.name, createById: admin.id });
    expect(out.modifyDate > (doc.modifyDate as string)).toBe(true);
    // Already checked out to the caller: no change.
    expect((await U.put(`/documents/${doc.documentId}/status`, { checkIn: 1 })).body.data.modifyDate).toBe(out.modifyDate);
    const back = (await A.put(`/documents/${doc.documentId}/status`, { checkIn: 0 })).body.data;
    expect(back).toMatchObject({ modifyById: admin.id, modifyBy: admin.name, createById: admin.id });
    expect(back.modifyDate > out.modifyDate).toBe(true);
  });

  test('a Viewer may not check a document out or in: a 403 that says so', async () => {
    const f = (await A.post('/folders', { name: uniq('Viewed') })).body.data;
    await A.put(`/folders/${f.id}/securitymembers/${plain.id}`, { securityRole: 4 });
    const doc = (await A.post('/documents', { folderId: f.id, name: uniq('Read') })).body.data as Doc;
    const U = A.as(plain.token);
    expectError(await U.put(`/documents/${doc.documentId}/status`, { checkIn: 1 }), 403, /^Checking a document out or in needs the Publisher role/);
    expect((await A.get(`/documents/${doc.documentId}`)).body.data.checkInStatus).toBe(0);
  });

  test('two check-outs at once: exactly one holds it', async () => {
    const { doc, U } = await shared();
    const replies = await Promise.all([A.put(`/documents/${doc.documentId}/status`, { checkIn: 1 }), U.put(`/documents/${doc.documentId}/status`, { checkIn: 1 })]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
    const holder = (await A.get(`/documents/${doc.documentId}`)).body.data.checkedOutById;
    expect([admin.id, plain.id]).toContain(holder);
  });

  test('a check-in by the holder racing a check-out by another, and a check-out racing a delete, 20 rounds each: as one order or the other, nothing lost', async () => {
    for (let round = 0; round < 20; round++) {
      const { folder: f, doc, U } = await shared();
      await A.put(`/documents/${doc.documentId}/status`, { checkIn: 1 });
      const [back, out] = await Promise.all([A.put(`/documents/${doc.documentId}/status`, { checkIn: 0 }), U.put(`/documents/${doc.documentId}/status`, { checkIn: 1 })]);
      expect(back.status).toBe(200);
      // The other's check-out came first (still held: the 409) or after the check-in (it holds it now).
      if (out.status !== 200) expectError(out, 409, `Document '${doc.name}' is already checked out by ${admin.name}.`);
      expect((await A.get(`/documents/${doc.documentId}`)).body.data.checkedOutById).toBe(out.status === 200 ? plain.id : ZERO_GUID);

      const other = (await A.post('/documents', { folderId: f.id, name: uniq('Going') })).body.data as Doc;
      const [held, gone] = await Promise.all([U.put(`/documents/${other.documentId}/status`, { checkIn: 1 }), A.del(`/documents/${other.documentId}`)]);
      // Checked out first, the delete is refused; deleted first, the check-out is.
      expect([held.status, gone.status].sort()).toEqual([200, 409]);
      if (gone.status === 409) expectError(gone, 409, /checked out/);
      else expectError(held, 409, `Document '${other.name}' is deleted: it cannot be checked out or in.`);
      expect((await A.get(`/documents/${other.documentId}`)).body.data).toMatchObject(gone.status === 200 ? { archive: 2, checkedOutById: ZERO_GUID } : { archive: 0, checkedOutById: plain.id });
    }
  }, 60_000);

  test('a check-out that waited for another user\'s to commit names that user in its 409', async () => {
    const { doc } = await shared();
    // Another user's check-out, committed while the request waits for the document's row.
    const checkOut = { text: 'update document set checked_out_by_id = $3, checked_out_at = now() where tenant_id = $1 and id = $2', values: [A.t.tenantId, doc.documentId, plain.id] };
    expectError(await whileHeld(h, checkOut, () => A.put(`/documents/${doc.documentId}/status`, { checkIn: 1 })), 409, `checked out by ${plain.name}`);
  });
});

describe('who may', () => {
  test('an ordinary user reads documents and relates them to forms, but may not create or delete documents', async () => {
    const U = A.as(plain.token);
    const d = await newDoc();
    expect((await U.get(`/documents/${d.id}`)).status).toBe(200);
    expectError(await U.post('/documents', { folderId: folder.id, name: 'mine' }), 403);
    expectError(await U.del(`/documents/${d.id}`), 403);
    const form = await newForm();
    expect((await U.put(`/forminstance/${form.formId}/relateDocument?relateToId=${d.id}`)).status).toBe(200);
    expect((await A.get(`/documents/${d.id}`)).body.data).toEqual(d);
  });

  test('another tenant sees none of them and cannot relate to them', async () => {
    const d = await newDoc();
    expectError(await B.get(`/documents/${d.id}`), 404);
    expectError(await B.del(`/documents/${d.id}`), 404);
    expect((await B.get(`/documents?${q(`name eq '${d.name}'`)}`)).body.data).toEqual([]);
    const theirs = await formTemplateWith(B, ['f']);
    const theirForm = (await B.post(`/formtemplates/${theirs.id}/forms`, {})).body.data;
    expectError(await B.put(`/forminstance/${theirForm.formId}/relateDocument?relateToId=${d.id}`), 404);
    expectError(await B.post('/documents', { folderId: folder.id, name: 'into A' }), 404);
  });
});

describe('GraphQL', () => {
  test('documents with folder, revisions and forms; a form with its documents; statements constant as the page grows', async () => {
    const tag = uniq('gql');
    const form = await newForm();
    for (let i = 0; i < 4; i++) {
      const d = await newDoc(`${tag}-${i}`);
      await A.put(`/forminstance/${form.formId}/relateDocument?relateToId=${d.id}`);
    }
    const query = (limit: number) =>
      A.gql(`query ($q: String) { documents(q: $q, limit: ${limit}) { totalRecords items { name folder { folderPath } revisions(limit: 5) { revision } forms(limit: 5) { formId documents(limit: 5) { name } } } } }`, {
        q: `name like '${tag}%'`,
      });
    const small = await h.countQueries(() => query(1));
    const big = await h.countQueries(() => query(4));
    expect(big.result.body.errors).toBeUndefined();
    const page = big.result.body.data.documents;
    expect(page.totalRecords).toBe(4);
    expect(page.items[0]).toMatchObject({ name: `${tag}-0`, folder: { folderPath: folder.folderPath }, revisions: [{ revision: '1' }], forms: [{ formId: form.formId }] });
    expect(page.items[0].forms[0].documents).toHaveLength(4);
    expect(big.statements.length).toBe(small.statements.length);
  });
});
