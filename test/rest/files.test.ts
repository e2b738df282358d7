/**
 * Files (rest-api-v1.md "Files": `GET files/{id}` with the raw bytes; client-compatibility.md:
 * `POST files` multipart with the file part `fileUpload` (or the .NET and Java spellings) and text
 * parts `documentId`, `fileName`, `fileLength`, `contentType`, `revision`, `changeText`; the answer
 * carries `fileName`, `fileSize`, `extension`, `contentType`; `GET files?q=[id] eq '<id>'`).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { connect, splitAnswer } from '../raw-socket.js';
import { adminApi, expectEnvelope, expectError, GUID, multipart, q, uniq, UNKNOWN_ID, ZERO_GUID } from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

let folder: { id: string };

setUpTwoTenants();
beforeAll(async () => {
  folder = (await A.post('/folders', { name: uniq('Files') })).body.data;
});

const newDoc = async () => (await A.post('/documents', { folderId: folder.id, name: uniq('Doc'), description: 'd', documentState: 1 })).body.data as { id: string; documentId: string; name: string };
/** Every byte value, twice: what a text round trip would break. */
const BINARY = new Uint8Array([...Array(256).keys(), ...Array(256).keys()]);

/** The file ids tenant A's files have in the store (a directory in the tests). */
function storedIds(): string[] {
  const dir = path.join(h.services.config.filesDir, A.t.tenantId);
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}
/** Runs `fn` and answers the files it left in the store (the purge only takes files away meanwhile). */
async function filesLeftBy(fn: () => Promise<unknown>): Promise<string[]> {
  const before = new Set(storedIds());
  await fn();
  return storedIds().filter((id) => !before.has(id));
}

async function upload(documentId: string, content: string | Uint8Array, parts: Record<string, string> = {}, fileName = 'file.bin', partName = 'fileUpload', api = A) {
  return api.post('/files', undefined, await multipart({ documentId, ...parts }, content, fileName, partName));
}

