/**
 * Generated from the route table and the definitions: every POST and PUT answering records of a
 * table that keeps who made its rows (`created_by_id`, and `modified_by_id` where it has one)
 * records its caller there. Called by a second administrator (the first made every record of
 * test/rest/route-fixture.ts), each row the call made names the caller as its maker and changer,
 * and each record it answers that it changed names the caller as its changer, with a new modified
 * date, and keeps its maker. Before each call the tenant's rows are put back to the caller's own
 * change of an hour back, so a write that dates a change only through a new changer fails; a write
 * that changed records is called again on rows put back to the first administrator's change, so
 * one that changes a row without stamping it fails whatever write stamped that row before it
 * (test/rest/authorship.ts). Rows changed beside the answer (a renamed folder's
 * descendants' paths) are derived, not the caller's edit. A body whose input takes a file is sent
 * multipart with one, as the clients send it (the designer's XML for an import). A new route row
 * or resource is covered with no new test code.
 */
import type { SofaRoute } from '../../src/rest/routes.js';
import type { Reply } from '../harness.js';
import { auditedTables, authorshipFaults, recordsOf, secondAdministrator, type Outcome } from './authorship.js';
import { uniq } from './support.js';
import { A, bodyOf, call, create, fieldOf, h, label, pathOf, send, setUpRouteFixture, tenantRoutes } from './route-fixture.js';

setUpRouteFixture('authorship');
const author = secondAdministrator();

/**
 * Writes that put a record in a state the fixture's is in already (a field its folder has, a
 * document in its own folder, a checked-in document checked in), or their own first call put it in
 * (a template released), so their call alone would change nothing: before each call, the fixture's
 * administrator puts that record in another state, which the write then changes back.
 */
const UNDONE_FIRST: Record<string, (r: SofaRoute) => Promise<Reply>> = {
  // Its DELETE's path names the same field and folder.
  'PUT /indexfields/:id/folders/:folderId': () => A.del(pathOf(tenantRoutes.find((r) => r.field === 'Mutation.removeFolderIndexField')!)),
  'PUT /documents/:documentId/move': async (r) => A.put(pathOf(r), { folderId: (await A.post('/folders', { name: uniq('elsewhere') })).body.data.id }),
  'PUT /documents/:documentId/status': (r) => A.put(pathOf(r), { checkIn: 1 }),
  // A new draft to release: the import's path names the same template.
  'PUT /formtemplates/:id/release': () => call(A, tenantRoutes.find((r) => r.field === 'Mutation.importFormTemplate')!),
};

/** The write `r` as the author: its records, or why it failed. A create learns its body's mandatory keys as the fixture's do. */
async function write(r: SofaRoute): Promise<Outcome> {
  if (r.method === 'POST' && r.body) return create(r, author().api).then((data) => ({ data }), (e: Error) => ({ refusal: e.message }));
  // Values of its own where values are unique (names, labels), as create's are.
  const body = bodyOf(r) && Object.fromEntries(Object.entries(bodyOf(r)!).map(([k, v]) => [k, v === 'conformance' ? uniq('conformance') : v]));
  const reply = await send(author().api, r, body);
  return reply.status === (r.status ?? 200) ? { data: reply.body.data } : { refusal: `${label(r)} answered ${reply.status} ${reply.text}` };
}

// Its time grows with the route table's write rows, past jest's 30 s default on a loaded host: a hang guard, not a timing.
test('every write answering records that keep their authors records its caller: maker of what it made, changer of what it changed', async () => {
  const audited = await auditedTables();
  const recordsOfRow = (r: SofaRoute) => recordsOf(fieldOf(h.app.schema, r));
  const writes = tenantRoutes.filter((r) => (r.method === 'POST' || r.method === 'PUT') && audited.has(recordsOfRow(r)?.table ?? ''));
  const fix = {
    refused: 'give its body what it needs in test/rest/route-fixture.ts',
    unchanged: 'its body needs more, or its record another state first (UNDONE_FIRST)',
  };
  const faults: string[] = [];
  for (const r of writes) {
    const undo = UNDONE_FIRST[label(r)];
    const before = undo && (async () => expect([label(r), (await undo(r)).status]).toEqual([label(r), 200]));
    faults.push(...(await authorshipFaults({ at: label(r), def: recordsOfRow(r)!, call: () => write(r), before, everyChanged: r.shape === 'none' }, audited, author().id, fix)));
  }
  expect(faults).toEqual([]);
  expect(writes.length).toBeGreaterThan(25);
  // One whose route no longer answers such records leaves the list.
  expect(Object.keys(UNDONE_FIRST).filter((l) => !writes.some((w) => label(w) === l))).toEqual([]);
}, 180_000);
