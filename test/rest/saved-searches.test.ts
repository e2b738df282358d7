/**
 * Saved searches (client-compatibility.md: the Node client reads `GET savedsearches?includeDefaults=true`
 * as an array whose records carry `asid` (and `id`, which its tests read), then `GET savedSearchIndexFields?savedSearchId=` and
 * `GET savedsearchdocuments/{asid}?q=`): keeping them, who sees which, and running them.
 */
import { type Api, expectAsUnknown, expectEnvelope, expectError, q, uniq, UNKNOWN_ID, whileHeld, ZERO_GUID } from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

let U: Api;

setUpTwoTenants();
beforeAll(async () => {
  U = A.as(plain.token);
});

type Search = Record<string, unknown> & { asid: string; name: string };
const names = (r: { body: { data: { name: string }[] } }) => r.body.data.map((d) => d.name);

/** A top folder with a child, and documents named `<tag>-...` in each and in another folder. */
async function library(tag: string) {
  const top = (await A.post('/folders', { name: uniq('Search') })).body.data;
  const child = (await A.post(`/folders/${top.id}`, { name: 'Child' })).body.data;
  const other = (await A.post('/folders', { name: uniq('Other') })).body.data;
  for (const [folder, n] of [[top, 'a-top'], [child, 'b-child'], [other, 'c-other'], [top, 'x-top']] as const) {
    expect((await A.post('/documents', { folderId: folder.id, name: `${tag}-${n}` })).status).toBe(200);
  }
  return { top, child, other };
}

