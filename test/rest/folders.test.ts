/**
 * Folders (rest-api-v1.md "Folders"; client-compatibility.md: `folderpath=/` lists the top level,
 * `POST folders {folderpath, description}` makes every missing ancestor, `PUT folders/{id}`
 * answers an object, `DELETE folders/{id}` on folders that hold things): shapes, paths, names,
 * renames with their subtree, races, who may write, other tenants, and the GraphQL face.
 */
import fc from 'fast-check';
import type { Reply } from '../harness.js';
import {
  adminApi,
  type Api,
  expectEnvelope,
  expectError,
  GUID,
  keysOf,
  PAGINATION_KEYS,
  q,
  sorted,
  uniq,
  UNKNOWN_ID,
  whileHeld,
  ZERO_GUID,
} from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';
import { DOCUMENTS_A_TURN, FOLDERS_A_TURN } from '../../src/domain/folders.js';

const FOLDER_KEYS = [
  'href', 'dataType', 'id', 'name', 'description', 'modifyDate', 'createDate', 'modifyById', 'createById', 'topLevelFolderId', 'folderType',
  'status', 'folderPath', 'parentFolderId', 'allowRevision',
];
const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

let adminId: string;

setUpTwoTenants();
beforeAll(async () => {
  adminId = (await A.get('/users/me')).body.data.id;
});

type Rec = Record<string, unknown> & { id: string; folderPath: string; topLevelFolderId: string };