describe('uploads', () => {
  test('POST files as the Node client sends it: 200, the document with the file fields; the current revision takes the first file', async () => {
    const doc = await newDoc();
    const text = `Test file content ${Date.now()}`;
    const name = `test-file-${Date.now()}.txt`;
    const r = await upload(doc.documentId, text, { fileName: name, fileLength: String(Buffer.byteLength(text)), contentType: 'text/plain', revision: 'rev-1', changeText: 'Integration test file upload' }, name);
    expectEnvelope(r, 'POST', A.url('/files'));
    expect(r.body.data).toMatchObject({
      dataType: 'Document',
      id: doc.id,
      documentId: doc.documentId,
      fileName: name,
      fileSize: Buffer.byteLength(text),
      extension: 'txt',
      contentType: 'text/plain',
      revision: 'rev-1',
      changeText: 'Integration test file upload',
    });
    expect(r.body.data.fileId).toMatch(GUID);
    expect(r.body.data.fileId).not.toBe(ZERO_GUID);
    // The document and its revision list show it too.
    expect((await A.get(`/documents/${doc.documentId}`)).body.data).toMatchObject({ fileName: name, fileId: r.body.data.fileId });
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data).toHaveLength(1);
  });

  test('checkInDocumentState releases (Released, any case, or 1) or unreleases (Unreleased, 0) the document with the upload, unless checkIn is false; other values are a 400', async () => {
    const unreleased = async () => (await A.post('/documents', { folderId: folder.id, name: uniq('Draft'), documentState: 0 })).body.data as { id: string; documentId: string; releaseState: number };
    const doc = await unreleased();
    expect(doc.releaseState).toBe(0);
    // As the Node client's callers send it: no checkIn (its default is a check-in).
    const up = await upload(doc.documentId, 'v1', { revision: '1', changeReason: '', checkInDocumentState: 'Released', name: 'x' }, 'a.txt');
    expect(up.body.data).toMatchObject({ releaseState: 1, fileName: 'a.txt' });
    expect((await A.get(`/documents/${doc.documentId}`)).body.data.releaseState).toBe(1);
    expect((await upload(doc.documentId, 'v2', { checkInDocumentState: 'unreleased', checkIn: 'true' })).body.data.releaseState).toBe(0);
    expect((await upload(doc.documentId, 'v3', { checkInDocumentState: ' RELEASED ' })).body.data.releaseState).toBe(1);
    expect((await upload(doc.documentId, 'v4', { checkInDocumentState: '0' })).body.data.releaseState).toBe(0);
    expect((await upload(doc.documentId, 'v5', { checkInDocumentState: '1' })).body.data.releaseState).toBe(1);
    // checkIn false: no check-in, so no check-in state; '' is none.
    expect((await upload(doc.documentId, 'v6', { checkInDocumentState: 'Unreleased', checkIn: 'false' })).body.data.releaseState).toBe(1);
    expect((await upload(doc.documentId, 'v7', { checkInDocumentState: '' })).body.data.releaseState).toBe(1);
    // Anything else (Replace, which replaces a revision's file in VisualVault, included) refuses the upload whole.
    for (const bad of ['Replace', '2', 'yes']) {
      let refused: Awaited<ReturnType<typeof upload>> | undefined;
      expect(await filesLeftBy(async () => (refused = await upload(doc.documentId, 'no', { checkInDocumentState: bad })))).toEqual([]);
      expectError(refused!, 400, /'checkInDocumentState' must be 1 \(or Released\) or 0 \(or Unreleased\)/);
    }
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data).toHaveLength(7);
    // GraphQL's uploadFile takes the same argument.
    const other = await unreleased();
    const gql = await A.gql('mutation ($id: UUID!, $b: String!) { uploadFile(input: { documentId: $id, checkInDocumentState: "Released", fileUpload: { name: "g.txt", base64: $b } }) { releaseState } }', { id: other.documentId, b: Buffer.from('gql').toString('base64') });
    expect(gql.body.data.uploadFile.releaseState).toBe(1);
    const bad = await A.gql('mutation ($id: UUID!, $b: String!) { uploadFile(input: { documentId: $id, checkInDocumentState: "Replace", fileUpload: { name: "g.txt", base64: $b } }) { releaseState } }', { id: other.documentId, b: Buffer.from('gql').toString('base64') });
    expect(bad.body.errors[0]).toMatchObject({ message: 'Expected 1 (or Released) or 0 (or Unreleased), got "Replace"', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
  });

  test("checkIn as the Python client sends it (the check-in status: 0 checks in, 1 does not), beside true and false in any case; anything else is a 400", async () => {
    const draft = async () => (await A.post('/documents', { folderId: folder.id, name: uniq('Held'), documentState: 0 })).body.data as { documentId: string };
    const cases: [string, number, number][] = [['0', 0, 1], ['1', 1, 0], ['TRUE', 0, 1], ['False', 1, 0]];
    for (const [checkIn, status, state] of cases) {
      const doc = await draft();
      expect((await A.put(`/documents/${doc.documentId}/status`, { checkIn: 1 })).body.data.checkInStatus).toBe(1);
      const up = await upload(doc.documentId, 'py', { checkIn, checkInDocumentState: 'Released', changeReason: 'py' });
      expect([checkIn, up.status, up.body.data?.checkInStatus, up.body.data?.releaseState]).toEqual([checkIn, 200, status, state]);
    }
    const doc = await draft();
    for (const bad of ['2', 'yes']) expectError(await upload(doc.documentId, 'no', { checkIn: bad }), 400, /'checkIn' must be true or 0/);
    // GraphQL takes a boolean literal as before.
    const gql = await A.gql('mutation ($id: UUID!, $b: String!) { uploadFile(input: { documentId: $id, checkIn: true, checkInDocumentState: "Released", fileUpload: { name: "g.txt", base64: $b } }) { releaseState } }', { id: doc.documentId, b: Buffer.from('gql').toString('base64') });
    expect(gql.body.data?.uploadFile.releaseState).toBe(1);
  });

  test('GET files/{id} answers the bytes exactly, by revision id, file id or document id; GET files?q=[id] eq too', async () => {
    const doc = await newDoc();
    const up = (await upload(doc.documentId, BINARY, {}, 'every byte.bin')).body.data;
    for (const id of [doc.id, up.fileId, doc.documentId]) {
      const r = await A.get(`/files/${id}`);
      expect([id, r.status]).toEqual([id, 200]);
      expect(r.headers.get('content-type')).toBe('application/octet-stream');
      expect(r.headers.get('content-disposition')).toBe('attachment; filename="every byte.bin"');
      expect(Buffer.from(r.bytes).equals(Buffer.from(BINARY))).toBe(true);
    }
    // A name beyond ASCII is kept in filename* (RFC 6266), with an ASCII stand-in in filename.
    const named = await newDoc();
    await upload(named.documentId, 'x', { fileName: 'Über "plan" 計画.txt' }, 'Über "plan" 計画.txt');
    const got = await A.get(`/files/${named.documentId}`);
    expect(got.headers.get('content-disposition')).toBe(`attachment; filename="_ber \\"plan\\" __.txt"; filename*=UTF-8''%C3%9Cber%20%22plan%22%20%E8%A8%88%E7%94%BB.txt`);
    // One stand-in per character: an emoji (two UTF-16 halves) is one '_', not two.
    const emoji = await newDoc();
    await upload(emoji.documentId, 'x', { fileName: 'plan \u{1F600}.txt' }, 'plan \u{1F600}.txt');
    expect((await A.get(`/files/${emoji.documentId}`)).headers.get('content-disposition')).toBe(`attachment; filename="plan _.txt"; filename*=UTF-8''plan%20%F0%9F%98%80.txt`);
    // As the Node client sends it (only spaces and quotes encoded), with the upload's `id`.
    const byQuery = await A.get(`/files?q=[id]%20eq%20%27${up.id}%27`);
    expect((await A.get(`/files?${q(`fileId eq '${up.fileId}'`)}`)).status).toBe(200);
    expect(byQuery.status).toBe(200);
    expect(Buffer.from(byQuery.bytes).equals(Buffer.from(BINARY))).toBe(true);
    expectError(await A.get(`/files?${q(`[id] eq '${UNKNOWN_ID}'`)}`), 404, /No file/);
    expectError(await A.get(`/files/${UNKNOWN_ID}`), 404, /No file/);
    const empty = await newDoc();
    for (const id of [empty.documentId, empty.id]) expectError(await A.get(`/files/${id}`), 404, `Document '${empty.name}' has no file yet: POST files uploads one.`);
  });

  test('a second upload makes a new revision, numbered on, with the index field values of the one before; every revision keeps its file', async () => {
    const field = (await A.post('/indexfields', { label: uniq('Kept'), fieldType: 'Text' })).body.data;
    await A.put(`/indexfields/${field.id}/folders/${folder.id}`);
    const doc = await newDoc();
    await upload(doc.documentId, 'first', {}, 'a.txt');
    await A.put(`/documents/${doc.id}/indexfields/${field.id}`, { value: 'carried' });
    const second = (await upload(doc.id, 'second', { changeReason: 'why' }, 'b.txt')).body.data;
    expect(second).toMatchObject({ revision: '2', fileName: 'b.txt', changeText: 'why', documentId: doc.documentId });
    expect(second.id).not.toBe(doc.id);
    const third = (await upload(doc.documentId, 'third', { revision: 'final' }, 'c.txt')).body.data;
    expect(third.revision).toBe('final');
    const revisions = (await A.get(`/documents/${doc.documentId}/revisions`)).body.data as { id: string; revision: string; fileName: string }[];
    expect(revisions.map((r) => [r.revision, r.fileName])).toEqual([['1', 'a.txt'], ['2', 'b.txt'], ['final', 'c.txt']]);
    expect((await A.get(`/files/${revisions[0].id}`)).text).toBe('first');
    // Each revision's href reads that revision, not the document's current one.
    const first = revisions[0] as unknown as { href: string };
    expect(first.href).toBe(`~/documents/${doc.documentId}/revisions/${revisions[0].id}`);
    expect((await A.get(first.href.slice(1))).body.data).toMatchObject({ id: revisions[0].id, revision: '1', fileName: 'a.txt' });
    expect((await A.get(`/files/${doc.documentId}`)).text).toBe('third');
    expect((await A.get(`/documents/${doc.documentId}/indexfields/${field.id}`)).body.data.value).toBe('carried');
    expect((await A.get(`/documents/${doc.documentId}/revisions/${revisions[0].id}/indexfields/${field.id}`)).body.data.value).toBe('carried');
  });

  test('the first file is a change of the document: modifyDate and modifyBy name the upload and its uploader', async () => {
    const secured = (await A.post('/folders', { name: uniq('Audit') })).body.data;
    await A.put(`/folders/${secured.id}/securitymembers/${plain.id}`, { securityRole: 3 });
    const doc = (await A.post('/documents', { folderId: secured.id, name: uniq('D') })).body.data;
    const up = await upload(doc.documentId, 'by another', {}, 'a.txt', 'fileUpload', A.as(plain.token));
    expect(up.status).toBe(200);
    const read = (await A.get(`/documents/${doc.documentId}`)).body.data;
    expect(read).toMatchObject({ createById: doc.createById, modifyById: plain.id, modifyBy: plain.name });
    expect(read.modifyDate > read.createDate).toBe(true);
    expect(up.body.data).toMatchObject({ modifyById: plain.id, modifyDate: read.modifyDate });
  });

  test('revision labels do not repeat: a label taken on the document is a 409 (nothing kept), the next number follows the highest', async () => {
    const doc = await newDoc();
    for (const n of [1, 2, 3]) await upload(doc.documentId, `r${n}`, {}, `${n}.txt`);
    const labels = async () => ((await A.get(`/documents/${doc.documentId}/revisions`)).body.data as { revision: string }[]).map((r) => r.revision);
    let refused: Awaited<ReturnType<typeof upload>> | undefined;
    expect(await filesLeftBy(async () => (refused = await upload(doc.documentId, 'again', { revision: '2' }, 'again.txt')))).toEqual([]);
    expectError(refused!, 409, "Document '");
    expectError(refused!, 409, /revision '2'/);
    expect(await labels()).toEqual(['1', '2', '3']);
    // Numbered on from the highest number, whatever the count of revisions or the current label.
    await upload(doc.documentId, 'ten', { revision: '10' }, '10.txt');
    await upload(doc.documentId, 'named', { revision: 'draft' }, 'draft.txt');
    expect((await upload(doc.documentId, 'next', {}, 'next.txt')).body.data.revision).toBe('11');
    expect(await labels()).toEqual(['1', '2', '3', '10', 'draft', '11']);
    expectError(await upload(doc.documentId, 'dup', { revision: 'draft' }, 'dup.txt'), 409, /draft/);
    // One label sent twice at once: exactly one upload takes it.
    const racing = await Promise.all([1, 2].map((i) => upload(doc.documentId, `race ${i}`, { revision: 'raced' }, `race${i}.txt`)));
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await labels()).filter((l) => l === 'raced')).toHaveLength(1);
    // Labelling the first file's revision by its own label is no repeat.
    const fresh = await newDoc();
    expect((await upload(fresh.documentId, 'x', { revision: '1' }, 'x.txt')).status).toBe(200);
  });

  test('changeText and changeReason name one change text: both sent must agree (a 400 keeping nothing); a label on more than one line is a 400', async () => {
    const doc = await newDoc();
    expect((await upload(doc.documentId, 'one', { changeText: 'same', changeReason: 'same' }, 'one.txt')).body.data.changeText).toBe('same');
    let refused: Awaited<ReturnType<typeof upload>> | undefined;
    expect(await filesLeftBy(async () => (refused = await upload(doc.documentId, 'two', { changeText: 'this', changeReason: 'that' }, 'two.txt')))).toEqual([]);
    expectError(refused!, 400, "The change text ('changeText', 'changeReason') was sent 2 times with different values ('this' as 'changeText' and 'that' as 'changeReason'): send it once.");
    expectError(await upload(doc.documentId, 'three', { revision: 'two\nlines' }, 'three.txt'), 400, "The field 'revision' may not contain control characters.");
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data.map((r: { changeText: string }) => r.changeText)).toEqual(['same']);
  });

  test('a folder with allowRevisions false: a document takes its first file, and a further upload is a 409 that keeps nothing', async () => {
    const single = (await A.post('/folders', { name: uniq('NoRevisions'), description: '', allowRevisions: false })).body.data;
    const doc = (await A.post('/documents', { folderId: single.id, name: uniq('One') })).body.data;
    expect((await upload(doc.documentId, 'first', {}, 'first.txt')).status).toBe(200);
    let refused: Awaited<ReturnType<typeof upload>> | undefined;
    expect(await filesLeftBy(async () => (refused = await upload(doc.documentId, 'second', {}, 'second.txt')))).toEqual([]);
    expectError(refused!, 409, `Folder '${single.name}' does not allow revisions`);
    const gql = await filesLeftBy(async () => {
      const r = await A.gql('mutation ($id: UUID!, $b: String!) { uploadFile(input: { documentId: $id, fileUpload: { name: "g.txt", base64: $b } }) { id } }', { id: doc.documentId, b: Buffer.from('gql').toString('base64') });
      expect(r.body.errors[0]).toMatchObject({ message: expect.stringContaining('does not allow revisions'), extensions: { code: 'CONFLICT' } });
    });
    expect(gql).toEqual([]);
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data.map((r: { fileName: string }) => r.fileName)).toEqual(['first.txt']);
    expect((await A.get(`/files/${doc.documentId}`)).text).toBe('first');
    // Allowed again, it takes revisions again.
    await A.put(`/folders/${single.id}`, { allowRevisions: true });
    expect((await upload(doc.documentId, 'second', {}, 'second.txt')).body.data.revision).toBe('2');
  });

  test("GET files?q=[documentId] eq answers the document's current file, as files/{documentId} does (it answered the first revision's)", async () => {
    const doc = await newDoc();
    const byDocument = `/files?${q(`[documentId] eq '${doc.documentId}'`)}`;
    await upload(doc.documentId, 'one', {}, '1.txt');
    expect((await A.get(byDocument)).text).toBe('one');
    await upload(doc.documentId, 'two', {}, '2.txt');
    const three = (await upload(doc.documentId, 'three', {}, '3.txt')).body.data;
    expect([(await A.get(byDocument)).text, (await A.get(`/files/${doc.documentId}`)).text]).toEqual(['three', 'three']);
    // The current revision deleted, the one before is current again: on both paths.
    await A.del(`/documents/revisions/${three.id}`);
    expect([(await A.get(byDocument)).text, (await A.get(`/files/${doc.documentId}`)).text]).toEqual(['two', 'two']);
  });

  test('DELETE documents/revisions/{revId} deletes one revision with its file; the one before becomes current again; the only one stays', async () => {
    const doc = await newDoc();
    await upload(doc.documentId, 'one', {}, '1.txt');
    const two = (await upload(doc.documentId, 'two', { changeText: 'second' }, '2.txt')).body.data;
    const three = (await upload(doc.documentId, 'three', {}, '3.txt')).body.data;
    const r = await A.del(`/documents/revisions/${two.id}`);
    expectEnvelope(r, 'DELETE', A.url(`/documents/revisions/${two.id}`));
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data.map((x: { revision: string }) => x.revision)).toEqual(['1', '3']);
    expectError(await A.get(`/files/${two.id}`), 404);
    await A.del(`/documents/revisions/${three.id}`);
    expect((await A.get(`/documents/${doc.documentId}`)).body.data).toMatchObject({ id: doc.id, revision: '1', fileName: '1.txt' });
    expect((await A.get(`/files/${doc.documentId}`)).text).toBe('one');
    expectError(await A.del(`/documents/revisions/${doc.id}`), 409, /only revision/);
    expectError(await A.del(`/documents/revisions/${doc.documentId}`), 400, /revision's id/);
    // An unknown id is no document revision, for administrators and others alike.
    expectError(await A.del(`/documents/revisions/${UNKNOWN_ID}`), 404, `Document revision '${UNKNOWN_ID}' was not found.`);
    expectError(await A.as(plain.token).del(`/documents/revisions/${UNKNOWN_ID}`), 404, `Document revision '${UNKNOWN_ID}' was not found.`);
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data).toHaveLength(1);
  });

  test('the clients\' spellings: the file part as fileupload_0 or uploadFile, no part type, a path before the name; index fields with the file', async () => {
    const field = (await A.post('/indexfields', { label: uniq('WithUpload'), fieldType: 'Text' })).body.data;
    await A.put(`/indexfields/${field.id}/folders/${folder.id}`);
    const net = await newDoc();
    const r = await upload(net.documentId, 'x', { indexFields: JSON.stringify([{ [field.label]: 'from upload' }]) }, 'C:\\Users\\me\\report.PDF', 'fileupload_0');
    expect(r.body.data).toMatchObject({ fileName: 'report.PDF', extension: 'pdf', contentType: 'application/octet-stream' });
    expect((await A.get(`/documents/${net.documentId}/indexfields/${field.id}`)).body.data.value).toBe('from upload');
    const java = await newDoc();
    expect((await upload(java.documentId, 'y', {}, 'j.txt', 'uploadFile')).body.data.fileName).toBe('j.txt');
  });

  test('a file part that declares no type (the older Node client) is stored and served as application/octet-stream', async () => {
    const doc = await newDoc();
    const b = 'quire-boundary';
    const raw = `\r\n--${b}\r\nContent-Disposition: form-Data; name="documentId"\r\n\r\n${doc.documentId}\r\n--${b}\r\nContent-Disposition: form-Data; name="fileUpload"; filename="scan.pdf"\r\n\r\n%PDF-1.4 bytes\r\n--${b}--\r\n`;
    const r = await A.post('/files', undefined, { raw, headers: { 'content-type': `multipart/form-data; boundary=${b}` } });
    expect(r.body.data).toMatchObject({ fileName: 'scan.pdf', contentType: 'application/octet-stream' });
    const file = await A.get(`/files/${doc.documentId}`);
    expect(file.headers.get('content-type')).toBe('application/octet-stream');
    expect(file.text).toBe('%PDF-1.4 bytes');
  });

  test('a file part that says text/plain is stored and served as text/plain (it read as no type before), POST files and POST documents alike', async () => {
    const doc = await newDoc();
    const b = 'quire-boundary';
    const file = (type: string) => `--${b}\r\nContent-Disposition: form-data; name="fileUpload"; filename="notes.txt"\r\n${type}\r\nsome words\r\n`;
    const headers = { 'content-type': `multipart/form-data; boundary=${b}` };
    const typed = file('Content-Type: text/plain\r\n');
    const r = await A.post('/files', undefined, { raw: `--${b}\r\nContent-Disposition: form-data; name="documentId"\r\n\r\n${doc.documentId}\r\n${typed}--${b}--\r\n`, headers });
    expect(r.body.data).toMatchObject({ fileName: 'notes.txt', contentType: 'text/plain' });
    const got = await A.get(`/files/${doc.documentId}`);
    expect([got.headers.get('content-type'), got.text]).toEqual(['text/plain', 'some words']);
    const made = (name: string, part: string) =>
      A.post('/documents', undefined, { raw: `--${b}\r\nContent-Disposition: form-data; name="folderId"\r\n\r\n${folder.id}\r\n--${b}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${name}\r\n${part}--${b}--\r\n`, headers });
    expect((await made(uniq('Typed'), typed)).body.data).toMatchObject({ fileName: 'notes.txt', contentType: 'text/plain' });
    // No type on the part: bytes, as before.
    expect((await made(uniq('Untyped'), file(''))).body.data).toMatchObject({ fileName: 'notes.txt', contentType: 'application/octet-stream' });
  });

  test('a part header named as the type watcher\'s own boundary does not shift which part declared a type: the file sent as text/plain stays text/plain', async () => {
    const doc = await newDoc();
    const b = 'quire-boundary';
    // The watcher writes each part's header lines, a name first on its line, between boundaries of its own.
    const raw = `--${b}\r\nContent-Disposition: form-data; name="documentId"\r\n--quire-part-judge: x\r\n\r\n${doc.documentId}\r\n--${b}\r\nContent-Disposition: form-data; name="fileUpload"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\nsome words\r\n--${b}\r\nContent-Disposition: form-data; name="changeText"\r\n\r\nnotes\r\n--${b}--\r\n`;
    const r = await A.post('/files', undefined, { raw, headers: { 'content-type': `multipart/form-data; boundary=${b}` } });
    expect(r.body.data).toMatchObject({ fileName: 'notes.txt', contentType: 'text/plain' });
    expect((await A.get(`/files/${doc.documentId}`)).headers.get('content-type')).toBe('text/plain');
  });

  test('a text part that is not UTF-8 is a 400 naming it, and its file is not kept; one declaring Latin-1 is read as Latin-1', async () => {
    const doc = await newDoc();
    const b = 'quire-boundary';
    const body = (changeText: number[], type = '') =>
      Buffer.concat([
        Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="documentId"\r\n\r\n${doc.documentId}\r\n--${b}\r\nContent-Disposition: form-data; name="fileUpload"; filename="a.txt"\r\n\r\nthe bytes\r\n`),
        Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="changeText"\r\n${type}\r\nr`),
        Buffer.from(changeText),
        Buffer.from(`sum\r\n--${b}--\r\n`),
      ]);
    const headers = { 'content-type': `multipart/form-data; boundary=${b}` };
    for (const type of ['', 'Content-Type: text/plain; charset=UTF-8\r\n']) {
      const left = await filesLeftBy(async () => {
        const r = await A.post('/files', undefined, { raw: new Uint8Array(body([0xe9], type)), headers });
        expectError(r, 400, /multipart text part 'changeText' is not valid text/);
      });
      expect(left).toEqual([]);
    }
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data).toHaveLength(1);
    const latin1 = await A.post('/files', undefined, { raw: new Uint8Array(body([0xe9], 'Content-Type: text/plain; charset=ISO-8859-1\r\n')), headers });
    expect(latin1.status).toBe(200);
    const utf8 = await A.post('/files', undefined, { raw: new Uint8Array(body([0xc3, 0xa9])), headers });
    expect(utf8.status).toBe(200);
    const revisions = await h.request('GET', `${A.t.root}/documents/${doc.documentId}/revisions?fields=changeText`, { token: A.token });
    expect(revisions.body.data.map((r: { changeText?: string }) => r.changeText).filter((c: string) => c.startsWith('r'))).toEqual(['résum', 'résum']);
    // A file name that is not UTF-8 (raw Latin-1 in the header) likewise, streamed or not; one in UTF-8 is kept.
    const named = (name: number[]) =>
      Buffer.concat([
        Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="documentId"\r\n\r\n${doc.documentId}\r\n--${b}\r\nContent-Disposition: form-data; name="fileUpload"; filename="caf`),
        Buffer.from(name),
        Buffer.from(`.txt"\r\n\r\nthe bytes\r\n--${b}--\r\n`),
      ]);
    const left = await filesLeftBy(async () => {
      expectError(await A.post('/files', undefined, { raw: new Uint8Array(named([0xe9])), headers }), 400, /file name of the multipart part 'fileUpload' is not valid text/);
    });
    expect(left).toEqual([]);
    expectError(await A.post('/documents', undefined, { raw: new Uint8Array(named([0xe9])), headers }), 400, /file name of the multipart part 'fileUpload'/);
    expect((await A.post('/files', undefined, { raw: new Uint8Array(named([0xc3, 0xa9])), headers })).body.data.fileName).toBe('café.txt');
  });

  test('POST documents with a multipart body: the document and its file, as the first revision\'s', async () => {
    const r = await A.post('/documents', undefined, await multipart({ folderId: folder.id, name: uniq('WithFile'), description: 'd', documentState: '1', fileName: 'wf.txt', contentType: 'text/plain' }, 'made with its file', 'wf.txt'));
    expectEnvelope(r, 'POST', A.url('/documents'));
    expect(r.body.data).toMatchObject({ revision: '1', fileName: 'wf.txt', contentType: 'text/plain', fileSize: 18, fileId: expect.stringMatching(GUID) });
    expect(r.body.data.fileId).not.toBe(ZERO_GUID);
    expect((await A.get(`/files/${r.body.data.documentId}`)).text).toBe('made with its file');
    expect((await A.get(`/documents/${r.body.data.documentId}/revisions`)).body.data).toHaveLength(1);
    // Without a file part it is the document alone, as with JSON; a refusal keeps no bytes.
    expect((await A.post('/documents', undefined, await multipart({ folderId: folder.id, name: uniq('NoFile') }, null))).body.data.fileId).toBe(ZERO_GUID);
    expectError(await A.post('/documents', undefined, await multipart({ folderId: UNKNOWN_ID, name: uniq('Lost') }, 'x', 'x.txt')), 404);
  });

  test('a file sent as the body itself is a 415 saying what the route takes, not a JSON parse error', async () => {
    const doc = await newDoc();
    for (const type of ['application/octet-stream', 'text/xml', 'text/plain']) {
      const r = await A.post(`/files?documentId=${doc.documentId}`, undefined, { raw: 'hello world', headers: { 'content-type': type } });
      expectError(r, 415, `POST files takes a multipart/form-data body, its file as the part named 'fileUpload' beside the other fields as text parts; this body (${type}) is neither that nor JSON.`);
    }
    // JSON under another label is read as JSON, and its own faults named.
    expectError(await A.post('/files', undefined, { raw: '{"documentId":"a","documentId":"b"}', headers: { 'content-type': 'text/plain' } }), 400, "The key 'documentId' was sent 2 times");
    // Malformed JSON labelled JSON is still told so.
    expectError(await A.post('/files', undefined, { raw: '{"documentId":', headers: { 'content-type': 'application/json' } }), 400, /not valid JSON/);
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data).toHaveLength(1);
  });

  test('a NUL in a text part refuses the upload, and its file, already stored, is deleted again (POST files and POST documents)', async () => {
    const doc = await newDoc();
    const withNul = await filesLeftBy(async () => {
      expectError(await upload(doc.documentId, 'kept?', { fileName: 'x\u0000y.txt' }, 'ok.txt'), 400, /must not contain NUL/);
      expectError(await A.post('/documents', undefined, await multipart({ folderId: folder.id, name: 'a\u0000b' }, 'kept?', 'ok.txt')), 400, /must not contain NUL/);
    });
    expect(withNul).toEqual([]);
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data).toHaveLength(1);
  });

  test('uploads at once to one document: one revision each, none lost', async () => {
    const doc = await newDoc();
    await upload(doc.documentId, 'zero', {}, '0.txt');
    const replies = await Promise.all([1, 2, 3, 4].map((i) => upload(doc.documentId, `n${i}`, {}, `${i}.txt`)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const revisions = (await A.get(`/documents/${doc.documentId}/revisions`)).body.data as { revision: string; fileName: string }[];
    expect(revisions.map((r) => r.revision).sort()).toEqual(['1', '2', '3', '4', '5']);
    expect(revisions.map((r) => r.fileName).sort()).toEqual(['0.txt', '1.txt', '2.txt', '3.txt', '4.txt']);
  });

  test('uploads racing the document\'s delete, 20 rounds: each made before it (200, its revision kept as the delete left it) or refused after it (409); nothing added to a deleted document', async () => {
    for (let round = 0; round < 20; round++) {
      const doc = await newDoc();
      expect((await upload(doc.documentId, 'first')).status).toBe(200);
      const [a, gone, b] = await Promise.all([upload(doc.documentId, 'second'), A.del(`/documents/${doc.documentId}`), upload(doc.documentId, 'third', { checkIn: 'true' })]);
      expect(gone.status).toBe(200);
      for (const r of [a, b]) if (r.status !== 200) expectError(r, 409, `Document '${doc.name}' is deleted: it can be read, not changed.`);
      const { rows } = await h.services.reads.query('select count(*)::int as n from document_revision where tenant_id = $1 and document_id = $2', [A.t.tenantId, doc.documentId]);
      expect(rows[0].n).toBe(1 + [a, b].filter((r) => r.status === 200).length);
    }
  }, 60_000);

  test('uploads at once are listed in the order they were made, so deleting the current revision brings back the one made before it', async () => {
    const doc = await newDoc();
    await upload(doc.documentId, 'zero', {}, '0.txt');
    expect((await Promise.all(Array.from({ length: 10 }, (_, i) => upload(doc.documentId, `n${i}`, {}, `${i}.txt`)))).map((r) => r.status)).toEqual(Array(10).fill(200));
    const labels = async () => ((await A.get(`/documents/${doc.documentId}/revisions`)).body.data as { revision: string }[]).map((r) => r.revision);
    expect(await labels()).toEqual(Array.from({ length: 11 }, (_, i) => String(i + 1)));
    const current = (await A.get(`/documents/${doc.documentId}`)).body.data;
    expect(current.revision).toBe('11');
    expect((await A.del(`/documents/revisions/${current.id}`)).status).toBe(200);
    expect((await A.get(`/documents/${doc.documentId}`)).body.data.revision).toBe('10');
    // The next upload is numbered on from there, with no label twice.
    await upload(doc.documentId, 'again', {}, 'again.txt');
    expect(await labels()).toEqual(Array.from({ length: 11 }, (_, i) => String(i + 1)));
  });

  test('copies racing uploads and the deletion of the current revision: each copy is of one state (its current revision the newest), never a 500', async () => {
    for (let round = 0; round < 6; round++) {
      const doc = await newDoc();
      for (const n of [1, 2, 3]) await upload(doc.documentId, `r${n}`, {}, `${n}.txt`);
      const current = (await A.get(`/documents/${doc.documentId}`)).body.data;
      const replies = await Promise.all([
        ...Array.from({ length: 3 }, (_, i) => A.post(`/documents/${doc.documentId}/copy`, { folderId: folder.id, name: uniq(`Copy${i}`) })),
        A.del(`/documents/revisions/${current.id}`),
        ...Array.from({ length: 3 }, (_, i) => A.post(`/documents/${doc.documentId}/copy`, { folderId: folder.id, name: uniq(`Copy${i}`) })),
        upload(doc.documentId, 'late', {}, 'late.txt'),
      ]);
      expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
      for (const copy of [...replies.slice(0, 3), ...replies.slice(4, 7)].map((r) => r.body.data)) {
        const revisions = ((await A.get(`/documents/${copy.documentId}/revisions`)).body.data as { id: string }[]).map((r) => r.id);
        expect(revisions.at(-1)).toBe(copy.id);
      }
    }
  });

  test('one revision deleted several times at once, an older one or the current one: one 200, the others the 404 of a revision already gone', async () => {
    /** Five identical deletes at once: the statuses, and each 404 is the one a revision gone gets. */
    const burst = async (revisionId: string) => {
      const replies = await Promise.all(Array.from({ length: 5 }, () => A.del(`/documents/revisions/${revisionId}`)));
      expect(replies.map((r) => r.status).sort()).toEqual([200, 404, 404, 404, 404]);
      for (const r of replies.filter((x) => x.status === 404)) expectError(r, 404, `Document revision '${revisionId}' was not found.`);
    };
    const labels = async (documentId: string) => ((await A.get(`/documents/${documentId}/revisions`)).body.data as { revision: string }[]).map((r) => r.revision);
    // Several rounds: one alone may see the deletes run one after the other.
    for (let round = 0; round < 4; round++) {
      const doc = await newDoc();
      const revs: { id: string }[] = [];
      for (const n of [1, 2, 3]) revs.push((await upload(doc.documentId, `r${n}`, {}, `${n}.txt`)).body.data);
      await burst(revs[1].id);
      expect(await labels(doc.documentId)).toEqual(['1', '3']);
      expect((await A.get(`/documents/${doc.documentId}`)).body.data).toMatchObject({ revision: '3', fileName: '3.txt' });
      // The current one, of two: the losers neither delete the one left nor call it the only one.
      await burst(revs[2].id);
      expect(await labels(doc.documentId)).toEqual(['1']);
      expect((await A.get(`/documents/${doc.documentId}`)).body.data).toMatchObject({ id: doc.id, revision: '1', fileName: '1.txt' });
    }
  });

  test('an upload asks for its session twice: before its body is read, and again in the operation, with the context that checked the sender', async () => {
    const doc = await newDoc();
    const sessionChecks = (statements: string[]) => statements.filter((s) => /session_epoch/.test(s));
    const toFile = await multipart({ documentId: doc.documentId }, 'once', 'once.txt');
    const file = await h.countQueries(() => A.post('/files', undefined, toFile));
    expect(file.result.status).toBe(200);
    expect(sessionChecks(file.statements)).toHaveLength(2);
    const withDocument = await multipart({ folderId: folder.id, name: uniq('Once') }, 'once', 'once.txt');
    const created = await h.countQueries(() => A.post('/documents', undefined, withDocument));
    expect(created.result.status).toBe(200);
    expect(sessionChecks(created.statements)).toHaveLength(2);
  });

  test('a user disabled while the upload\'s body is on its way: 401, and no file is recorded or kept', async () => {
    const C = await adminApi(h);
    const cFolder = (await C.post('/folders', { name: uniq('Late') })).body.data;
    const doc = (await C.post('/documents', { folderId: cFolder.id, name: uniq('Late') })).body.data;
    const me = (await C.get('/users/me')).body.data.id as string;
    const { raw, headers } = await multipart({ documentId: doc.documentId }, 'x'.repeat(4096), 'late.txt');
    const halves = [raw.subarray(0, 2048), raw.subarray(2048)];
    let pulls = 0;
    // The server asks for the second half once it has read the first, after its check of the sender.
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (++pulls === 2) await h.orm.em.fork().getConnection().execute('update app_user set enabled = false where id = ?', [me]);
        if (halves.length) c.enqueue(halves.shift()!);
        else c.close();
      },
    });
    const r = await h.app.fetch(
      new Request(`http://x${C.t.root}/files`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${C.token}` }, body, duplex: 'half' } as RequestInit),
      { req: { socket: { remoteAddress: h.address } } },
    );
    expect(pulls).toBeGreaterThan(2);
    const text = await r.text();
    expectError({ status: r.status, headers: r.headers, text, bytes: new Uint8Array(), body: JSON.parse(text) }, 401, /session has ended/);
    const recorded = await h.orm.em.fork().getConnection().execute('select count(*)::int as n from document_file where tenant_id = ?', [C.t.tenantId]);
    expect(recorded[0].n).toBe(0);
    expect(fs.existsSync(path.join(h.services.config.filesDir, C.t.tenantId)) ? fs.readdirSync(path.join(h.services.config.filesDir, C.t.tenantId)) : []).toEqual([]);
  });

  test('bad uploads: 400 or 404 naming the problem, and nothing is stored', async () => {
    const doc = await newDoc();
    expectError(await A.post('/files', undefined, await multipart({ documentId: doc.documentId }, null)), 400, /no file/);
    expectError(await upload(doc.documentId, 'abc', { fileLength: '99' }), 400, /fileLength.*3/);
    // A length that is no number is said to be one, not read as a different size.
    expectError(await upload(doc.documentId, 'abc', { fileLength: 'abc' }), 400, "The field 'fileLength' must be the file's size, a whole number of bytes (3 here), got 'abc'.");
    expectError(await upload(doc.documentId, 'abc', { fileLength: '-3' }), 400, /'fileLength' must be the file's size/);
    expectError(await upload(doc.documentId, 'abc', { contentType: 'not a type' }), 400, /contentType/);
    expectError(await upload(doc.documentId, 'abc', { fileName: 'bad\u0001name' }, 'x'), 400, /control/);
    // DEL and the C1 controls too (U+0085 is NEL, a line break), sent as fileName or as the part's file name.
    expectError(await upload(doc.documentId, 'abc', { fileName: 'del\u007f.txt' }, 'x'), 400, "The field 'fileName' may not contain control characters.");
    expectError(await upload(doc.documentId, 'abc', {}, 'nel\u0085.txt'), 400, "The field 'fileName' may not contain control characters.");
    expectError(await upload(doc.documentId, 'abc', { fileName: ' .. ' }, 'x'), 400, /'fileName' may not be '\.\.'/);
    expectError(await upload(doc.documentId, 'abc', { fileName: '.' }, 'x'), 400, /'fileName' may not be '\.'/);
    expectError(await upload(doc.documentId, 'abc', {}, ' '), 400, /no name/);
    expectError(await upload(UNKNOWN_ID, 'abc'), 404, /Document/);
    expectError(await A.post('/files', undefined, await multipart({}, 'abc')), 400, /documentId/);
    expectError(await upload(doc.documentId, 'abc', { indexFields: '[{"Nope": "x"}]' }), 400, /Nope/);
    // The size limits (FILE_MAX_BYTES, MAX_BODY_BYTES for the other parts) are tested at small values in file-store.test.ts.
    expect((await A.get(`/documents/${doc.documentId}`)).body.data.fileId).toBe(ZERO_GUID);
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data).toHaveLength(1);
    // The length is a number: leading zeros and spaces around it say the same size.
    expect((await upload(doc.documentId, 'abc', { fileLength: ' 003 ' })).body.data).toMatchObject({ fileSize: 3 });
  });
});

describe('media types', () => {
  test('a media type with a control character (a line break, DEL) is a 400 naming where it came from, on every path that takes one; nothing is stored', async () => {
    const doc = await newDoc();
    // The contentType text part, multipart POST files and POST documents.
    expectError(await upload(doc.documentId, 'abc', { contentType: 'text/plain\r\n;x=1' }), 400, /'contentType' must be a media type/);
    expectError(await upload(doc.documentId, 'abc', { contentType: 'text/plain;a=\u007f' }), 400, /'contentType' must be a media type/);
    // Refused at once: the check once tried every split of the blanks (this one would take days).
    expectError(await upload(doc.documentId, 'abc', { contentType: `a/b${'; '.repeat(60)}x` }), 400, /'contentType' must be a media type/);
    const name = uniq('Typed');
    expectError(await A.post('/documents', undefined, await multipart({ folderId: folder.id, name, contentType: 'text/plain\n' + 'x' }, 'abc', 'a.txt')), 400, /'contentType' must be a media type/);
    // The file part's own Content-Type (the multipart parser keeps type/subtype, control characters included).
    const b = 'quire-boundary';
    const raw = `--${b}\r\nContent-Disposition: form-data; name="documentId"\r\n\r\n${doc.documentId}\r\n--${b}\r\nContent-Disposition: form-data; name="fileUpload"; filename="a.txt"\r\nContent-Type: text/pl\u0001ain\r\n\r\nabc\r\n--${b}--\r\n`;
    expectError(await A.post('/files', undefined, { raw, headers: { 'content-type': `multipart/form-data; boundary=${b}` } }), 400, /fileUpload\.type/);
    // JSON: fileUpload.type, on POST documents (REST) and uploadFile (GraphQL).
    expectError(await A.post('/documents', { folderId: folder.id, name, fileUpload: { name: 'x.txt', type: 'text/plain\r\n;a', base64: 'aGk=' } }), 400, /file's type \(fileUpload\.type/);
    const g = await A.gql('mutation ($id: UUID!) { uploadFile(input: { documentId: $id, fileUpload: { name: "g.txt", type: "text/plain\\r\\n;a", base64: "aGk=" } }) { fileSize } }', { id: doc.documentId });
    expect(g.body.errors[0]).toMatchObject({ message: expect.stringMatching(/fileUpload\.type/), extensions: { code: 'BAD_REQUEST' } });
    expect((await A.get(`/documents?q=${encodeURIComponent(`name eq '${name}'`)}`)).body.data).toEqual([]);
    expect((await A.get(`/documents/${doc.documentId}`)).body.data.fileId).toBe(ZERO_GUID);
    // Parameters as RFC 9110 writes them are kept, quoted strings included.
    for (const type of ['text/plain; charset="utf-8"', 'text/plain;charset=utf-8;format=flowed', 'application/vnd.a+json']) {
      const d = await newDoc();
      expect((await upload(d.documentId, 'abc', { contentType: type })).body.data.contentType).toBe(type);
      expect((await A.get(`/files/${d.documentId}`)).headers.get('content-type')).toBe(type);
    }
  });

  test("a file part's Content-Type keeps its parameters (busboy reads only type/subtype), on the upload's answer and the download", async () => {
    const d = await newDoc();
    const b = 'quireB';
    const raw = (type: string) =>
      Buffer.concat([
        Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="documentId"\r\n\r\n${d.documentId}\r\n`),
        Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="fileUpload"; filename="u16.txt"\r\nContent-Type: ${type}\r\n\r\n`),
        Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]),
        Buffer.from(`\r\n--${b}--\r\n`),
      ]);
    const headers = { 'content-type': `multipart/form-data; boundary=${b}` };
    for (const type of ['text/plain; charset=utf-16', 'Text/Plain;charset="UTF-16LE"', 'text/plain']) {
      const r = await A.post('/files', undefined, { raw: new Uint8Array(raw(type)), headers });
      expect([type, r.status, r.body.data.contentType]).toEqual([type, 200, type]);
      expect((await A.get(`/files/${d.documentId}`)).headers.get('content-type')).toBe(type);
    }
  });

  test('a file stored with a media type that cannot be a header (before types were checked so) downloads as application/octet-stream, with its bytes and a warning; over a socket too', async () => {
    const doc = await newDoc();
    const up = (await upload(doc.documentId, 'the bytes', {}, 'old.txt')).body.data;
    await h.orm.em.getConnection().execute('update document_file set content_type = ? where id = ?', ['text/plain\r\n;x=1', up.fileId]);
    const lines: string[] = [];
    const log = h.services.log;
    Object.assign(h.services, { log: createLogger('info', new Writable({ write: (c, _e, done) => done(void lines.push(String(c))) })) });
    try {
      for (const path of [`/files/${doc.documentId}`, `/files?q=${encodeURIComponent(`[id] eq '${doc.id}'`)}`]) {
        const r = await A.get(path);
        expect([r.status, r.headers.get('content-type'), r.text]).toEqual([200, 'application/octet-stream', 'the bytes']);
      }
      const g = await A.gql('query ($id: UUID!) { file(id: $id) { contentType } }', { id: up.fileId });
      expect(g.body.data.file.contentType).toBe('application/octet-stream');
    } finally {
      Object.assign(h.services, { log });
    }
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.fileId === up.fileId);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatchObject({ level: expect.anything(), requestId: expect.any(String), msg: expect.stringMatching(/application\/octet-stream/) });
    // Node's server refused the header when it was sent: the answer never came.
    const server = http.createServer(h.app.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${A.t.root}/files/${doc.documentId}`, { headers: { authorization: `Bearer ${A.token}` } });
      expect([r.status, r.headers.get('content-type'), await r.text()]).toEqual([200, 'application/octet-stream', 'the bytes']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('conditional and range requests', () => {
  /** A document with one file, and what its downloads' validators are: its file id, when it was stored. */
  async function fileDoc(content: string) {
    const doc = await newDoc();
    const up = (await upload(doc.documentId, content, {}, 'r.txt')).body.data as { fileId: string; id: string };
    const stored = await h.services.reads.query('select (extract(epoch from created_at) * 1000)::float8 as ms from document_file where id = $1', [up.fileId]);
    const modified = new Date(stored.rows[0].ms as number).toUTCString();
    return { doc, etag: `"${up.fileId}"`, modified };
  }
  const hourBefore = (date: string) => new Date(Date.parse(date) - 3600_000).toUTCString();
  type Headers = Record<string, string>[];

  test('a download carries a strong ETag (its file id), Last-Modified and Accept-Ranges; If-None-Match and If-Modified-Since answer 304 without a body', async () => {
    const { doc, etag, modified } = await fileDoc('conditional bytes');
    const paths = [`/files/${doc.documentId}`, `/files?q=${encodeURIComponent(`[id] eq '${doc.id}'`)}`];
    for (const path of paths) {
      const r = await A.get(path);
      expect([r.status, r.text, r.headers.get('etag'), r.headers.get('last-modified'), r.headers.get('accept-ranges')]).toEqual([200, 'conditional bytes', etag, modified, 'bytes']);
      const asctime = new Date(Date.parse(modified)).toUTCString().replace(/^(\w+), (\d+) (\w+) (\d+) (\S+) GMT$/, (_, day, d, month, year, time) => `${day} ${month} ${d.padStart(2, ' ')} ${time} ${year}`);
      // RFC 850's form: the day's full name, a two-digit year.
      const weekday = new Intl.DateTimeFormat('en-US', { weekday: 'long', timeZone: 'UTC' }).format(Date.parse(modified));
      const rfc850 = modified.replace(/^\w{3}, (\d{2}) (\w{3}) \d{2}(\d{2}) /, (_, d, month, yy) => `${weekday}, ${d}-${month}-${yy} `);
      for (const headers of [{ 'if-none-match': etag }, { 'if-none-match': `W/${etag}` }, { 'if-none-match': `"other", ${etag}` }, { 'if-none-match': '*' }, { 'if-modified-since': modified }, { 'if-modified-since': asctime }, { 'if-modified-since': rfc850 }] as Headers) {
        const c = await A.get(path, { headers });
        expect([headers, c.status, c.text, c.headers.get('etag'), c.headers.get('last-modified'), c.headers.get('content-type')]).toEqual([headers, 304, '', etag, modified, null]);
      }
      // Not this file, or changed since: all of it. If-None-Match decides when both are sent (RFC 9110 13.2.2).
      // A date without a zone is none (Date would read it in the server's time zone); nor is what only
      // ends in GMT ('2099 GMT', which Date reads as 2099-01-01) or has a fraction of a second.
      const zoneless = new Date(Date.parse(modified) + 86_400_000).toISOString().slice(0, 19);
      for (const headers of [{ 'if-none-match': '"other"' }, { 'if-modified-since': hourBefore(modified) }, { 'if-modified-since': 'yesterday' }, { 'if-modified-since': zoneless }, { 'if-modified-since': '2099 GMT' }, { 'if-modified-since': modified.replace(' GMT', '.999 GMT') }, { 'if-none-match': '"other"', 'if-modified-since': modified }] as Headers) {
        const c = await A.get(path, { headers });
        expect([headers, c.status, c.text]).toEqual([headers, 200, 'conditional bytes']);
      }
    }
  });

  test('If-Match and If-Unmodified-Since the file does not meet: 412, in the envelope', async () => {
    const { doc, etag, modified } = await fileDoc('precondition');
    const path = `/files/${doc.documentId}`;
    for (const headers of [{ 'if-match': etag }, { 'if-match': `"other", ${etag}` }, { 'if-match': '*' }, { 'if-unmodified-since': modified }, { 'if-unmodified-since': '1 GMT' }] as Headers) {
      expect([headers, (await A.get(path, { headers })).status]).toEqual([headers, 200]);
    }
    // If-Match compares strongly: a weak tag is not this file.
    for (const headers of [{ 'if-match': '"other"' }, { 'if-match': `W/${etag}` }] as Headers) {
      expectError(await A.get(path, { headers }), 412, `The file is not the one the request's If-Match names: its ETag is ${etag}, last modified ${modified}.`);
    }
    expectError(await A.get(path, { headers: { 'if-unmodified-since': hourBefore(modified) } }), 412, /If-Unmodified-Since names/);
  });

  test('If-Range: the range when it names this file (its ETag, strongly), else the file whole; an empty file goes whole; a new revision is another file', async () => {
    const { doc, etag, modified } = await fileDoc('0123456789');
    const path = `/files/${doc.documentId}`;
    const r = await A.get(path, { headers: { range: 'bytes=2-4', 'if-range': ` ${etag}` } });
    expect([r.status, r.text, r.headers.get('content-range')]).toEqual([206, '234', 'bytes 2-4/10']);
    for (const ifRange of ['"other"', `W/${etag}`, modified, hourBefore(modified), 'garbage']) {
      const r = await A.get(path, { headers: { range: 'bytes=2-4', 'if-range': ifRange } });
      expect([ifRange, r.status, r.text, r.headers.get('content-range')]).toEqual([ifRange, 200, '0123456789', null]);
    }
    // An empty file has no range to send: it goes whole.
    const empty = await fileDoc('');
    const nothing = await A.get(`/files/${empty.doc.documentId}`, { headers: { range: 'bytes=0-' } });
    expect([nothing.status, nothing.headers.get('content-length'), nothing.headers.get('content-range')]).toEqual([200, '0', null]);
    // The document's next revision: its path now downloads another file, with another tag.
    await upload(doc.documentId, 'abcdefghij', {}, 'r.txt');
    const resumed = await A.get(path, { headers: { range: 'bytes=2-4', 'if-range': etag } });
    expect([resumed.status, resumed.text]).toEqual([200, 'abcdefghij']);
    expect(resumed.headers.get('etag')).not.toBe(etag);
    expect((await A.get(path, { headers: { 'if-none-match': etag } })).text).toBe('abcdefghij');
  });

  test('If-Range with a date: the whole file, as a date is no strong validator here (RFC 9110 13.1.5): a revision stored in the same second as the one before has its Last-Modified, and its bytes would be spliced onto the other\'s', async () => {
    const { doc, etag, modified } = await fileDoc('0123456789');
    const path = `/files/${doc.documentId}`;
    // The next revision, stored within the same second as the first (made so: uploads that quick happen, but not on cue).
    const next = (await upload(doc.documentId, 'abcdefghij', {}, 'r.txt')).body.data as { fileId: string };
    await h.services.reads.query('update document_file set created_at = (select created_at from document_file where id = $2) where id = $1', [next.fileId, etag.slice(1, -1)]);
    await h.services.reads.query('update document set modified_at = (select created_at from document_file where id = $2) where id = $1', [doc.documentId, etag.slice(1, -1)]);
    const now = await A.get(path);
    expect([now.text, now.headers.get('last-modified')]).toEqual(['abcdefghij', modified]);
    // A client resuming the first file's download by its date gets the file now served whole.
    const r = await A.get(path, { headers: { range: 'bytes=5-', 'if-range': modified } });
    expect([r.status, r.text, r.headers.get('content-range')]).toEqual([200, 'abcdefghij', null]);
  });

  test('files/{documentId}: Last-Modified never goes back; the current revision deleted, the one before is served as changed since, not with its older date', async () => {
    const { doc } = await fileDoc('first');
    const second = (await upload(doc.documentId, 'second', {}, 'r.txt')).body.data as { id: string; fileId: string };
    // Stored an hour and two hours ago, so that what follows is in another second than either.
    const back = (table: string, column: string, id: string, hours: number) =>
      h.services.reads.query(`update ${table} set ${column} = now() - make_interval(hours => ${hours}) where id = $1`, [id]);
    const firstFile = (await h.services.reads.query('select id from document_file where revision_id = $1', [doc.id])).rows[0].id as string;
    await back('document_file', 'created_at', firstFile, 2);
    await back('document_file', 'created_at', second.fileId, 1);
    await back('document', 'modified_at', doc.documentId, 1);
    const path = `/files/${doc.documentId}`;
    const seen = await A.get(path);
    const secondModified = seen.headers.get('last-modified')!;
    const stored = await h.services.reads.query('select (extract(epoch from created_at) * 1000)::float8 as ms from document_file where id = $1', [second.fileId]);
    expect([seen.text, secondModified]).toEqual(['second', new Date(stored.rows[0].ms as number).toUTCString()]);
    expect((await A.del(`/documents/revisions/${second.id}`)).status).toBe(200);
    const again = await A.get(path, { headers: { 'if-modified-since': secondModified } });
    expect([again.status, again.text, again.headers.get('etag')]).toEqual([200, 'first', `"${firstFile}"`]);
    expect(Date.parse(again.headers.get('last-modified')!)).toBeGreaterThan(Date.parse(secondModified));
    // Its own path keeps the file's own date: the bytes under a file id never change.
    for (const id of [firstFile, doc.id]) {
      const own = await A.get(`/files/${id}`, { headers: { 'if-modified-since': secondModified } });
      expect([id, own.status]).toEqual([id, 304]);
    }
  });

  test('files?q= dates its file as files/{documentId} does: a document changed after its file was stored is changed since the file\'s own date', async () => {
    const { doc, etag } = await fileDoc('queried');
    // Stored an hour ago; the document changed now, in a later second.
    await h.services.reads.query(`update document_file set created_at = now() - interval '1 hour' where id = $1`, [etag.slice(1, -1)]);
    const stored = (await A.get(`/files/${etag.slice(1, -1)}`)).headers.get('last-modified')!;
    expect((await A.put(`/documents/${doc.documentId}/expiration`, { expirationDate: '2099-01-31T12:00:00Z' })).status).toBe(200);
    const byDocument = await A.get(`/files/${doc.documentId}`);
    const changed = byDocument.headers.get('last-modified')!;
    expect(Date.parse(changed)).toBeGreaterThan(Date.parse(stored));
    const answers = (path: string) =>
      Promise.all([A.get(path), A.get(path, { headers: { 'if-modified-since': stored } }), A.get(path, { headers: { 'if-modified-since': changed } })]).then((rs) =>
        rs.map((r) => [r.status, r.text, r.headers.get('last-modified')]),
      );
    const expected = await answers(`/files/${doc.documentId}`);
    expect(expected).toEqual([[200, 'queried', changed], [200, 'queried', changed], [304, '', changed]]);
    for (const q of [`[id] eq '${doc.id}'`, `[documentId] eq '${doc.documentId}'`]) {
      expect([q, await answers(`/files?q=${encodeURIComponent(q)}`)]).toEqual([q, expected]);
    }
    // The file's own path keeps its own date: the bytes under a file id never change.
    expect((await A.get(`/files/${etag.slice(1, -1)}`, { headers: { 'if-modified-since': stored } })).status).toBe(304);
  });

  test('a suffix range longer than the file is all of it (RFC 9110 14.1.2): a 206 of every byte, not a 416; alone or beside other ranges', async () => {
    const { doc } = await fileDoc('0123456789');
    const path = `/files/${doc.documentId}`;
    for (const range of ['bytes=-11', 'bytes=-99999999999999999999', 'bytes=0-1, -20']) {
      const r = await A.get(path, { headers: { range } });
      expect([range, r.status, r.text, r.headers.get('content-range'), r.headers.get('content-length')]).toEqual([range, 206, '0123456789', 'bytes 0-9/10', '10']);
    }
    const r = await A.get(path, { headers: { range: 'bytes=-3' } });
    expect([r.status, r.text, r.headers.get('content-range')]).toEqual([206, '789', 'bytes 7-9/10']);
  });

  test('suppress_response_codes=true keeps a 206 and a 304 (no meta to hold them, and as a 200 they would pass for the whole file); a 416 goes out as 200, its status in meta', async () => {
    const { doc, etag } = await fileDoc('suppressed');
    const path = `/files/${doc.documentId}?suppress_response_codes=true`;
    const ranged = await A.get(path, { headers: { range: 'bytes=0-3' } });
    expect([ranged.status, ranged.text, ranged.headers.get('content-range')]).toEqual([206, 'supp', 'bytes 0-3/10']);
    expect((await A.get(path, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const beyond = await A.get(path, { headers: { range: 'bytes=10-' } });
    expect([beyond.status, beyond.body.meta.status, beyond.headers.get('content-range')]).toEqual([200, 416, 'bytes */10']);
  });

  test('HEAD answers GET\'s headers without the bytes; it takes no Range (RFC 9110 14.2) but does If-None-Match', async () => {
    const { doc, etag } = await fileDoc('head me');
    const path = `/files/${doc.documentId}`;
    const get = await A.get(path);
    for (const headers of [{}, { range: 'bytes=0-1' }] as Headers) {
      const head = await A.request('HEAD', path, { headers });
      expect([head.status, head.text, head.headers.get('content-range')]).toEqual([200, '', null]);
      for (const name of ['content-type', 'content-length', 'content-disposition', 'etag', 'last-modified', 'accept-ranges']) {
        expect([name, head.headers.get(name)]).toEqual([name, get.headers.get(name)]);
      }
    }
    expect((await A.request('HEAD', path, { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  test('a file the caller may not see stays a 404, whatever the Range or conditional headers', async () => {
    const secured = (await A.post('/folders', { name: uniq('SecuredRanges') })).body.data;
    await A.put(`/folders/${secured.id}/securitymembers/${(await A.get('/users/me')).body.data.id}`, { securityRole: 1 });
    const doc = (await A.post('/documents', { folderId: secured.id, name: uniq('S') })).body.data;
    const up = (await upload(doc.documentId, 'hidden bytes')).body.data;
    const U = A.as(plain.token);
    for (const headers of [{ range: 'bytes=0-3' }, { range: 'bytes=999-' }, { 'if-none-match': `"${up.fileId}"` }, { 'if-match': '"other"' }, { 'if-modified-since': new Date().toUTCString() }] as Headers) {
      for (const api of [U, B]) {
        for (const method of ['GET', 'HEAD']) {
          const r = await api.request(method, `/files/${doc.documentId}`, { headers });
          expect([headers, method, r.status, r.headers.get('etag'), r.headers.get('content-range')]).toEqual([headers, method, 404, null, null]);
        }
      }
      expect((await A.get(`/files/${doc.documentId}`, { headers })).status).not.toBe(404);
    }
  });

  test('over a real socket: a 206 sends just its bytes, a 304 and a HEAD none; answers sent one after another on one connection are each framed as their heads say', async () => {
    const { doc, etag } = await fileDoc('socket range bytes');
    const server = http.createServer(h.app.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const sock = await connect((server.address() as AddressInfo).port);
      const ask = (method: string, header: string) => `${method} ${A.t.root}/files/${doc.documentId} HTTP/1.1\r\nHost: quire\r\nAuthorization: Bearer ${A.token}\r\n${header}\r\n\r\n`;
      sock.write(ask('GET', 'Range: bytes=7-11') + ask('GET', `If-None-Match: ${etag}`) + ask('HEAD', 'Range: bytes=0-1') + ask('GET', 'Range: bytes=18-') + ask('GET', 'Connection: close'));
      const answers = Buffer.concat(await sock.toArray()).toString().split(/(?=HTTP\/1\.1 \d{3} )/).map(splitAnswer);
      const status = (head: string) => Number(head.slice(9, 12));
      expect(answers.map((a) => status(a.head))).toEqual([206, 304, 200, 416, 200]);
      const [ranged, unchanged, head, beyond, whole] = answers;
      expect(ranged.head).toMatch(/\r\ncontent-range: bytes 7-11\/18\r\n/i);
      expect(ranged.head).toMatch(/\r\ncontent-length: 5\r\n/i);
      expect(ranged.body).toBe('range');
      expect([unchanged.body, head.body]).toEqual(['', '']);
      expect(head.head).toMatch(/\r\ncontent-length: 18\r\n/i);
      expect(beyond.head).toMatch(/\r\ncontent-range: bytes \*\/18\r\n/i);
      expect(JSON.parse(beyond.body!).meta.errors[0].code).toBe('RANGE_NOT_SATISFIABLE');
      expect(whole.body).toBe('socket range bytes');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('who may', () => {
  test('Publishers of the folder upload, Viewers and open folders need an administrator; hidden files are not found; other tenants find nothing', async () => {
    const secured = (await A.post('/folders', { name: uniq('SecuredFiles') })).body.data;
    const doc = (await A.post('/documents', { folderId: secured.id, name: uniq('S') })).body.data;
    const U = A.as(plain.token);
    expectError(await upload(doc.documentId, 'no', {}, 'x.txt', 'fileUpload', U), 403, /administrator/);
    await A.put(`/folders/${secured.id}/securitymembers/${plain.id}`, { securityRole: 4 });
    expectError(await upload(doc.documentId, 'no', {}, 'x.txt', 'fileUpload', U), 403, /Publisher/);
    await A.put(`/folders/${secured.id}/securitymembers/${plain.id}`, { securityRole: 3 });
    expect((await upload(doc.documentId, 'yes', {}, 'y.txt', 'fileUpload', U)).status).toBe(200);
    expect((await U.get(`/files/${doc.documentId}`)).text).toBe('yes');
    await A.put(`/folders/${secured.id}/securitymembers/${(await A.get('/users/me')).body.data.id}`, { securityRole: 1 });
    await A.del(`/folders/${secured.id}/securitymembers/${plain.id}`);
    // Hidden or another tenant's: not even its name is told.
    expectError(await U.get(`/files/${doc.documentId}`), 404, /^No file has the id/);
    expectError(await B.get(`/files/${doc.documentId}`), 404, /^No file has the id/);
    expectError(await upload(doc.documentId, 'no', {}, 'x.txt', 'fileUpload', B), 404);
  });

  test('GraphQL: a file\'s base64 is checked, not quietly cut down to what decodes; good base64 is stored byte for byte', async () => {
    const doc = await newDoc();
    const send = (base64: string) =>
      A.gql('mutation ($id: UUID!, $b: String!) { uploadFile(input: { documentId: $id, fileUpload: { name: "g.bin", base64: $b } }) { fileSize } }', { id: doc.documentId, b: base64 });
    const bad = await send('!!!notbase64');
    expect(bad.body.errors[0]).toMatchObject({ message: expect.stringMatching(/'fileUpload.base64' must be base64/), extensions: { code: 'BAD_REQUEST' } });
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data[0].fileSize).toBe(0);
    const good = await send(`${Buffer.from('hello world').toString('base64')}\n`);
    expect(good.body.data.uploadFile.fileSize).toBe(11);
    expect((await A.get(`/files/${doc.documentId}`)).text).toBe('hello world');
  });

  test('GraphQL: the bytes by file(id); documents and revisions with their files, statements constant as the page grows', async () => {
    const doc = await newDoc();
    await upload(doc.documentId, 'hello', {}, 'h.txt');
    const r = await A.gql('query ($id: UUID!) { file(id: $id) { fileName contentType content } }', { id: doc.documentId });
    expect(r.body.data.file).toEqual({ fileName: 'h.txt', contentType: 'application/octet-stream', content: Buffer.from('hello').toString('base64') });
    const gqlFolder = (await A.post('/folders', { name: uniq('GqlFiles') })).body.data;
    for (let i = 0; i < 4; i++) {
      const d = (await A.post('/documents', { folderId: gqlFolder.id, name: `g${i}` })).body.data;
      await upload(d.documentId, `content ${i}`, {}, `g${i}.txt`);
      await upload(d.documentId, `again ${i}`, {}, `g${i}-2.txt`);
    }
    const query = (limit: number) =>
      A.gql(`query ($id: UUID!) { folderDocuments(id: $id, limit: ${limit}) { items { name file { fileName fileSize sha256 } revisions(limit: 5) { file { fileName } } } } }`, { id: gqlFolder.id });
    const small = await h.countQueries(() => query(1));
    const big = await h.countQueries(() => query(4));
    expect(big.result.body.errors).toBeUndefined();
    const first = big.result.body.data.folderDocuments.items[0];
    expect(first.file).toEqual({ fileName: 'g0-2.txt', fileSize: 7, sha256: createHash('sha256').update('again 0').digest('hex') });
    expect(first.revisions.map((rev: { file: { fileName: string } }) => rev.file.fileName)).toEqual(['g0.txt', 'g0-2.txt']);
    expect(big.statements.length).toBe(small.statements.length);
  });
});
