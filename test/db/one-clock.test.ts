/**
 * One clock for every persisted timestamp, the database's (docs/decisions.md, "Data integrity and
 * transactions"): rows the ORM writes and rows SQL writes are dated alike, by `now()`, so a
 * record made and changed in one request never shows its modifyDate before its createDate, what a
 * write answers is what a later GET answers, and a process whose clock is off dates nothing by it.
 */
import { jest } from '@jest/globals';
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

/** The database's clock now, as the API writes a date (UTC, milliseconds cut). */
async function databaseNow(): Promise<string> {
  const r = await h.services.reads.query(`select to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') as now`);
  return r.rows[0].now as string;
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

test('the database\'s clock, not the process\'s: with the process\'s clock years behind, what is written is dated by the database', async () => {
  const before = await databaseNow();
  const answered: Record<string, string> = {};
  let documentId = '';
  // Only Date is faked: timers, ticks and I/O run as ever.
  jest.useFakeTimers({
    now: new Date('2001-02-03T04:05:06.789Z'),
    doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
  });
  try {
    expect(new Date().getUTCFullYear()).toBe(2001);
    // A document: made through the ORM, changed by SQL.
    const doc = (await A.post('/documents', undefined, await multipart({ folderId: folder.id, name: uniq('Late') }, 'x', 'x.txt'))).body.data;
    documentId = doc.documentId;
    Object.assign(answered, { docCreated: doc.createDate, docModified: doc.modifyDate });
    // A document type: made and changed through the ORM (its insert, then its update).
    const type = (await A.post('/documenttypes', { documentTypeName: uniq('Type') })).body.data;
    const changed = (await A.put(`/documenttypes/${type.id}`, { description: 'changed' })).body.data;
    Object.assign(answered, { typeCreated: type.createDate, typeModified: type.modifyDate, typeChanged: changed.modifyDate });
    expect(changed.createDate).toBe(type.createDate);
    // A user who must change the password: its passwordExpires is now.
    const userid = uniq('late');
    const user = await A.post(`/sites/${A.t.homeSiteId}/users`, { userid, firstName: 'L', lastName: 'Ate', emailaddress: `${userid}@x.test`, password: `pw-${uniq('x')}`, mustChangePassword: true });
    expect([user.status, user.text]).toEqual([200, user.text]);
    answered.passwordExpires = user.body.data.passwordExpires;
    // A scheduled process sent without its next run date: it runs from when it is made.
    const script = await A.gql('mutation ($input: ScriptInput!) { createScript(input: $input) { id } }', { input: { name: uniq('job'), source: 'module.exports.main = () => {};' } });
    expect(script.body.errors).toBeUndefined();
    const proc = await A.gql('mutation ($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { createDate nextRunDate } }', {
      input: { name: uniq('due'), script: script.body.data.createScript.id, intervalMinutes: 60 },
    });
    expect(proc.body.errors).toBeUndefined();
    const { createDate, nextRunDate } = proc.body.data.createScheduledProcess;
    expect(nextRunDate).toBe(createDate);
    Object.assign(answered, { processCreated: createDate, nextRun: nextRunDate });
  } finally {
    jest.useRealTimers();
  }
  const after = await databaseNow();
  expect(Object.keys(answered)).toHaveLength(8);
  // Every date between two readings of the database's clock (text compares as time here).
  expect(Object.entries(answered).filter(([, at]) => !(at >= before && at <= after))).toEqual([]);
  // What was answered is what a read answers later.
  const got = (await A.get(`/documents/${documentId}`)).body.data;
  expect([got.createDate, got.modifyDate]).toEqual([answered.docCreated, answered.docModified]);
});
