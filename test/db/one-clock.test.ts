/**
 * One clock for every persisted timestamp, the database's (docs/decisions.md, "Data integrity and
 * transactions"): rows the ORM writes and rows SQL writes are dated alike, by `now()`, so a
 * record made and changed in one request never shows its modifyDate before its createDate, what a
 * write answers is what a later GET answers, and a process whose clock is off dates nothing by it.
 */
import { Harness } from '../harness.js';
import { type Api, adminApi, multipart, uniq } from '../rest/support.js';

let h: Harness;
let A: Api;
let folder: { id: string };

beforeAll(async () => {
  h = await Harness.start();
  A = await adminApi(h);
  folder = (await A.post('/folders', { name: uniq('Clocks') })).body.data;
});
afterAll(() => h.stop());

/** The stored dates of a document, its current revision and that revision's file, to the microsecond. */
async function storedDates(documentId: string) {
  const r = await h.services.reads.query(
    `select d.created_at::text as "created", d.modified_at::text as "modified", r.created_at::text as "revision", f.created_at::text as "file"
       from document d join document_revision r on r.tenant_id = d.tenant_id and r.id = d.revision_id
       join document_file f on f.tenant_id = d.tenant_id and f.revision_id = r.id
      where d.tenant_id = $1 and d.id = $2`,
    [A.t.tenantId, documentId],
  );
  return r.rows[0] as { created: string; modified: string; revision: string; file: string };
}

test('POST documents with its file: one instant for the document, its revision and its file; a GET answers the same dates', async () => {
  const r = await A.post('/documents', undefined, await multipart({ folderId: folder.id, name: uniq('WithFile') }, 'dated once', 'd.txt'));
  expect(r.status).toBe(200);
  const made = r.body.data as { id: string; documentId: string; createDate: string; modifyDate: string };
  expect(made.modifyDate >= made.createDate).toBe(true);
  // Made and given its file in one transaction: one now().
  expect(made.modifyDate).toBe(made.createDate);
  const got = (await A.get(`/documents/${made.documentId}`)).body.data;
  expect([got.createDate, got.modifyDate]).toEqual([made.createDate, made.modifyDate]);
  expect((await A.get(`/documents/${made.documentId}/revisions/${made.id}`)).body.data.createDate).toBe(made.createDate);
  const stored = await storedDates(made.documentId);
  expect(stored).toEqual({ created: stored.created, modified: stored.created, revision: stored.created, file: stored.created });
});

test('a new revision: the document\'s modifyDate is when the revision and its file were made', async () => {
  const doc = (await A.post('/documents', undefined, await multipart({ folderId: folder.id, name: uniq('Revised') }, 'one', '1.txt'))).body.data;
  const r = await A.post('/files', undefined, await multipart({ documentId: doc.documentId }, 'two', '2.txt'));
  expect(r.status).toBe(200);
  const got = (await A.get(`/documents/${doc.documentId}`)).body.data;
  expect(got.id).not.toBe(doc.id);
  expect(got.createDate).toBe(doc.createDate);
  expect(got.modifyDate >= got.createDate).toBe(true);
  expect((await A.get(`/documents/${doc.documentId}/revisions/${got.id}`)).body.data.createDate).toBe(got.modifyDate);
  const stored = await storedDates(doc.documentId);
  expect([stored.revision, stored.file]).toEqual([stored.modified, stored.modified]);
});