describe('saved searches', () => {
  test('a folderPath is read as the folder routes read it: no leading slash, a trailing one or doubled ones; `/` is every folder', async () => {
    const { top, child } = await library(uniq('Paths'));
    const bare = (top.folderPath as string).slice(1);
    for (const [sent, folderId] of [
      [bare, top.id],
      [`${top.folderPath}/`, top.id],
      [`/${bare}//Child`, child.id],
      [` ${bare.toUpperCase()}/child `, child.id],
      ['/', ZERO_GUID],
    ] as const) {
      const made = await A.post('/savedsearches', { name: uniq('Scoped'), folderPath: sent });
      expect([sent, made.status, made.body.data?.folderId]).toEqual([sent, 200, folderId]);
    }
  });

  test('POST savedsearches, then the Node client\'s three reads: the list (with asid), its index fields, its documents narrowed by q', async () => {
    const tag = uniq('Find');
    const { top } = await library(tag);
    const field = (await A.post('/indexfields', { label: uniq('Kind'), fieldType: 1 })).body.data;
    await A.put(`/indexfields/${field.id}/folders/${top.id}`);
    const made = await A.post('/savedsearches', { name: uniq('Mine'), q: `name like '${tag}%'`, folderPath: top.folderPath });
    expectEnvelope(made, 'POST', A.url('/savedsearches'));
    const s = made.body.data as Search;
    expect(s).toMatchObject({ dataType: 'SavedSearch', href: `~/savedsearches/${s.asid}`, q: `name like '${tag}%'`, folderId: top.id, folderPath: top.folderPath, shared: false, ownerName: 'admin' });

    const list = await A.get('/savedsearches?includeDefaults=true');
    expectEnvelope(list, 'GET', A.url('/savedsearches?includeDefaults=true'));
    expect(list.body.data.find((x: Search) => x.asid === s.asid)).toEqual(s);
    expect((await A.get(`/savedsearches/${s.asid}`)).body.data).toEqual(s);
    // The client's tests pass on `data[0].id`: the same id.
    expect(s.id).toBe(s.asid);

    const fields = await A.get(`/savedSearchIndexFields?savedSearchId=${s.id}`);
    expectEnvelope(fields, 'GET', A.url(`/savedSearchIndexFields?savedSearchId=${s.id}`));
    expect(fields.body.data.map((f: { id: string }) => f.id)).toEqual([field.id]);

    // The folder and every folder under it; nothing from elsewhere; the caller's q narrows it.
    const docs = await A.get(`/savedsearchdocuments/${s.id}?q=`);
    expectEnvelope(docs, 'GET', A.url(`/savedsearchdocuments/${s.id}?q=`));
    expect(names(docs)).toEqual([`${tag}-a-top`, `${tag}-b-child`, `${tag}-x-top`]);
    expect(docs.body.pagination.totalRecords).toBe(3);
    expect(names(await A.get(`/savedsearchdocuments/${s.asid}?${q("name like '%top'")}&limit=1&offset=1`))).toEqual([`${tag}-x-top`]);
  });

  test('without a folder it searches every folder; PUT changes what is sent; DELETE removes it', async () => {
    const tag = uniq('All');
    await library(tag);
    const s = (await A.post('/savedsearches', { name: uniq('Everywhere'), q: `name like '${tag}%'` })).body.data as Search;
    expect(s.folderId).toBe(ZERO_GUID);
    expect(names(await A.get(`/savedsearchdocuments/${s.asid}`))).toHaveLength(4);
    const changed = await A.put(`/savedsearches/${s.asid}`, { q: `name like '${tag}-c%'`, description: 'only c' });
    expect(changed.body.data).toMatchObject({ q: `name like '${tag}-c%'`, description: 'only c', name: s.name });
    expect(names(await A.get(`/savedsearchdocuments/${s.asid}`))).toEqual([`${tag}-c-other`]);
    // Every index field definition when it has no folder.
    expect((await A.get(`/savedSearchIndexFields?savedSearchId=${s.asid}`)).body.pagination.totalRecords).toBe((await A.get('/indexfields?limit=1')).body.pagination.totalRecords);
    expect((await A.del(`/savedsearches/${s.asid}`)).status).toBe(200);
    expectError(await A.get(`/savedsearchdocuments/${s.asid}`), 404, /Saved search/);
  });

  test.each([
    ['POST savedsearches {folderId}', 'id', (_s: Search, f: { id: string; folderPath: string }) => A.post('/savedsearches', { name: uniq('Late'), folderId: f.id })],
    ['POST savedsearches {folderPath}', 'path', (_s: Search, f: { id: string; folderPath: string }) => A.post('/savedsearches', { name: uniq('Late'), folderPath: f.folderPath })],
    ['PUT savedsearches/{id} {folderId}', 'id', (s: Search, f: { id: string; folderPath: string }) => A.put(`/savedsearches/${s.asid}`, { folderId: f.id })],
    ['PUT savedsearches/{id} {folderPath}', 'path', (s: Search, f: { id: string; folderPath: string }) => A.put(`/savedsearches/${s.asid}`, { folderPath: f.folderPath })],
  ])('%s racing a delete of the folder, committed meanwhile: the 404 of an unknown folder, not the foreign key\'s; nothing changed', async (_, by, send) => {
    const s = (await A.post('/savedsearches', { name: uniq('Kept') })).body.data as Search;
    const before = (await A.get('/savedsearches?limit=1')).body.pagination.totalRecords;
    const f = (await A.post('/folders', { folderpath: `/${uniq('Doomed')}` })).body.data as { id: string; folderPath: string };
    // The delete, committed while the write waits for the folder's row.
    const other = { text: 'delete from folder where tenant_id = $1 and id = $2', values: [A.t.tenantId, f.id] };
    const r = await whileHeld(h, other, () => send(s, f));
    expectError(r, 404, by === 'id' ? `Folder '${f.id}' was not found.` : /^Folder '.+' was not found\.$/);
    if (by === 'id') expectAsUnknown(r, await send(s, { id: UNKNOWN_ID, folderPath: '' }), f.id);
    else expect(r.body.meta.errors).toEqual((await send(s, f)).body.meta.errors);
    expect((await A.get(`/savedsearches/${s.asid}`)).body.data).toEqual(s);
    expect((await A.get('/savedsearches?limit=1')).body.pagination.totalRecords).toBe(before);
  });

  test('refusals: a bad q names the field, a missing or long name, a taken name, a folder not found, both folder keys; nothing changes', async () => {
    const taken = (await A.post('/savedsearches', { name: uniq('Taken') })).body.data as Search;
    const before = (await A.get('/savedsearches?limit=1')).body.pagination.totalRecords;
    expectError(await A.post('/savedsearches', { name: uniq('Bad'), q: 'nosuch eq 1' }), 400, /Invalid q: unknown field 'nosuch'/);
    expectError(await A.post('/savedsearches', { name: uniq('Bad'), q: "name eq 'x" }), 400, /Invalid q/);
    expectError(await A.post('/savedsearches', { q: '' }), 400, "The mandatory field 'name' is missing.");
    expectError(await A.post('/savedsearches', { name: ' ', q: '' }), 400, "The field 'name' must not be blank.");
    expectError(await A.post('/savedsearches', { name: 'n'.repeat(257) }), 400, /longer than 256/);
    expectError(await A.post('/savedsearches', { name: uniq('Long'), q: `name eq '${'x'.repeat(4000)}'` }), 400, /'q' is longer than 4000/);
    expectError(await A.post('/savedsearches', { name: taken.name.toUpperCase() }), 409, /already exists/);
    expectError(await A.post('/savedsearches', { name: uniq('Nowhere'), folderPath: '/no/such/folder' }), 404, /Folder/);
    expectError(await A.post('/savedsearches', { name: uniq('Nowhere'), folderId: UNKNOWN_ID }), 404, /Folder/);
    expectError(await A.post('/savedsearches', { name: uniq('Both'), folderId: UNKNOWN_ID, folderPath: '/x' }), 400, /not both/);
    expectError(await A.put(`/savedsearches/${taken.asid}`, {}), 400, /at least one/);
    expectError(await A.put(`/savedsearches/${taken.asid}`, { q: 'nosuch eq 1' }), 400, /Invalid q/);
    expectError(await A.get(`/savedsearchdocuments/${UNKNOWN_ID}`), 404);
    expectError(await A.get('/savedSearchIndexFields'), 400, /savedSearchId/);
    expect((await A.get('/savedsearches?limit=1')).body.pagination.totalRecords).toBe(before);
    expect((await A.get(`/savedsearches/${taken.asid}`)).body.data).toEqual(taken);
  });

  test('two creates of one name by one owner at once: one search; two owners may share a name', async () => {
    const name = uniq('Race');
    const replies = await Promise.all(Array.from({ length: 3 }, () => A.post('/savedsearches', { name })));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect((await U.post('/savedsearches', { name })).status).toBe(200);
    expect((await A.get(`/savedsearches?${q(`name eq '${name}'`)}`)).body.data).toHaveLength(2);
  });

  test('two renames of one owner\'s searches to one name at once, 20 rounds: one wins, the other a 409; one search of that name', async () => {
    for (let round = 0; round < 20; round++) {
      const name = uniq('Same');
      const [a, b] = [(await A.post('/savedsearches', { name: uniq('One') })).body.data, (await A.post('/savedsearches', { name: uniq('Two') })).body.data];
      const replies = await Promise.all([a, b].map((x) => A.put(`/savedsearches/${x.asid}`, { name })));
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
      expectError(replies.find((r) => r.status === 409)!, 409, `A saved search of its owner's named '${name}' already exists.`);
      expect((await A.get(`/savedsearches?${q(`name eq '${name}'`)}`)).body.data).toHaveLength(1);
    }
  });

  test('a delete that waits for another delete of the search finds it gone: a 404, not a second 200', async () => {
    const s = (await A.post('/savedsearches', { name: uniq('Gone') })).body.data;
    // The other delete, committed while this one waits for the search's row.
    const other = { text: 'delete from saved_search where tenant_id = $1 and id = $2', values: [A.t.tenantId, s.asid] };
    expectError(await whileHeld(h, other, () => A.del(`/savedsearches/${s.asid}`)), 404, /was not found/);
  });
});