const enc = (path: string) => encodeURIComponent(path);
async function make(path: string, description = ''): Promise<Rec> {
  const r = await A.post('/folders', { folderpath: path, description });
  expect([r.status, r.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
  return r.body.data;
}

describe('shapes', () => {
  test('POST /folders makes a top-level folder: 200, data a Folder object with every spec field', async () => {
    const name = uniq('Top');
    const r = await A.post('/folders', { name, description: 'the top', allowRevisions: false });
    expectEnvelope(r, 'POST', A.url('/folders'));
    const f = r.body.data;
    expect(Object.keys(f)).toEqual(FOLDER_KEYS);
    expect(f).toEqual({
      href: `~/folders/${f.id}`, dataType: 'Folder', id: expect.stringMatching(GUID), name, description: 'the top', folderPath: `/${name}`,
      parentFolderId: ZERO_GUID, topLevelFolderId: f.id, folderType: 0, status: 0, allowRevision: false,
      createDate: expect.stringMatching(DATE), createById: adminId, modifyDate: expect.stringMatching(DATE), modifyById: adminId,
    });
    // Left out, as the path form leaves them: no description, revisions allowed (docs/decisions.md, "Folders").
    expect((await A.post('/folders', { name: uniq('Short') })).body.data).toMatchObject({ description: '', allowRevision: true });
  });

  test("allowRevision, as the .NET client's CreateChildFolder spells allowRevisions, is the same setting on create and update; both sent must agree", async () => {
    const top = (await A.post('/folders', { name: uniq('Parent') })).body.data;
    const child = await A.post(`/folders/${top.id}`, { Name: uniq('kid'), allowRevision: false, inheritNamingConvention: true, dcDatePosition: 0 });
    expect([child.status, child.body.data?.allowRevision]).toEqual([200, false]);
    expect((await A.put(`/folders/${child.body.data.id}`, { allowRevision: true })).body.data.allowRevision).toBe(true);
    expect((await A.post('/folders', { name: uniq('Top'), allowRevisions: false, allowRevision: false })).body.data.allowRevision).toBe(false);
    expectError(await A.post('/folders', { name: uniq('Top'), allowRevisions: false, allowRevision: true }), 400, "'allowRevisions', 'allowRevision'");
    expectError(await A.post(`/folders/${top.id}`, { name: uniq('kid'), allowRevision: 'perhaps' }), 400, 'allowRevision');
  });

  test('POST /folders/{id} makes a child; GET /folders/{id} answers an object; GET /folders/{id}/folders pages the children', async () => {
    const top = (await A.post('/folders', { name: uniq('Parent') })).body.data;
    const children = [];
    for (const n of ['b', 'A', 'c']) children.push((await A.post(`/folders/${top.id}`, { name: `${n}-${uniq('kid')}`, description: n })).body.data);
    expect(children[0]).toMatchObject({ parentFolderId: top.id, topLevelFolderId: top.id, folderPath: `${top.folderPath}/${children[0].name}`, allowRevision: true });
    const one = await A.get(`/folders/${children[1].id}`);
    expectEnvelope(one, 'GET', A.url(`/folders/${children[1].id}`));
    expect(one.body.data).toEqual(children[1]);
    const page = await A.get(`/folders/${top.id}/folders?limit=2`);
    expect(page.status).toBe(200);
    // In path order, without regard to case.
    expect(page.body.data.map((f: Rec) => f.description)).toEqual(['A', 'b']);
    expect(keysOf(page.body.pagination)).toEqual(sorted(PAGINATION_KEYS));
    expect(page.body.pagination.totalRecords).toBe(3);
    const filtered = await A.get(`/folders/${top.id}/folders?${q("description eq 'c'")}`);
    expect(filtered.body.data.map((f: Rec) => f.id)).toEqual([children[2].id]);
  });

  test('GET /folders?folderPath= answers the folder (any case, spelled folderpath too); folderpath=/ the top level as an array', async () => {
    const f = await make(`/${uniq('Find')}/Me`);
    for (const p of [f.folderPath, f.folderPath.toUpperCase(), `${f.folderPath}/`, ` ${f.folderPath.slice(1)} `]) {
      const r = await A.get(`/folders?folderPath=${enc(p)}`);
      expect([p, r.status, r.body.data?.id]).toEqual([p, 200, f.id]);
    }
    expect((await A.get(`/folders?folderpath=${enc(f.folderPath)}`)).body.data.id).toBe(f.id);
    const top = await A.get('/folders?folderpath=/');
    expectEnvelope(top, 'GET', A.url('/folders?folderpath=/'));
    expect(Array.isArray(top.body.data)).toBe(true);
    const ids = top.body.data.map((x: Rec) => x.parentFolderId);
    expect(new Set(ids)).toEqual(new Set([ZERO_GUID]));
    expect(top.body.data.some((x: Rec) => x.id === f.topLevelFolderId)).toBe(true);
    // The root however it is spelled: repeated slashes, spaces around it.
    for (const p of ['//', ' / ', '///']) expect((await A.get(`/folders?folderPath=${enc(p)}`)).body.data).toEqual(top.body.data);
    expectError(await A.get(`/folders?folderPath=${enc('/ /')}`), 400, /GET folders\?folderPath=\/ lists/);
  });

  test('q on GET /folders/{id} and GET /folders?folderpath=: the folder when it matches, a 404 saying so when not, a 400 for a bad q', async () => {
    const f = await make(`/${uniq('Query')}`, 'kept');
    const byId = `/folders/${f.id}`;
    const byPath = `/folders?folderpath=${enc(f.folderPath)}`;
    for (const path of [byId, byPath]) {
      const join = path.includes('?') ? '&' : '?';
      const hit = await A.get(`${path}${join}${q("description eq 'kept'")}`);
      expect([path, hit.status, hit.body.data?.id]).toEqual([path, 200, f.id]);
      expectError(await A.get(`${path}${join}${q("description eq 'other'")}`), 404, 'does not match the query (q)');
      expectError(await A.get(`${path}${join}${q('description eq')}`), 400);
    }
  });
});

describe('paths', () => {
  test('POST {folderpath} makes every missing ancestor and answers the last; the ancestors are real folders', async () => {
    const root = uniq('Test Folders');
    const f = await make(`/${root}/Library Integration Test/2026/11/25/${Date.now()}`, 'safe to delete');
    expect(f.description).toBe('safe to delete');
    const parts = f.folderPath.split('/').slice(1);
    expect(parts).toHaveLength(6);
    let parentId = ZERO_GUID;
    for (let i = 1; i <= parts.length; i++) {
      const r = await A.get(`/folders?folderPath=${enc(`/${parts.slice(0, i).join('/')}`)}`);
      expect(r.body.data).toMatchObject({ name: parts[i - 1], parentFolderId: parentId, topLevelFolderId: f.topLevelFolderId });
      parentId = r.body.data.id;
    }
    expect(parentId).toBe(f.id);
    // A second path under the same ancestors adds only its own folder.
    const sibling = await make(`/${root}/Library Integration Test/2026/11/25/other`);
    expect(sibling.parentFolderId).toBe(f.parentFolderId);
  });

  test('names and paths: blank, "/", control characters, "." and "..", too long, too deep, a name that is not the last segment: 400s naming the problem', async () => {
    expectError(await A.post('/folders', { description: 'no name' }), 400, "The mandatory field 'name' is missing (or send 'folderPath' to create a whole path).");
    const top = (await A.post('/folders', { name: uniq('Dots') })).body.data;
    // Sent blank, on a create as on a rename: not "missing", since it was sent.
    for (const name of ['', '   ', '\u00a0', '\ufeff']) {
      expectError(await A.post('/folders', { name }), 400, "The field 'name' must not be blank.");
      expectError(await A.post(`/folders/${top.id}`, { name }), 400, "The field 'name' must not be blank.");
      expectError(await A.put(`/folders/${top.id}`, { name }), 400, "The field 'name' must not be blank.");
    }
    expectError(await A.post('/folders', { name: 'a/b' }), 400, "may not contain '/'");
    expectError(await A.post('/folders', { name: 'tab\there' }), 400, 'control characters');
    // DEL and the C1 controls (NEL here) as well, as every other name refuses them.
    expectError(await A.post('/folders', { name: 'del\u007fhere' }), 400, 'control characters');
    expectError(await A.post('/folders', { folderpath: '/nel\u0085here/x' }), 400, 'control characters');
    expectError(await A.post('/folders', { name: 'x'.repeat(257) }), 400, "The field 'name' is longer than 256 characters.");
    // A path's folder name over the limit is named as one, not as the path (which may have 4,000).
    expectError(await A.post('/folders', { folderpath: `/ok/${'y'.repeat(257)}` }), 400, `A folder name in 'folderpath' is longer than 256 characters: '${'y'.repeat(64)}...'.`);
    expectError(await A.get(`/folders?folderPath=/${'z'.repeat(300)}`), 400, `A folder name in 'folderPath' is longer than 256 characters: '${'z'.repeat(64)}...'.`);
    for (const name of ['.', ' .. ']) {
      expectError(await A.post('/folders', { name }), 400, `may not be named '${name.trim()}'`);
      expectError(await A.put(`/folders/${top.id}`, { name }), 400, `may not be named '${name.trim()}'`);
    }
    expectError(await A.post('/folders', { folderpath: `${top.folderPath}/../etc` }), 400, "may not be named '..'");
    expect((await A.get(`/folders/${top.id}/folders`)).body.data).toEqual([]);
    expectError(await A.post('/folders', { folderpath: '/' }), 400, 'must name a folder');
    expectError(await A.post('/folders', { folderpath: `/${Array.from({ length: 65 }, (_, i) => `l${i}`).join('/')}` }), 400, 'at most 64 levels');
    expectError(await A.post('/folders', { folderpath: '/a/b', name: 'c' }), 400, 'last segment');
    expectError(await A.post('/folders', { name: uniq('n'), allowRevisions: 'perhaps' }), 400);
    expectError(await A.get('/folders'), 400, 'folderPath');
    expectError(await A.get(`/folders?folderPath=${enc(`/${uniq('nowhere')}`)}`), 404, 'No folder has the path');
    expectError(await A.get(`/folders/${UNKNOWN_ID}`), 404);
    expectError(await A.get('/folders/not-a-guid'), 400);
    expectError(await A.post(`/folders/${UNKNOWN_ID}`, { name: 'orphan' }), 404);
  });

  test('a folder named with a control character before they were refused (stored so) is still found (by a saved search too), moved, copied and created under by path; new names with one are not', async () => {
    // Latin-1 text read as Windows-1252 leaves U+0085 where "…" was; the API refuses it now, so the row is changed in SQL.
    const top = await make(`/${uniq('Legacy')}`);
    const legacy = await make(`${top.folderPath}/Reports`);
    const path = `${top.folderPath}/Reports\u0085`;
    await h.services.reads.query('update folder set name = $1, path = $2 where tenant_id = $3 and id = $4', ['Reports\u0085', path, A.t.tenantId, legacy.id]);
    const found = await A.get(`/folders?folderPath=${enc(path)}`);
    expect([found.status, found.body.data?.id]).toEqual([200, legacy.id]);
    const child = await make(`${path}/new`);
    const search = await A.post('/savedsearches', { name: uniq('Scoped'), folderPath: path });
    expect([search.status, search.body.data?.folderId]).toEqual([200, legacy.id]);
    expect([child.parentFolderId, child.folderPath]).toEqual([legacy.id, `${path}/new`]);
    // A move into it by path, and out of it; a copy of it, whose name is the stored one, not one sent.
    const mover = await make(`/${uniq('Mover')}`);
    const into = await A.put('/folders/move', { sourceFolderPath: mover.folderPath, targetFolderPath: path });
    expect([into.status, into.body.data?.folderPath]).toEqual([200, `${path}${mover.folderPath}`]);
    const elsewhere = `/${uniq('Elsewhere')}`;
    const out = await A.put('/folders/move', { sourceFolderPath: `${path}/new`, targetFolderPath: elsewhere });
    expect([out.status, out.body.data?.folderPath]).toEqual([200, `${elsewhere}/new`]);
    const copy = await A.post('/folders/copy', { sourceFolderPath: path, targetFolderPath: elsewhere });
    expect([copy.status, copy.body.data?.folderPath]).toEqual([200, `${elsewhere}/Reports\u0085`]);
    // A rename resending its name changes nothing; one to another name with a control character is refused.
    expect((await A.put(`/folders/${legacy.id}`, { name: 'Reports\u0085', description: 'kept' })).body.data).toMatchObject({ name: 'Reports\u0085', description: 'kept' });
    expectError(await A.put(`/folders/${legacy.id}`, { name: 'Report\u0085' }), 400, 'control characters');
    // Folders a path makes are refused one, under the old folder too.
    expectError(await A.post('/folders', { folderpath: `${path}/more\u0085/x` }), 400, 'control characters');
    expectError(await A.put('/folders/move', { sourceFolderId: mover.id, targetFolderPath: `${path}/in\u0091to` }), 400, 'control characters');
    expect((await A.get(`/folders/${legacy.id}/folders`)).body.data.map((f: Rec) => f.name)).toEqual([mover.name]);
  });

  test('a name taken in the same parent (any case) is a 409 naming it; the same name elsewhere is fine', async () => {
    const top = (await A.post('/folders', { name: uniq('Dup') })).body.data;
    expect((await A.post(`/folders/${top.id}`, { name: 'Reports' })).status).toBe(200);
    expectError(await A.post(`/folders/${top.id}`, { name: 'REPORTS' }), 409, "'Reports' already exists");
    expectError(await A.post('/folders', { folderpath: `${top.folderPath}/reports` }), 409, 'already exists');
    const other = (await A.post('/folders', { name: uniq('Other') })).body.data;
    expect((await A.post(`/folders/${other.id}`, { name: 'Reports' })).status).toBe(200);
  });
});

describe('changes', () => {
  test('PUT /folders/{id} changes the description (the client reads data.id and data.description) and allowRevisions', async () => {
    const f = await make(`/${uniq('Put')}`, 'before');
    const r = await A.put(`/folders/${f.id}`, { description: 'after' });
    expectEnvelope(r, 'PUT', A.url(`/folders/${f.id}`));
    expect(r.body.data).toMatchObject({ id: f.id, description: 'after', name: f.name, folderPath: f.folderPath });
    expect((await A.put(`/folders/${f.id}`, { allowRevisions: false })).body.data.allowRevision).toBe(false);
    expectError(await A.put(`/folders/${f.id}`, {}), 400, 'Send at least one of');
    expectError(await A.put(`/folders/${UNKNOWN_ID}`, { description: 'x' }), 404);
  });

  test('a rename moves the whole subtree\'s paths; a name taken beside it is a 409', async () => {
    const top = (await A.post('/folders', { name: uniq('Old') })).body.data;
    const deep = await make(`${top.folderPath}/a/b/c`);
    const beside = (await A.post('/folders', { name: uniq('Taken') })).body.data;
    expectError(await A.put(`/folders/${top.id}`, { name: beside.name.toUpperCase() }), 409, 'already exists');
    const name = uniq('Neü 🌲');
    const renamed = await A.put(`/folders/${top.id}`, { name });
    expect(renamed.body.data).toMatchObject({ name, folderPath: `/${name}` });
    expect((await A.get(`/folders/${deep.id}`)).body.data.folderPath).toBe(`/${name}/a/b/c`);
    expect((await A.get(`/folders?folderPath=${enc(`/${name}/a/b`)}`)).status).toBe(200);
    expectError(await A.get(`/folders?folderPath=${enc(deep.folderPath)}`), 404);
    // A folder whose path merely starts with the same letters is not part of the subtree.
    const lookalike = (await A.post('/folders', { name: `${name}x` })).body.data;
    await A.put(`/folders/${top.id}`, { name: `${name}2` });
    expect((await A.get(`/folders/${lookalike.id}`)).body.data.folderPath).toBe(`/${name}x`);
  });

  test('a folderPath beside the folder it would name: POST folders/{id} and PUT folders/{id} take the path the folder has (any case), else a 400 that changes nothing', async () => {
    const parent = await make(`/${uniq('Paths')}/in`);
    const child = (await A.post(`/folders/${parent.id}`, { name: 'kid', folderPath: `${parent.folderPath.toUpperCase()}/KID` })).body.data;
    expect(child).toMatchObject({ name: 'kid', folderPath: `${parent.folderPath}/kid`, parentFolderId: parent.id });
    // A path alone names the child by its last segment.
    expect((await A.post(`/folders/${parent.id}`, { folderPath: `${parent.folderPath}/alone` })).body.data).toMatchObject({ name: 'alone', parentFolderId: parent.id });
    expectError(await A.post(`/folders/${parent.id}`, { name: 'other', folderPath: '/elsewhere/other' }), 400, `The field 'folderPath' ('/elsewhere/other') must be the new folder's path ('${parent.folderPath}/other'), or be left out: PUT folders/move moves a folder.`);
    expectError(await A.post(`/folders/${parent.id}`, { name: 'other', folderPath: `${parent.folderPath}/another` }), 400, "must be the new folder's path");
    expect((await A.get(`/folders/${parent.id}/folders`)).body.data.map((f: Rec) => f.name).sort()).toEqual(['alone', 'kid']);
    // PUT: the folder's path as read back, or the one its new name gives it.
    expect((await A.put(`/folders/${child.id}`, { description: 'resent', folderPath: child.folderPath })).body.data).toMatchObject({ description: 'resent', folderPath: child.folderPath });
    expect((await A.put(`/folders/${child.id}`, { name: 'kid2', folderPath: child.folderPath })).body.data.folderPath).toBe(`${parent.folderPath}/kid2`);
    expect((await A.put(`/folders/${child.id}`, { name: 'kid3', folderPath: `${parent.folderPath}/kid3` })).body.data.folderPath).toBe(`${parent.folderPath}/kid3`);
    expectError(await A.put(`/folders/${child.id}`, { description: 'lost', folderPath: `/${uniq('Moved')}` }), 400, `must be the folder's path ('${parent.folderPath}/kid3')`);
    expect((await A.get(`/folders/${child.id}`)).body.data).toMatchObject({ description: 'resent', folderPath: `${parent.folderPath}/kid3` });
  });

  test('DELETE /folders/{id}: 200 without data, the subtree gone with it, a second delete a 404', async () => {
    const f = await make(`/${uniq('Doomed')}/inner/deeper`);
    const top = f.topLevelFolderId;
    const r = await A.del(`/folders/${top}`);
    expectEnvelope(r, 'DELETE', A.url(`/folders/${top}`));
    expect(r.body).not.toHaveProperty('data');
    expectError(await A.get(`/folders/${f.id}`), 404);
    expectError(await A.del(`/folders/${top}`), 404);
  });
});

describe('deleting a folder with checked-out documents', () => {
  /** A document two levels down, checked out by the ordinary user (a Publisher there). */
  async function held() {
    const inner = await make(`/${uniq('Held')}/inner`);
    await A.put(`/folders/${inner.id}/securitymembers/${plain.id}`, { securityRole: 3 });
    const doc = (await A.post('/documents', { folderId: inner.id, name: uniq('held') })).body.data as { documentId: string; name: string };
    const U = A.as(plain.token);
    return { inner, doc, U };
  }

  test('DELETE /folders/{id} while a document under it is checked out by another user: a 409 naming it and its holder, administrators included; nothing deleted', async () => {
    const { inner, doc, U } = await held();
    expect((await U.put(`/documents/${doc.documentId}/status`, { checkIn: 1 })).status).toBe(200);
    expectError(await A.del(`/folders/${inner.topLevelFolderId}`), 409, `document '${doc.name}' in it is checked out by ${plain.name}`);
    expect((await A.get(`/folders/${inner.id}`)).status).toBe(200);
    expect((await A.get(`/documents/${doc.documentId}`)).body.data).toMatchObject({ checkInStatus: 1, checkedOutById: plain.id, archive: 0 });
    // Checked in, it goes with the folder; the caller's own check-out does not stop it.
    expect((await U.put(`/documents/${doc.documentId}/status`, { checkIn: 0 })).status).toBe(200);
    expect((await A.put(`/documents/${doc.documentId}/status`, { checkIn: 1 })).status).toBe(200);
    expect((await A.del(`/folders/${inner.topLevelFolderId}`)).status).toBe(200);
    expectError(await A.get(`/documents/${doc.documentId}`), 404);
  });

  test('a check-out that commits while the delete waits for the document is not lost: a 409, the document kept', async () => {
    const { inner, doc } = await held();
    // The ordinary user's check-out, committed while the delete waits for the document's row.
    const checkOut = { text: 'update document set checked_out_by_id = $3, checked_out_at = now() where tenant_id = $1 and id = $2', values: [A.t.tenantId, doc.documentId, plain.id] };
    expectError(await whileHeld(h, checkOut, () => A.del(`/folders/${inner.topLevelFolderId}`)), 409, `checked out by ${plain.name}`);
    expect((await A.get(`/documents/${doc.documentId}`)).body.data.checkedOutById).toBe(plain.id);
  });
});

describe(`deleting a folder of more than ${DOCUMENTS_A_TURN} documents`, () => {
  const MANY = 2 * DOCUMENTS_A_TURN + 5;

  /** A folder with a subfolder and MANY documents (each with its revision), made in SQL: 20,005 creates through the API would take minutes. Its last document by name and by insert is `last`. */
  async function crowded() {
    const inner = await make(`/${uniq('Crowded')}/inner`);
    await h.services.reads.query(
      `with d as (select gen_random_uuid() as id, gen_random_uuid() as rev, 'doc ' || lpad(i::text, 6, '0') as name from generate_series(1, $3::int) i),
            docs as (insert into document (tenant_id, id, folder_id, revision_id, revision, name) select $1, id, $2, rev, '1', name from d returning id, revision_id, name)
       insert into document_revision (tenant_id, id, document_id, revision, name) select $1, revision_id, id, '1', name from docs`,
      [A.t.tenantId, inner.topLevelFolderId, MANY - 1],
    );
    const last = (await A.post('/documents', { folderId: inner.topLevelFolderId, name: 'zzz last' })).body.data as { documentId: string };
    return { top: inner.topLevelFolderId, inner, last };
  }
  const documentsIn = async (folderId: string) =>
    (await h.services.reads.query<{ n: number }>('select count(*)::int as n from document where tenant_id = $1 and folder_id = $2', [A.t.tenantId, folderId])).rows[0].n;
  /** The statements that deleted documents, and how many ids each named. */
  const documentDeletes = (statements: { text: string; values: unknown[] }[]) =>
    statements.filter((s) => /^delete from document t\b/.test(s.text)).map((s) => (s.values.find(Array.isArray) as unknown[]).length);

  test(`goes whole, ${DOCUMENTS_A_TURN} documents a statement at most: 200, every document and folder of it gone`, async () => {
    const { top, inner } = await crowded();
    expect(await documentsIn(top)).toBe(MANY);
    // In one statement, 500,000 documents ran past the default statement timeout (about 25 s), all their rows in memory at once.
    const { result, statements } = await h.captureQueries(() => A.del(`/folders/${top}`));
    expect(result.status).toBe(200);
    expect(documentDeletes(statements)).toEqual([DOCUMENTS_A_TURN, DOCUMENTS_A_TURN, 5]);
    expect(await documentsIn(top)).toBe(0);
    expectError(await A.get(`/folders/${inner.id}`), 404);
  });

  test('a check-out that a later turn meets: a 409, and the turns before it undone: every document kept', async () => {
    const { top, last } = await crowded();
    // Checked out (by the ordinary user) while the delete waits for the row, after its first turns have deleted theirs.
    const checkOut = { text: 'update document set checked_out_by_id = $3, checked_out_at = now() where tenant_id = $1 and id = $2', values: [A.t.tenantId, last.documentId, plain.id] };
    const { result, statements } = await h.captureQueries(() => whileHeld(h, checkOut, () => A.del(`/folders/${top}`)));
    expectError(result, 409, `document 'zzz last' in it is checked out by ${plain.name}`);
    expect(documentDeletes(statements)).toEqual([DOCUMENTS_A_TURN, DOCUMENTS_A_TURN]);
    expect(await documentsIn(top)).toBe(MANY);
    expect((await A.get(`/documents/${last.documentId}`)).body.data.checkedOutById).toBe(plain.id);
    // Checked in, all of it goes (and leaves no rows behind to sway other files' plans).
    await h.services.reads.query('update document set checked_out_by_id = null, checked_out_at = null where tenant_id = $1 and id = $2', [A.t.tenantId, last.documentId]);
    expect((await A.del(`/folders/${top}`)).status).toBe(200);
    expect(await documentsIn(top)).toBe(0);
  });
});

describe(`a folder of more than ${FOLDERS_A_TURN} subfolders`, () => {
  /** A top-level folder with 4 subfolders of 5,000 each, made in SQL: 20,004 creates through the API would take minutes. */
  async function wide(): Promise<Rec> {
    const top = await make(`/${uniq('Wide')}`);
    await h.services.reads.query(
      `with b as (insert into folder (tenant_id, id, parent_id, top_id, name, path)
                  select $1, gen_random_uuid(), $2, $2, 'b' || i, $3 || '/b' || i from generate_series(1, 4) i returning id, path)
       insert into folder (tenant_id, id, parent_id, top_id, name, path)
       select $1, gen_random_uuid(), b.id, $2, 'c' || j, b.path || '/c' || j from b, generate_series(1, 5000) j`,
      [A.t.tenantId, top.id, top.folderPath],
    );
    return top;
  }
  const inTree = async (top: string) => (await h.services.reads.query<{ n: number }>('select count(*)::int as n from folder where tenant_id = $1 and top_id = $2', [A.t.tenantId, top])).rows[0].n;
  /** The id lists of the statements that changed (`update`) or deleted folders by a list of ids. */
  const folderTurns = (statements: { text: string; values: unknown[] }[], verb: 'update' | 'delete from') =>
    statements.filter((st) => new RegExp(`^${verb} folder t\\b`).test(st.text)).flatMap((st) => st.values.filter(Array.isArray) as string[][]);

  test(`a rename and a move go ${FOLDERS_A_TURN} folders a statement at most: every path follows (one statement of 300,000 passed the timeout)`, async () => {
    const top = await wide();
    const renamed = uniq('Renamed');
    const rename = await h.captureQueries(() => A.put(`/folders/${top.id}`, { name: renamed }));
    expect(rename.result.status).toBe(200);
    expect(folderTurns(rename.statements, 'update').map((ids) => ids.length)).toEqual([FOLDERS_A_TURN, FOLDERS_A_TURN, 5]);
    expect((await A.get(`/folders?folderPath=${enc(`/${renamed}/b3/c77`)}`)).status).toBe(200);
    const into = await make(`/${uniq('Into')}`);
    const move = await h.captureQueries(() => A.put('/folders/move', { sourceFolderId: top.id, targetFolderId: into.id }));
    expect(move.result.status).toBe(200);
    expect(folderTurns(move.statements, 'update').map((ids) => ids.length)).toEqual([FOLDERS_A_TURN, FOLDERS_A_TURN, 5]);
    const deep = (await A.get(`/folders?folderPath=${enc(`${into.folderPath}/${renamed}/b3/c77`)}`)).body.data as Rec;
    expect(deep.topLevelFolderId).toBe(into.id);
    expect(await inTree(into.id)).toBe(20_006);
    expect((await A.del(`/folders/${into.id}`)).status).toBe(200);
    // 60,000 folder rows written and the same deleted: seconds alone, far more beside the whole suite.
  }, 120_000);

  test(`a delete goes whole, ${FOLDERS_A_TURN} folders a statement at most, deepest first: 200, every folder and document of it gone`, async () => {
    const top = await wide();
    expect(await inTree(top.id)).toBe(20_005);
    const middle = (await A.get(`/folders?folderPath=${enc(`${top.folderPath}/b2`)}`)).body.data as Rec;
    const deep = (await A.get(`/folders?folderPath=${enc(`${top.folderPath}/b3/c77`)}`)).body.data as Rec;
    const doc = (await A.post('/documents', { folderId: deep.id, name: uniq('deep') })).body.data as { documentId: string };
    // In one statement, a tree of about 300,000 folders would reach the default statement timeout.
    const { result, statements } = await h.captureQueries(() => A.del(`/folders/${top.id}`));
    expect(result.status).toBe(200);
    const turns = folderTurns(statements, 'delete from');
    expect(turns.map((t) => t.length)).toEqual([FOLDERS_A_TURN, FOLDERS_A_TURN, 5]);
    // The deepest go first: the last turn is the top and its 4 subfolders.
    expect([...turns[0], ...turns[1]]).toContain(deep.id);
    expect(turns[2]).toEqual(expect.arrayContaining([top.id, middle.id]));
    expect(await inTree(top.id)).toBe(0);
    expectError(await A.get(`/documents/${doc.documentId}`), 404);
  }, 120_000);
});

describe('move and copy', () => {
  const doc = async (folderId: string, name = uniq('doc')) => (await A.post('/documents', { folderId, name, changeText: 'v1' })).body.data;

  test('PUT /folders/move puts a folder with its subtree into the target (made when missing); ids stay, paths follow', async () => {
    const src = await make(`/${uniq('From')}/Mover/inner`);
    const mover = (await A.get(`/folders?folderPath=${enc(src.folderPath.replace(/\/inner$/, ''))}`)).body.data;
    const inside = await doc(src.id);
    const target = `/${uniq('To')}/Dest`;
    const r = await A.put('/folders/move', { sourceFolderId: mover.id, targetFolderPath: target });
    expectEnvelope(r, 'PUT', A.url('/folders/move'));
    const destination = (await A.get(`/folders?folderPath=${enc(target)}`)).body.data;
    expect(r.body.data).toMatchObject({ id: mover.id, folderPath: `${target}/Mover`, parentFolderId: destination.id, topLevelFolderId: destination.topLevelFolderId });
    expect((await A.get(`/folders/${src.id}`)).body.data).toMatchObject({ folderPath: `${target}/Mover/inner`, topLevelFolderId: destination.topLevelFolderId });
    expect((await A.get(`/documents/${inside.id}`)).body.data.folderPath).toBe(`${target}/Mover/inner`);
    // To the top level, by path this time.
    const top = await A.put('/folders/move', { sourceFolderPath: `${target}/Mover`, targetFolderPath: '/' });
    expect(top.body.data).toMatchObject({ folderPath: '/Mover', parentFolderId: ZERO_GUID, topLevelFolderId: mover.id });
    expect((await A.get(`/folders/${src.id}`)).body.data.topLevelFolderId).toBe(mover.id);
    await A.del(`/folders/${mover.id}`);
  });

  test('an id and a path of one folder naming two: 400 on move and copy, nothing moved, copied or made; naming the same folder, any case, they go on', async () => {
    const src = await make(`/${uniq('Two')}/src`);
    const [a, b] = [await make(`/${uniq('TwoA')}`), await make(`/${uniq('TwoB')}`)];
    const unmade = `/${uniq('Unmade')}`;
    const refusals: [string, Record<string, string>, string][] = [
      ['/folders/move', { sourceFolderId: src.id, targetFolderId: a.id, targetFolderPath: b.folderPath }, `'targetFolderId' ('${a.id}') and 'targetFolderPath' ('${b.folderPath}') name different folders`],
      ['/folders/move', { sourceFolderId: src.id, targetFolderId: a.id, targetFolderPath: unmade }, "name different folders"],
      ['/folders/move', { sourceFolderId: src.id, sourceFolderPath: b.folderPath, targetFolderId: a.id }, `'sourceFolderId' ('${src.id}') and 'sourceFolderPath' ('${b.folderPath}') name different folders`],
      ['/folders/copy', { sourceFolderId: src.id, sourceFolderPath: b.folderPath, targetFolderPath: a.folderPath }, "'sourceFolderId'"],
      ['/folders/copy', { sourceFolderId: src.id, targetFolderId: a.id, targetFolderPath: '/' }, "'targetFolderId'"],
    ];
    for (const [path, body, message] of refusals) {
      const send = path.endsWith('move') ? A.put(path, body) : A.post(path, body);
      expectError(await send, 400, message);
    }
    expect((await A.get(`/folders/${src.id}`)).body.data.folderPath).toBe(src.folderPath);
    expectError(await A.get(`/folders?folderPath=${enc(unmade)}`), 404);
    expect((await A.get(`/folders/${a.id}/folders`)).body.data).toEqual([]);
    const moved = await A.put('/folders/move', { sourceFolderId: src.id, sourceFolderPath: src.folderPath.toUpperCase(), targetFolderId: a.id, targetFolderPath: `${a.folderPath}/` });
    expect(moved.status).toBe(200);
    expect(moved.body.data.folderPath).toBe(`${a.folderPath}/src`);
  });

  test('move refusals: into itself or below it (409), a name taken there (409), nothing named (400), unknown ids (404)', async () => {
    const a = await make(`/${uniq('Self')}/child`);
    const parent = a.topLevelFolderId;
    expectError(await A.put('/folders/move', { sourceFolderId: parent, targetFolderId: a.id }), 409, 'cannot go into itself');
    expectError(await A.put('/folders/move', { sourceFolderId: parent, targetFolderId: parent }), 409, 'cannot go into itself');
    const other = await make(`/${uniq('Has')}/child`);
    expectError(await A.put('/folders/move', { sourceFolderId: a.id, targetFolderId: other.topLevelFolderId }), 409, 'already exists');
    expectError(await A.put('/folders/move', { targetFolderPath: '/' }), 400, 'sourceFolderId');
    // '/' is the library, no folder: a 400 saying so, not a 404 as if a folder were missing.
    for (const source of ['/', ' // ']) {
      expectError(await A.put('/folders/move', { sourceFolderPath: source, targetFolderId: other.id }), 400, "The field 'sourceFolderPath' must name a folder, such as /Top/Child: '/' is the library itself");
      expectError(await A.post('/folders/copy', { sourceFolderPath: source, targetFolderId: other.id }), 400, "'/' is the library itself");
    }
    expectError(await A.put('/folders/move', { sourceFolderId: a.id }), 400, 'targetFolderId');
    expectError(await A.put('/folders/move', { sourceFolderId: UNKNOWN_ID, targetFolderPath: '/' }), 404);
    expectError(await A.put('/folders/move', { sourceFolderId: a.id, targetFolderId: UNKNOWN_ID }), 404);
    expect((await A.get(`/folders/${a.id}`)).body.data.folderPath).toBe(a.folderPath);
  });

  test('a copy larger than 10,000 folders and documents is refused before anything is read or written', async () => {
    const big = await make(`/${uniq('Big')}`);
    // Documents made in SQL: ten thousand through the API would only slow the test.
    await h.services.reads.query(
      `insert into document (tenant_id, id, folder_id, revision_id, revision, name)
         select $1, gen_random_uuid(), $2, gen_random_uuid(), '1', 'bulk ' || n from generate_series(1, 10000) n`,
      [A.t.tenantId, big.id],
    );
    expectError(await A.post('/folders/copy', { sourceFolderId: big.id, targetFolderPath: '/' + uniq('BigCopy') }), 400, '1 folders and 10000 documents');
    expect((await A.get(`/folders/${big.id}/documents?limit=1`)).body.pagination.totalRecords).toBe(10000);
  });

  test('two moves of one folder at once run one after the other: its subtree ends under the last one', async () => {
    const deep = await make(`/${uniq('Twice')}/kid/grandkid`);
    const kid = (await A.get(`/folders/${deep.id}`)).body.data.parentFolderId;
    const [t1, t2] = [`/${uniq('T1')}`, `/${uniq('T2')}`];
    const both = await Promise.all([t1, t2].map((t) => A.put('/folders/move', { sourceFolderId: kid, targetFolderPath: t })));
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    const now = (await A.get(`/folders/${kid}`)).body.data;
    expect([`${t1}/kid`, `${t2}/kid`]).toContain(now.folderPath);
    expect((await A.get(`/folders/${deep.id}`)).body.data).toMatchObject({ folderPath: `${now.folderPath}/grandkid`, topLevelFolderId: now.topLevelFolderId });
  });

  test('moves that cross each other (Z2 into W, W into Z1, Z1 into W, each twice) wait in turn: no deadlock, no 5xx, no folder inside itself', async () => {
    const root = await make(`/${uniq('Cross')}/Z1`);
    const [z2, w] = [await make(`${root.folderPath.replace(/\/Z1$/, '')}/Z2`), await make(`${root.folderPath.replace(/\/Z1$/, '')}/W`)];
    const moves: [string, string][] = [[z2.id, w.id], [w.id, root.id], [root.id, w.id]];
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([...moves, ...moves].map(([from, to]) => A.put('/folders/move', { sourceFolderId: from, targetFolderId: to })));
      for (const r of answers) expect([200, 409]).toContain(r.status);
      // Only "into itself" may refuse a move here: a deadlock's "try again" 409 would be another message.
      for (const r of answers.filter((a) => a.status === 409)) expect(r.body.meta.errors[0].message).toMatch(/cannot go into itself|already exists/);
      const all = await Promise.all([root, z2, w].map(async (f) => (await A.get(`/folders/${f.id}`)).body.data));
      for (const f of all) for (const g of all) if (f.id !== g.id && g.parentFolderId === f.id) expect(f.parentFolderId).not.toBe(g.id);
    }
  });

  test('POST /folders/copy copies the subtree and its documents with every revision under new ids; the source stays', async () => {
    const src = await make(`/${uniq('Orig')}/sub`);
    const root = src.topLevelFolderId;
    const d1 = await doc(root, 'top doc');
    const d2 = await doc(src.id, 'deep doc');
    const target = `/${uniq('Copies')}`;
    const r = await A.post('/folders/copy', { sourceFolderId: root, targetFolderPath: target });
    expectEnvelope(r, 'POST', A.url('/folders/copy'));
    const copy = r.body.data;
    const origName = (await A.get(`/folders/${root}`)).body.data.name;
    expect(copy).toMatchObject({ name: origName, folderPath: `${target}/${origName}` });
    expect(copy.id).not.toBe(root);
    const sub = (await A.get(`/folders/${copy.id}/folders`)).body.data;
    expect(sub.map((f: Rec) => f.folderPath)).toEqual([`${target}/${origName}/sub`]);
    const copiedDocs = [...(await A.get(`/folders/${copy.id}/documents`)).body.data, ...(await A.get(`/folders/${sub[0].id}/documents`)).body.data];
    expect(copiedDocs.map((d: Rec) => d.name)).toEqual(['top doc', 'deep doc']);
    for (const d of copiedDocs) expect([d1.documentId, d2.documentId, d1.id, d2.id]).not.toContain(d.documentId);
    const revs = (await A.get(`/documents/${copiedDocs[1].documentId}/revisions`)).body.data;
    expect(revs.map((x: Rec) => [x.revision, x.changeText, x.id === copiedDocs[1].id])).toEqual([['1', 'v1', true]]);
    // The source is untouched.
    expect((await A.get(`/documents/${d2.id}`)).body.data.folderId).toBe(src.id);
    expectError(await A.post('/folders/copy', { sourceFolderId: root, targetFolderPath: target }), 409, 'already exists');
    expectError(await A.post('/folders/copy', { sourceFolderId: root, targetFolderId: src.id }), 409, 'cannot go into itself');
  });
});

describe('a copy in progress', () => {
  const doc = async (folderId: string, name = uniq('doc')) => (await A.post('/documents', { folderId, name, changeText: 'v1' })).body.data;
  /**
   * Backends waiting on `holder` (a connection of the test's), directly or behind one that does: the
   * database is shared with the other jest worker's file, whose waits must not count.
   */
  const waitingOn = async (holder: number) =>
    (
      await h.services.reads.query(
        `with direct as (select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid)))
         select count(*)::int as n from pg_stat_activity a
          where a.pid in (select pid from direct) or exists (select 1 from direct d where d.pid = any(pg_blocking_pids(a.pid)))`,
        [holder],
      )
    ).rows[0].n as number;
  /** Backends waiting for this tenant's turn at its tree (the advisory key `lockTree` takes: high and low halves, objsubid 1). */
  const waitingForTheTurn = async () =>
    (
      await h.services.reads.query(
        `with k as (select hashtext('quire:folder-tree:' || $1)::bigint as key)
         select count(*)::int as n from pg_locks l, k
          where l.locktype = 'advisory' and not l.granted and l.objsubid = 1
            and l.classid::bigint = (k.key >> 32) & 4294967295 and l.objid::bigint = k.key & 4294967295`,
        [A.t.tenantId],
      )
    ).rows[0].n as number;
  const pidOf = async (c: { query: (text: string) => Promise<{ rows: { pid: number }[] }> }) => (await c.query('select pg_backend_pid() as pid')).rows[0].pid;
  /** Polls `check` until it holds (at most 10 s); false when `stop` came first. */
  async function until(check: () => Promise<boolean>, stop = () => false): Promise<boolean> {
    for (let i = 0; i < 500; i++) {
      if (stop()) return false;
      if (await check()) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('gave up waiting');
  }
  /** The reply of `request`, which must not wait for the tenant's turn (fails at once when it does, rather than hang). */
  async function notWaitingForTheTurn(request: Promise<Reply>): Promise<Reply> {
    let answered = false;
    const reply = request.finally(() => (answered = true));
    expect({ waitedForTheTurn: await until(async () => (await waitingForTheTurn()) > 0, () => answered) }).toEqual({ waitedForTheTurn: false });
    return reply;
  }

  test('gives the tenant\'s turn back once its folders are locked: while it waits for a document held elsewhere, a rename elsewhere completes, and a rename of its source waits for it', async () => {
    const sub = await make(`/${uniq('Held')}/sub`);
    const source = (await A.get(`/folders/${sub.topLevelFolderId}`)).body.data as Rec;
    const held = await doc(sub.id, 'held doc');
    const elsewhere = await make(`/${uniq('Elsewhere')}`);
    const target = `/${uniq('HeldCopy')}`;
    // A second connection holds one of the documents the copy locks, after its folders, so the copy waits there.
    const holder = await h.services.reads.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from document where tenant_id = $1 and id = $2 for update', [A.t.tenantId, held.documentId]);
      const pid = await pidOf(holder);
      let copied = false;
      const copy = A.post('/folders/copy', { sourceFolderId: source.id, targetFolderPath: target }).finally(() => (copied = true));
      await until(async () => (await waitingOn(pid)) > 0);
      // Before, the copy held the turn to its end, and the rename waited for it there.
      expect((await notWaitingForTheTurn(A.put(`/folders/${elsewhere.id}`, { name: uniq('Renamed') }))).status).toBe(200);
      // The source's rename takes the turn, then waits for the copy's lock on the folder.
      const sourceRename = A.put(`/folders/${source.id}`, { name: uniq('HeldRenamed') });
      await until(async () => (await waitingOn(pid)) > 1);
      expect(copied).toBe(false);
      await holder.query('commit');
      const [c, r] = await Promise.all([copy, sourceRename]);
      expect([c.status, r.status]).toEqual([200, 200]);
      expect(c.body.data.folderPath).toBe(`${target}/${source.name as string}`);
      expect((await A.get(`/folders/${c.body.data.id}/folders`)).body.data.map((f: Rec) => f.folderPath)).toEqual([`${target}/${source.name as string}/sub`]);
      expect((await A.get(`/folders/${sub.id}`)).body.data.folderPath).toBe(`${r.body.data.folderPath}/sub`);
    } finally {
      await holder.query('rollback').catch(() => {});
      holder.release();
    }
  }, 60_000);

  test('a rename beside its landing to its name, while it runs, goes first: the copy is a 409 (the unique path decides), and nothing of it stays', async () => {
    const sub = await make(`/${uniq('Named')}/sub`);
    const source = (await A.get(`/folders/${sub.topLevelFolderId}`)).body.data as Rec;
    const held = await doc(sub.id, 'held doc');
    const beside = await make(`/${uniq('Dest')}/other`);
    const dest = beside.folderPath.replace(/\/other$/, '');
    const holder = await h.services.reads.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from document where tenant_id = $1 and id = $2 for update', [A.t.tenantId, held.documentId]);
      const pid = await pidOf(holder);
      const copy = A.post('/folders/copy', { sourceFolderId: source.id, targetFolderPath: dest });
      await until(async () => (await waitingOn(pid)) > 0);
      // The copy has found the name free and given the turn back; the rename does not wait for it.
      expect((await notWaitingForTheTurn(A.put(`/folders/${beside.id}`, { name: source.name }))).status).toBe(200);
      await holder.query('commit');
      expectError(await copy, 409, 'it may have just been created');
    } finally {
      await holder.query('rollback').catch(() => {});
      holder.release();
    }
    expect((await A.get(`/folders?folderPath=${enc(`${dest}/${source.name as string}`)}`)).body.data.id).toBe(beside.id);
    expect((await A.get(`/folders/${beside.id}/folders`)).body.data).toEqual([]);
  }, 60_000);

  test('gives the turn back when it fails while locking: refused (409, 404), or chosen as a deadlock\'s victim (then it runs again and copies); no advisory lock stays held', async () => {
    const held = await make(`/${uniq('Locked')}/kid`);
    const into = await make(`/${uniq('Into')}`);
    // This tenant's turn only (src/domain/folders.ts, treeKey): other files' folder changes run meanwhile and hold their own.
    const advisoryHeld = async () =>
      (
        await h.services.reads.query(
          `select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid
            where a.datname = current_database() and l.locktype = 'advisory' and l.objsubid = 1
              and ((l.classid::bigint << 32) | l.objid::bigint) = hashtext('quire:folder-tree:' || $1)::bigint`,
          [A.t.tenantId],
        )
      ).rows[0].n;
    expectError(await A.post('/folders/copy', { sourceFolderId: held.topLevelFolderId, targetFolderId: held.id }), 409, 'cannot go into itself');
    expectError(await A.post('/folders/copy', { sourceFolderId: held.id, targetFolderId: UNKNOWN_ID }), 404);
    expect(await advisoryHeld()).toBe(0);
    // A statement that fails while the turn is held: the copy locks the target (its path is the
    // shorter), then waits for the source, which a second connection holds and which then asks for
    // the target. The copy waited first, so PostgreSQL finds the deadlock there and aborts its
    // transaction (this connection's own check comes much later).
    const holder = await h.services.reads.connect();
    try {
      await holder.query('begin');
      await holder.query("set local deadlock_timeout = '60s'");
      await holder.query('select id from folder where tenant_id = $1 and id = $2 for update', [A.t.tenantId, held.id]);
      const pid = (await holder.query('select pg_backend_pid() as pid')).rows[0].pid;
      const copy = A.post('/folders/copy', { sourceFolderId: held.id, targetFolderId: into.id });
      await until(async () => (await h.services.reads.query('select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [pid])).rows[0].n > 0);
      // Granted once PostgreSQL has ended the copy's transaction, which held the target. The copy
      // then runs again (src/db/transaction.ts) and copies once the holder lets go.
      await holder.query('select id from folder where tenant_id = $1 and id = $2 for update', [A.t.tenantId, into.id]);
      await holder.query('rollback');
      expect((await copy).status).toBe(200);
    } finally {
      holder.release();
    }
    expect(await advisoryHeld()).toBe(0);
    expect((await A.get(`/folders/${into.id}/folders`)).body.data.map((f: { name: string }) => f.name)).toEqual([held.name]);
    expect((await A.put(`/folders/${held.id}`, { name: 'renamed' })).status).toBe(200);
  }, 60_000);
});

describe('limits: 64 levels and 4,000 characters, over the whole subtree', () => {
  const pick = (from: number, n: number) => String.fromCodePoint(from + Math.floor(Math.random() * n));
  /**
   * `n` characters at random (random, so that PostgreSQL cannot compress them below an index's
   * row limit): 3-byte CJK ones; with `astral`, every fourth a 4-byte emoji, two UTF-16 units in
   * JavaScript but one character to PostgreSQL and to the limits.
   */
  const text = (n: number, astral = false) => Array.from({ length: n }, (_, i) => (astral && i % 4 === 3 ? pick(0x1f300, 0x100) : pick(0x4e00, 0x5000))).join('');
  const chars = (s: string) => [...s].length;
  const levels = (path: string) => path.split('/').length - 1;
  /** A new top-level path of `depth` levels and exactly `length` characters. */
  function pathOf(depth: number, length: number, astral = false): string {
    let rest = length - depth;
    const names = Array.from({ length: depth }, (_, i) => {
      const n = Math.floor(rest / (depth - i));
      rest -= n;
      return text(n, astral);
    });
    expect(names.every((n) => chars(n) >= 1 && chars(n) <= 256)).toBe(true);
    return `/${names.join('/')}`;
  }
  const pathOfFolder = async (id: string) => (await A.get(`/folders/${id}`)).body.data.folderPath as string;
  const byPath = async (path: string) => {
    const r = await A.get(`/folders?folderPath=${enc(path)}`);
    expect([r.status, r.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
    return r.body.data as Rec;
  };
  /** A path's first `n` levels. */
  const head = (path: string, n: number) => path.split('/').slice(0, n + 1).join('/');

  test('a path of 4,000 3-byte characters and 64 levels is made, found by its path, renamed, moved and copied: 200s, never the index\'s 500', async () => {
    const path = pathOf(64, 4000);
    const leaf = await make(path);
    expect(leaf.folderPath).toBe(path);
    expect((await byPath(path)).id).toBe(leaf.id);
    // A rename of its top to a name as long: every path rewritten, each found by its path.
    const top = await byPath(head(path, 1));
    const renamed = await A.put(`/folders/${top.id}`, { name: text(chars(top.name as string)) });
    expect(renamed.status).toBe(200);
    const now = await pathOfFolder(leaf.id);
    expect([chars(now), levels(now)]).toEqual([4000, 64]);
    expect((await byPath(now)).id).toBe(leaf.id);
    // Its second level moved, then copied, under a top-level folder named as long as its top.
    const second = await byPath(head(now, 2));
    const movedTo = (await A.post('/folders', { name: text(chars(renamed.body.data.name)) })).body.data;
    expect((await A.put('/folders/move', { sourceFolderId: second.id, targetFolderId: movedTo.id })).status).toBe(200);
    const moved = await pathOfFolder(leaf.id);
    expect([moved.startsWith(`${movedTo.folderPath}/`), chars(moved)]).toEqual([true, 4000]);
    expect((await byPath(moved)).id).toBe(leaf.id);
    const copiedTo = (await A.post('/folders', { name: text(chars(movedTo.name)) })).body.data;
    const copy = await A.post('/folders/copy', { sourceFolderId: second.id, targetFolderId: copiedTo.id });
    expect(copy.status).toBe(200);
    const copied = await byPath(`${copiedTo.folderPath}${moved.slice(movedTo.folderPath.length)}`);
    expect(copied.id).not.toBe(leaf.id);
    expect(chars(copied.folderPath)).toBe(4000);
  });

  test('a child: made at 64 levels and at 4,000 characters (counted as code points); one level or character more is a 400 naming it, nothing made', async () => {
    const at63 = await make(`/${uniq('Deep')}/${Array.from({ length: 62 }, (_, i) => `l${i}`).join('/')}`);
    const at64 = await A.post(`/folders/${at63.id}`, { name: 'c' });
    expect(at64.status).toBe(200);
    expect(levels(at64.body.data.folderPath)).toBe(64);
    expectError(await A.post(`/folders/${at64.body.data.id}`, { name: 'd' }), 400, "at most 64 levels: the folder 'd' would have 65");
    expect((await A.get(`/folders/${at64.body.data.id}/folders`)).body.data).toEqual([]);

    const parent = await make(pathOf(20, 3990, true));
    const [fits, over] = [text(9, true), text(10, true)];
    expectError(await A.post(`/folders/${parent.id}`, { name: over }), 400, `longer than 4000 characters: that of the folder '${over}' would have 4001`);
    const made = await A.post(`/folders/${parent.id}`, { name: fits });
    expect(made.status).toBe(200);
    expect(chars(made.body.data.folderPath)).toBe(4000);
    expect((await A.get(`/folders/${parent.id}/folders`)).body.data.map((f: Rec) => f.name)).toEqual([fits]);
  });

  test('a rename: its subtree reaching 4,000 characters is renamed; one character more is a 400 naming its longest folder, no path changed', async () => {
    const leaf = await make(pathOf(20, 3990, true));
    const top = await byPath(head(leaf.folderPath, 1));
    const name = top.name as string;
    expectError(await A.put(`/folders/${top.id}`, { name: text(chars(name) + 11, true) }), 400, `longer than 4000 characters: that of the folder '${[...(leaf.name as string)].slice(0, 64).join('')}' (${leaf.id}) would have 4001`);
    expect(await pathOfFolder(leaf.id)).toBe(leaf.folderPath);
    expect((await A.get(`/folders/${top.id}`)).body.data.name).toBe(name);
    expect((await A.put(`/folders/${top.id}`, { name: text(chars(name) + 10, true) })).status).toBe(200);
    expect(chars(await pathOfFolder(leaf.id))).toBe(4000);
  });

  test.each([
    ['move', 'put', '/folders/move'],
    ['copy', 'post', '/folders/copy'],
  ] as const)('a %s: a subtree reaching 64 levels or 4,000 characters in its new place goes; one more is a 400 naming its deepest or longest folder, nothing changed', async (_, method, route) => {
    const send = (source: Rec, target: string) => A[method](route, { sourceFolderId: source.id, targetFolderId: target });
    // Levels: a chain of 60 goes into a folder at level 4, not into one at level 5.
    const chain = await make(`/${uniq('Chain')}/${Array.from({ length: 59 }, (_, i) => `c${i}`).join('/')}`);
    const chainTop = await byPath(head(chain.folderPath, 1));
    const at5 = await make(`/${uniq('Into')}/a/b/c/d`);
    expectError(await send(chainTop, at5.id), 400, `at most 64 levels: the folder 'c58' (${chain.id}) would have 65`);
    expect(await pathOfFolder(chain.id)).toBe(chain.folderPath);
    expect((await A.get(`/folders/${at5.id}/folders`)).body.data).toEqual([]);
    const deep = await send(chainTop, at5.parentFolderId as string);
    expect(deep.status).toBe(200);
    expect(levels(await byPath(`${head(at5.folderPath, 4)}/${chainTop.name}/${chain.folderPath.split('/').slice(2).join('/')}`).then((f) => f.folderPath))).toBe(64);

    // Characters: a subtree whose longest path has 3,989 goes under a path of 11, not one of 12.
    const long = await make(pathOf(20, 3989, true));
    const longTop = await byPath(head(long.folderPath, 1));
    const [to11, to12] = [await make(`/${text(10, true)}`), await make(`/${text(11, true)}`)];
    expectError(await send(longTop, to12.id), 400, `longer than 4000 characters: that of the folder '${[...(long.name as string)].slice(0, 64).join('')}' (${long.id}) would have 4001`);
    expect(await pathOfFolder(long.id)).toBe(long.folderPath);
    expect((await A.get(`/folders/${to12.id}/folders`)).body.data).toEqual([]);
    expect((await send(longTop, to11.id)).status).toBe(200);
    expect(chars((await byPath(`${to11.folderPath}${long.folderPath}`)).folderPath)).toBe(4000);
  });
});

describe('at the same time', () => {
  test('ten requests making paths under the same new ancestors: every one succeeds, and each ancestor exists once', async () => {
    const root = `/${uniq('Race')}/shared/tree`;
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => A.post('/folders', { folderpath: `${root}/leaf${i}` })));
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(replies.map((r) => r.body.data.parentFolderId)).size).toBe(1);
    const shared = await A.get(`/folders?folderPath=${enc(root)}`);
    expect((await A.get(`/folders/${shared.body.data.id}/folders`)).body.pagination.totalRecords).toBe(10);
  });

  test('the same path made five times at once: one 200, four 409s, one folder', async () => {
    const path = `/${uniq('Once')}`;
    const replies = await Promise.all(Array.from({ length: 5 }, () => A.post('/folders', { folderpath: path })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect((await A.get(`/folders?folderPath=${enc(path)}`)).body.data.id).toBe(replies.find((r) => r.status === 200)!.body.data.id);
  });

  test('a path made while a folder on it is deleted: made anew from the top, as after the delete (it was a 404 naming the deleted folder)', async () => {
    const top = await make(`/${uniq('Going')}/x`);
    const path = `${top.folderPath}/b/c`;
    // The create has read the top folder and waits to lock it; the delete, holding it, goes through first.
    const r = await whileHeld(
      h,
      { text: 'select 1 from folder where tenant_id = $1 and id = $2 for update', values: [A.t.tenantId, top.topLevelFolderId] },
      () => A.post('/folders', { folderpath: path }),
      { text: 'delete from folder where tenant_id = $1 and id = $2', values: [A.t.tenantId, top.topLevelFolderId] },
    );
    expect([r.status, r.body.data?.folderPath]).toEqual([200, path]);
    const again = (await A.get(`/folders?folderPath=${enc(top.folderPath)}`)).body.data as Rec;
    expect(again.topLevelFolderId).not.toBe(top.topLevelFolderId);
    expect(r.body.data.topLevelFolderId).toBe(again.topLevelFolderId);
  });

  test('a rename racing children being made under it: every child ends under the new path', async () => {
    const top = (await A.post('/folders', { name: uniq('Moving') })).body.data;
    const renamedTo = uniq('Moved');
    const [renamed, ...kids] = await Promise.all([
      A.put(`/folders/${top.id}`, { name: renamedTo }),
      ...Array.from({ length: 6 }, (_, i) => A.post(`/folders/${top.id}`, { name: `kid${i}` })),
    ]);
    expect([renamed.status, ...kids.map((k) => k.status)]).toEqual(Array(7).fill(200));
    const list = await A.get(`/folders/${top.id}/folders`);
    expect(list.body.data.map((k: Rec) => k.folderPath).sort()).toEqual(Array.from({ length: 6 }, (_, i) => `/${renamedTo}/kid${i}`));
  });

  test('a delete racing a document and a folder made in it, 20 rounds: each made before it (and gone with it) or the 404 of a folder gone; nothing left under it', async () => {
    for (let round = 0; round < 20; round++) {
      const f = await make(`/${uniq('Doomed')}`);
      const [del, doc, kid] = await Promise.all([A.del(`/folders/${f.id}`), A.post('/documents', { folderId: f.id, name: 'late' }), A.post(`/folders/${f.id}`, { name: 'late' })]);
      expect(del.status).toBe(200);
      for (const r of [doc, kid]) if (r.status !== 200) expectError(r, 404, `Folder '${f.id}' was not found.`);
      if (kid.status === 200) expectError(await A.get(`/folders/${kid.body.data.id}`), 404);
      const { rows } = await h.services.reads.query(
        `select (select count(*)::int from document where tenant_id = $1 and folder_id = $2) + (select count(*)::int from folder where tenant_id = $1 and parent_id = $2) as n`,
        [A.t.tenantId, f.id],
      );
      expect(rows[0].n).toBe(0);
    }
  });

  test('three folders renamed to one name beside each other, and two same-named folders moved into one parent, 20 rounds each: one wins, the others a 409; never two of one name', async () => {
    for (let round = 0; round < 20; round++) {
      const p = await make(`/${uniq('Beside')}`);
      const kids = await Promise.all(['x', 'y', 'z'].map((name) => A.post(`/folders/${p.id}`, { name }).then((r) => r.body.data as Rec)));
      const renames = await Promise.all(kids.map((k) => A.put(`/folders/${k.id}`, { name: 'Same' })));
      expect(renames.map((r) => r.status).sort()).toEqual([200, 409, 409]);
      for (const r of renames.filter((x) => x.status === 409)) expectError(r, 409, /^A folder named 'Same' already exists beside /);
      const [x, y] = [await make(`/${uniq('From')}/Moved`), await make(`/${uniq('From')}/Moved`)];
      const moves = await Promise.all([x, y].map((f) => A.put('/folders/move', { sourceFolderId: f.id, targetFolderId: p.id })));
      expect(moves.map((r) => r.status).sort()).toEqual([200, 409]);
      expectError(moves.find((r) => r.status === 409)!, 409, `The folder '${p.folderPath}/Moved' already exists.`);
      const names = (await A.get(`/folders/${p.id}/folders`)).body.data.map((k: Rec) => k.name).sort();
      expect(names).toEqual(['Moved', 'Same', ...['x', 'y', 'z'].filter((n) => names.includes(n))].sort());
      expect(names).toHaveLength(4);
    }
  }, 60_000);
});

describe('renames and moves racing folders made deeper down', () => {
  test('renames of a folder racing children made two levels below it: every child ends under its final path', async () => {
    for (let round = 0; round < 3; round++) {
      const top = (await A.post('/folders', { name: uniq('Deep') })).body.data;
      const mid = (await A.post(`/folders/${top.id}`, { name: 'B' })).body.data;
      const names = [uniq('R1'), uniq('R2'), uniq('R3')];
      const answers = await Promise.all([
        ...names.map((name) => A.put(`/folders/${top.id}`, { name })),
        ...Array.from({ length: 10 }, (_, i) => A.post(`/folders/${mid.id}`, { name: `kid${i}` })),
      ]);
      expect(answers.map((r) => r.status)).toEqual(Array(13).fill(200));
      const final = (await A.get(`/folders/${top.id}`)).body.data.folderPath;
      const kids = (await A.get(`/folders/${mid.id}/folders`)).body.data.map((k: Rec) => k.folderPath).sort();
      expect(kids).toEqual(Array.from({ length: 10 }, (_, i) => `${final}/B/kid${i}`).sort());
      // Each is found by its path.
      expect((await A.get(`/folders?folderPath=${encodeURIComponent(`${final}/B/kid3`)}`)).status).toBe(200);
    }
  });
});

describe('moves and copies racing a rename or move above their destination', () => {
  type Row = { id: string; parent_id: string | null; top_id: string; name: string; path: string };

  /**
   * Every folder of the tenant sits at its parent's path plus its name, under its parent's top
   * folder, and the folders made since the last check (`seen`) are found by their paths.
   */
  async function expectConsistent(api: Api, seen: Set<string>): Promise<void> {
    const rows = (await api.h.orm.em.getConnection().execute('select id, parent_id, top_id, name, path from folder where tenant_id = ?', [api.t.tenantId])) as Row[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const wrong = rows.filter((r) => {
      const parent = r.parent_id ? byId.get(r.parent_id) : undefined;
      return r.path !== `${parent?.path ?? ''}/${r.name}` || r.top_id !== (parent?.top_id ?? r.id);
    });
    expect(wrong.map((r) => ({ path: r.path, parent: r.parent_id && byId.get(r.parent_id)?.path }))).toEqual([]);
    for (const r of rows.filter((x) => !seen.has(x.id))) {
      const found = await api.get(`/folders?folderPath=${enc(r.path)}`);
      expect([r.path, found.status, found.body.data?.id]).toEqual([r.path, 200, r.id]);
      seen.add(r.id);
    }
  }

  /** A destination D under X (directly, or with a folder between, every other round), and a source S with two levels under it. */
  async function tree(api: Api, round: number) {
    const x = (await api.post('/folders', { folderpath: `/${uniq('X')}` })).body.data as Rec;
    const d = (await api.post('/folders', { folderpath: `${x.folderPath}${round % 2 ? '/M' : ''}/D` })).body.data as Rec;
    const leaf = (await api.post('/folders', { folderpath: `/${uniq('S')}/s1/s2` })).body.data as Rec;
    const s = (await api.get(`/folders?folderPath=${enc(leaf.folderPath.replace(/\/s1\/s2$/, ''))}`)).body.data as Rec;
    const z = (await api.post('/folders', { folderpath: `/${uniq('Z')}` })).body.data as Rec;
    return { x, d, s, z };
  }

  // Ids every other round, paths the others: a target named by path is made again when the rename went first.
  const into = (round: number, s: Rec, d: Rec) => (round % 4 < 2 ? { sourceFolderId: s.id, targetFolderId: d.id } : { sourceFolderPath: s.folderPath, targetFolderPath: d.folderPath });

  const races: [string, (api: Api, t: Awaited<ReturnType<typeof tree>>, round: number) => Promise<Reply>[]][] = [
    ['a move of S into D racing a rename of X', (api, { x, d, s }, round) => [api.put('/folders/move', into(round, s, d)), api.put(`/folders/${x.id}`, { name: uniq('X2') })]],
    ['a move of S into D racing a move of X into Z', (api, { x, d, s, z }, round) => [api.put('/folders/move', into(round, s, d)), api.put('/folders/move', { sourceFolderId: x.id, targetFolderId: z.id })]],
    ['a copy of S into D racing a rename of X', (api, { x, d, s }, round) => [api.post('/folders/copy', into(round, s, d)), api.put(`/folders/${x.id}`, { name: uniq('X2') })]],
  ];

  test.each(races)('%s, 20 times: both 200, every folder at its parent\'s path and found by it', async (_, race) => {
    const api = await adminApi(h);
    const seen = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.all(race(api, await tree(api, round), round));
      expect(answers.map((r) => [r.status, r.status === 200 ? '' : r.text.slice(0, 300)])).toEqual([[200, ''], [200, '']]);
      await expectConsistent(api, seen);
    }
  }, 120_000);
});

describe('any name or path', () => {
  test('folders made, found and renamed with arbitrary names and paths: 200 or a 4xx, never a 5xx; what is made is found by its path', async () => {
    const parent = (await A.post('/folders', { name: uniq('Fuzz') })).body.data;
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('/', '//', ' / ', '.', '..', '%', "'", '\u0000', 'a'.repeat(300)));
    await fc.assert(
      fc.asyncProperty(text, text, async (name, path) => {
        const made = await A.post(`/folders/${parent.id}`, { name });
        expect(made.status).toBeLessThan(500);
        if (made.status === 200) {
          const found = await A.get(`/folders?folderPath=${encodeURIComponent(made.body.data.folderPath)}`);
          expect(found.body.data.id).toBe(made.body.data.id);
          expect((await A.put(`/folders/${made.body.data.id}`, { name: path })).status).toBeLessThan(500);
        }
        expect((await A.post('/folders', { folderpath: `${parent.folderPath}/${path}` })).status).toBeLessThan(500);
        expect((await A.get(`/folders?folderPath=${encodeURIComponent(path)}`)).status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});

describe('who may', () => {
  test('an ordinary user reads folders but may not write them (403, nothing changed); folder security comes later', async () => {
    const f = await make(`/${uniq('Guarded')}`);
    const U = A.as(plain.token);
    expect((await U.get(`/folders/${f.id}`)).status).toBe(200);
    expect((await U.get(`/folders?folderPath=${enc(f.folderPath)}`)).status).toBe(200);
    expectError(await U.post('/folders', { name: uniq('mine') }), 403);
    expectError(await U.post(`/folders/${f.id}`, { name: 'kid' }), 403);
    expectError(await U.put(`/folders/${f.id}`, { description: 'mine now' }), 403);
    expectError(await U.del(`/folders/${f.id}`), 403);
    expect((await A.get(`/folders/${f.id}`)).body.data).toEqual(f);
  });

  test('another tenant sees none of them, by id or by path, and cannot write them', async () => {
    const f = await make(`/${uniq('Private')}`);
    expectError(await B.get(`/folders/${f.id}`), 404);
    expectError(await B.get(`/folders?folderPath=${enc(f.folderPath)}`), 404);
    expectError(await B.put(`/folders/${f.id}`, { description: 'x' }), 404);
    expectError(await B.del(`/folders/${f.id}`), 404);
    expect((await B.get('/folders?folderpath=/')).body.data.some((x: Rec) => x.id === f.id)).toBe(false);
    expect((await A.get(`/folders/${f.id}`)).body.data).toEqual(f);
  });
});

describe('GraphQL', () => {
  test('a folder with its parent and a page of its folders, statements constant as the page grows', async () => {
    const f = await make(`/${uniq('Graph')}/mid`);
    for (let i = 0; i < 4; i++) await A.post(`/folders/${f.id}`, { name: `g${i}` });
    const query = (limit: number) =>
      A.gql(`query ($p: String!) { folderByPath(folderPath: $p) { id folderPath parent { id name } folders(limit: ${limit}) { name parent { id } folders(limit: 2) { id } } } }`, { p: f.folderPath });
    const small = await h.countQueries(() => query(1));
    const big = await h.countQueries(() => query(4));
    expect(big.result.body.errors).toBeUndefined();
    const data = big.result.body.data.folderByPath;
    expect(data).toMatchObject({ id: f.id, parent: { id: f.topLevelFolderId } });
    expect(data.folders.map((x: Rec) => x.name)).toEqual(['g0', 'g1', 'g2', 'g3']);
    expect(data.folders.every((x: { parent: { id: string } }) => x.parent.id === f.id)).toBe(true);
    expect(big.statements.length).toBe(small.statements.length);
  });

  test('a folder\'s documents: a page of them (not deleted ones, only those the caller sees), statements constant as the folders grow', async () => {
    const f = await make(`/${uniq('GraphDocs')}`);
    const kids: Rec[] = [];
    for (let i = 0; i < 4; i++) kids.push((await A.post(`/folders/${f.id}`, { name: `d${i}` })).body.data);
    for (const [i, k] of kids.entries()) for (let j = 0; j <= i; j++) await A.post('/documents', { folderId: k.id, name: `doc${i}-${j}` });
    const gone = (await A.post('/documents', { folderId: kids[3].id, name: 'gone' })).body.data;
    await A.del(`/documents/${gone.documentId}`);
    const query = (limit: number) => A.gql(`query ($id: UUID!) { folder(id: $id) { folders(limit: ${limit}) { name documents(limit: 10) { name folder { id } } } } }`, { id: f.id });
    const small = await h.countQueries(() => query(1));
    const big = await h.countQueries(() => query(4));
    expect(big.result.body.errors).toBeUndefined();
    const folders = big.result.body.data.folder.folders as { name: string; documents: { name: string; folder: { id: string } }[] }[];
    expect(folders.map((x) => x.documents.map((d) => d.name).sort())).toEqual(kids.map((_, i) => Array.from({ length: i + 1 }, (__, j) => `doc${i}-${j}`)));
    expect(folders[2].documents.every((d) => d.folder.id === kids[2].id)).toBe(true);
    expect(big.statements.length).toBe(small.statements.length);
  });

  test('mutations: create by path, rename, delete', async () => {
    const made = await A.gql('mutation ($p: String) { createFolder(input: { folderPath: $p, description: "g" }) { id name folderPath } }', { p: `/${uniq('GqlTop')}/leaf` });
    expect(made.body.errors).toBeUndefined();
    const id = made.body.data.createFolder.id;
    const renamed = await A.gql('mutation ($id: UUID!) { updateFolder(id: $id, input: { name: "leaf2" }) { folderPath } }', { id });
    expect(renamed.body.data.updateFolder.folderPath).toMatch(/\/leaf2$/);
    expect((await A.gql('mutation ($id: UUID!) { deleteFolder(id: $id) }', { id })).body.data.deleteFolder).toBe(true);
    const refused = await A.as(plain.token).gql('mutation { createFolder(input: { name: "nope" }) { id } }');
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
