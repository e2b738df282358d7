/**
 * Recent and frequent documents (the Node client's `GET lastdocuments` and `GET frequentdocuments`,
 * read as arrays with `meta.status` 200): which reads count as opening a document, the orders,
 * who sees what, and that reads at once lose no count.
 */
import { type Api, expectEnvelope, multipart, q, uniq } from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

let U: Api;

setUpTwoTenants();
beforeAll(async () => {
  U = A.as(plain.token);
});

type Doc = { id: string; documentId: string; name: string };
const names = (r: { body: { data: { name: string }[] } }) => r.body.data.map((d) => d.name);

async function documents(tag: string, n: number): Promise<Doc[]> {
  const folder = (await A.post('/folders', { name: uniq('Recent') })).body.data;
  const out: Doc[] = [];
  for (let i = 0; i < n; i++) out.push((await A.post('/documents', { folderId: folder.id, name: `${tag}-${i}` })).body.data);
  return out;
}
const only = (tag: string) => q(`name like '${tag}%'`);

test('reading a document by its id or its file opens it; lastdocuments lists the newest first, frequentdocuments the most opened', async () => {
  const tag = uniq('Open');
  // The fourth is never opened.
  const [d0, d1, d2] = await documents(tag, 4);
  const fileId = (await A.post('/files', undefined, await multipart({ documentId: d2.documentId }, 'bytes', 'a.txt'))).body.data.fileId;
  // Made, changed or listed is not opened.
  expect(names(await A.get(`/lastdocuments?${only(tag)}`))).toEqual([]);
  await A.get(`/documents/${d0.id}`);
  await A.get(`/documents/${d1.documentId}`);
  await A.get(`/documents/${d0.id}`);
  expect((await A.get(`/files/${fileId}`)).status).toBe(200);
  await A.gql(`{ document(documentId: "${d1.id}") { id } }`);
  await A.get(`/documents/${d1.id}`);

  const last = await A.get(`/lastdocuments?${only(tag)}`);
  expectEnvelope(last, 'GET', A.url(`/lastdocuments?${only(tag)}`));
  expect(names(last)).toEqual([`${tag}-1`, `${tag}-2`, `${tag}-0`]);
  expect(last.body.pagination.totalRecords).toBe(3);
  expect(names(await A.get(`/frequentdocuments?${only(tag)}`))).toEqual([`${tag}-1`, `${tag}-0`, `${tag}-2`]);
  expect(names(await A.get(`/lastdocuments?${only(tag)}&limit=1&offset=1`))).toEqual([`${tag}-2`]);
});

test('each user has their own; deleted documents and those a user may no longer see drop out; other tenants see none', async () => {
  const tag = uniq('Mine');
  const [d0, d1] = await documents(tag, 2);
  await U.get(`/documents/${d0.id}`);
  await U.get(`/documents/${d1.id}`);
  await A.get(`/documents/${d0.id}`);
  expect(names(await U.get(`/lastdocuments?${only(tag)}`))).toEqual([`${tag}-1`, `${tag}-0`]);
  expect(names(await A.get(`/lastdocuments?${only(tag)}`))).toEqual([`${tag}-0`]);
  expect((await A.del(`/documents/${d1.documentId}`)).status).toBe(200);
  expect(names(await U.get(`/lastdocuments?${only(tag)}`))).toEqual([`${tag}-0`]);
  // The folder gets members, the ordinary user not among them.
  const folderId = (await A.get(`/documents/${d0.id}`)).body.data.folderId;
  await A.put(`/folders/${folderId}/securitymembers/${(await A.get('/users/me')).body.data.id}`, { memberType: 0, securityRole: 1 });
  expect(names(await U.get(`/lastdocuments?${only(tag)}`))).toEqual([]);
  expect(names(await B.get(`/lastdocuments?${only(tag)}`))).toEqual([]);
});

test('ten reads of one document at once count ten', async () => {
  const tag = uniq('Many');
  const [d0, d1] = await documents(tag, 2);
  for (let i = 0; i < 3; i++) await A.get(`/documents/${d1.id}`);
  const replies = await Promise.all(Array.from({ length: 10 }, () => A.get(`/documents/${d0.id}`)));
  expect(replies.every((r) => r.status === 200)).toBe(true);
  const { rows } = await h.services.reads.query('select access_count from document_access where tenant_id = $1 and document_id = $2', [A.t.tenantId, d0.documentId]);
  expect(rows).toEqual([{ access_count: 10 }]);
  expect(names(await A.get(`/frequentdocuments?${only(tag)}`))).toEqual([`${tag}-0`, `${tag}-1`]);
});

test('GraphQL: lastDocuments with relations; statements per page stay the same as it grows', async () => {
  const tag = uniq('Gql');
  const docs = await documents(tag, 4);
  for (const d of docs) await A.get(`/documents/${d.id}`);
  const page = (limit: number) => A.gql(`query ($q: String) { lastDocuments(q: $q, limit: ${limit}) { totalRecords items { name folder { name } } } }`, { q: `name like '${tag}%'` });
  const small = await h.countQueries(() => page(1));
  const big = await h.countQueries(() => page(4));
  expect(big.result.body.errors).toBeUndefined();
  expect(big.result.body.data.lastDocuments.items.map((d: { name: string }) => d.name)).toEqual([3, 2, 1, 0].map((i) => `${tag}-${i}`));
  expect(big.statements.length).toBe(small.statements.length);
});