describe('who sees which', () => {
  test('a private search is its owner\'s; a shared one everyone\'s, run with their own rights; only its owner or an administrator changes it', async () => {
    const tag = uniq('Shared');
    const { top, other } = await library(tag);
    // The ordinary user cannot see `other`'s documents.
    await A.put(`/folders/${other.id}/securitymembers/${(await A.get('/users/me')).body.data.id}`, { memberType: 0, securityRole: 1 });
    const mine = (await U.post('/savedsearches', { name: uniq('Private'), q: `name like '${tag}%'` })).body.data as Search;
    const shared = (await A.post('/savedsearches', { name: uniq('Shared'), q: `name like '${tag}%'`, shared: true })).body.data as Search;
    const hidden = (await A.post('/savedsearches', { name: uniq('Hidden') })).body.data as Search;

    const seen = (await U.get('/savedsearches')).body.data.map((s: Search) => s.asid);
    expect(seen).toEqual(expect.arrayContaining([mine.asid, shared.asid]));
    expect(seen).not.toContain(hidden.asid);
    expectError(await U.get(`/savedsearches/${hidden.asid}`), 404);
    expectError(await U.get(`/savedsearchdocuments/${hidden.asid}`), 404);
    // Administrators see every search; each reader gets only the documents they may see.
    expect((await A.get(`/savedsearches/${mine.asid}`)).body.data.asid).toBe(mine.asid);
    expect(names(await U.get(`/savedsearchdocuments/${shared.asid}`))).toEqual([`${tag}-a-top`, `${tag}-b-child`, `${tag}-x-top`]);
    expect(names(await A.get(`/savedsearchdocuments/${shared.asid}`))).toHaveLength(4);

    expectError(await U.put(`/savedsearches/${shared.asid}`, { name: 'taken over' }), 403, /creator or a tenant administrator/);
    expectError(await U.del(`/savedsearches/${shared.asid}`), 403);
    expectError(await U.del(`/savedsearches/${hidden.asid}`), 404);
    expect((await A.put(`/savedsearches/${mine.asid}`, { description: 'by admin' })).body.data.description).toBe('by admin');
    expect((await U.del(`/savedsearches/${mine.asid}`)).status).toBe(200);
    expectError(await B.get(`/savedsearches/${shared.asid}`), 404);
    expect((await B.get('/savedsearches')).body.data.map((s: Search) => s.asid)).not.toContain(shared.asid);
    // A search scoped to a folder goes with it.
    const scoped = (await A.post('/savedsearches', { name: uniq('Scoped'), folderId: top.id })).body.data as Search;
    expect((await A.del(`/folders/${top.id}`)).status).toBe(200);
    expectError(await A.get(`/savedsearches/${scoped.asid}`), 404);
  });

  test('a shared search on a folder the reader cannot see shows no folder and none of its index fields', async () => {
    const secret = (await A.post('/folders', { name: uniq('Secret') })).body.data;
    await A.put(`/folders/${secret.id}/securitymembers/${(await A.get('/users/me')).body.data.id}`, { memberType: 0, securityRole: 1 });
    const field = (await A.post('/indexfields', { label: uniq('Hush'), fieldType: 1 })).body.data;
    await A.put(`/indexfields/${field.id}/folders/${secret.id}`);
    const s = (await A.post('/savedsearches', { name: uniq('OnSecret'), folderId: secret.id, shared: true })).body.data as Search;
    expect(s).toMatchObject({ folderId: secret.id, folderPath: secret.folderPath });

    // As for a search without a folder: the all-zero GUID and ''.
    const seen = (await U.get('/savedsearches')).body.data.find((x: Search) => x.asid === s.asid);
    expect(seen).toMatchObject({ folderId: ZERO_GUID, folderPath: '' });
    expect((await U.get(`/savedsearches/${s.asid}`)).body.data).toMatchObject({ folderId: ZERO_GUID, folderPath: '' });
    const fields = await U.get(`/savedSearchIndexFields?savedSearchId=${s.asid}`);
    expect([fields.status, fields.body.data, fields.body.pagination?.totalRecords]).toEqual([200, [], 0]);
    expect((await A.get(`/savedSearchIndexFields?savedSearchId=${s.asid}`)).body.data.map((f: { id: string }) => f.id)).toEqual([field.id]);
  });

  test('GraphQL: create and run; statements per page stay the same as it grows', async () => {
    const tag = uniq('Gql');
    await library(tag);
    const made = await A.gql('mutation ($q: String) { createSavedSearch(input: { name: "gql", q: $q }) { asid q } }', { q: `name like '${tag}%'` });
    expect(made.body.errors).toBeUndefined();
    const asid = made.body.data.createSavedSearch.asid as string;
    const run = (limit: number) => A.gql(`{ savedSearchDocuments(savedSearchId: "${asid}", limit: ${limit}) { totalRecords items { name folderPath } } }`);
    const small = await h.countQueries(() => run(1));
    const big = await h.countQueries(() => run(4));
    expect(big.result.body.data.savedSearchDocuments.totalRecords).toBe(4);
    expect(big.result.body.data.savedSearchDocuments.items.map((d: { name: string }) => d.name)).toEqual([`${tag}-a-top`, `${tag}-b-child`, `${tag}-c-other`, `${tag}-x-top`]);
    expect(big.statements.length).toBe(small.statements.length);
  });
});
