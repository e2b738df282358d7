/**
 * Alerts (client-compatibility.md: the Node client subscribes with `POST folders/{id}/alerts/{eventId}?usId=`
 * and `POST documents/{id}/alerts/{eventId}?usId=`, unsubscribes with DELETE, and reads 200):
 * the events, subscriptions and who may make them, and the e-mail each event queues, in the
 * writing transaction, down to what a real SMTP server receives. The database is this file's
 * own: every e-mail batch claims every tenant's messages, and no other file's may take its alerts.
 */
import { ALERT_EVENTS } from '../../src/alert-events.js';
import { sendDueEmails, smtpTransport } from '../../src/jobs/email-sender.js';
import { Harness } from '../harness.js';
import { ownDatabase, type OwnDatabase } from '../own-database.js';
import { startSmtp, type TestSmtp } from '../smtp-server.js';
import { type Api, adminApi, createUser, expectAsUnknown, expectEnvelope, expectError, multipart, ordinaryUser, q, uniq, UNKNOWN_ID, whileHeld, ZERO_GUID, type UserFixture } from './support.js';

const E = Object.fromEntries(Object.entries(ALERT_EVENTS).map(([k, e]) => [k, e.id])) as Record<keyof typeof ALERT_EVENTS, string>;
const KEYS = ['href', 'dataType', 'id', 'eventId', 'eventName', 'folderId', 'documentId', 'userId', 'userName', 'createDate', 'createById', 'createBy'];

let db: OwnDatabase;
let smtp: TestSmtp;
let h: Harness;
let A: Api;
let B: Api;
let plain: UserFixture & { token: string };
let U: Api;
/** Users with e-mail addresses who watch what the administrator does. */
let watcher: UserFixture;

beforeAll(async () => {
  db = await ownDatabase('alerts');
  smtp = await startSmtp();
  h = await Harness.start({ databaseUrl: db.url, smtpUrl: smtp.url, emailFrom: 'alerts@quire.test' });
  [A, B] = [await adminApi(h), await adminApi(h)];
  plain = await ordinaryUser(A);
  U = A.as(plain.token);
  watcher = await createUser(A);
});
afterAll(async () => {
  await h.stop();
  await smtp.close();
  await db.drop();
});

const newFolder = async () => (await A.post('/folders', { name: uniq('Alerts') })).body.data as { id: string; folderPath: string };
const newDocument = async (folderId: string, name = uniq('doc')) => (await A.post('/documents', { folderId, name })).body.data as { id: string; documentId: string; name: string };

/** What tenant A queued for `to` about documents named `name`, oldest first. */
async function queued(to: string, name: string): Promise<{ subject: string; body: string }[]> {
  const r = await h.services.reads.query(
    `select subject, body from email_message where tenant_id = $1 and recipients = $2 and subject like '%: ' || $3 order by created_at, id`,
    [A.t.tenantId, to, name],
  );
  return r.rows;
}
const subjectsFor = async (u: UserFixture, name: string) => (await queued(`${u.userid}@example.test`, name)).map((m) => m.subject);

describe('events', () => {
  test('GET alertevents: the fixed events, with what each applies to', async () => {
    const r = await A.get('/alertevents');
    expectEnvelope(r, 'GET', A.url('/alertevents'));
    const events = Object.values(ALERT_EVENTS).map((e) => ({ href: `~/alertevents/${e.id}`, dataType: 'AlertEvent', ...e, appliesTo: [...e.appliesTo] }));
    expect(r.body.data).toEqual(events);
    expect(Object.keys(r.body.data[0]).slice(0, 2)).toEqual(['href', 'dataType']);
    expect((await A.gql('{ alertEvents { id name } }')).body.data.alertEvents).toHaveLength(5);
  });

  test('GET alertevents/{id}: the event its href names (any case); an id no event has is a 404', async () => {
    const e = ALERT_EVENTS.documentRevised;
    const r = await A.get(`/alertevents/${e.id.toUpperCase()}`);
    expectEnvelope(r, 'GET', A.url(`/alertevents/${e.id.toUpperCase()}`));
    expect(r.body.data).toEqual({ href: `~/alertevents/${e.id}`, dataType: 'AlertEvent', ...e, appliesTo: [...e.appliesTo] });
    expectError(await A.get(`/alertevents/${UNKNOWN_ID}`), 404, /Alert event .* was not found/);
    expectError(await A.get('/alertevents/not-a-guid'), 400);
    // It takes no q: refused, not ignored.
    expectError(await A.get(`/alertevents/${e.id}?q=${encodeURIComponent("name eq 'x'")}`), 400, "GET alertevents/{eventId} takes no q: it filters nothing, so leave the query parameter 'q' out.");
  });

  test('GET alertevents and alertevents/{id} take fields= (any case) as every record does: href and dataType stay', async () => {
    const r = await U.get('/alertevents?fields=Name,APPLIESTO');
    expect(r.body.data).toEqual(Object.values(ALERT_EVENTS).map((e) => ({ href: `~/alertevents/${e.id}`, dataType: 'AlertEvent', name: e.name, appliesTo: [...e.appliesTo] })));
    const e = ALERT_EVENTS.documentAdded;
    expect((await U.get(`/alertevents/${e.id}?fields=id`)).body.data).toEqual({ href: `~/alertevents/${e.id}`, dataType: 'AlertEvent', id: e.id });
  });

  test('GET alertevents?q= filters them over their fields as other lists do (GraphQL too); an empty q is none; a bad q is a 400 saying what is wrong', async () => {
    const ids = async (query: string) => (await U.get(`/alertevents?${q(query)}`)).body.data.map((e: { id: string }) => e.id);
    expect(await ids("name like 'Document checked%'")).toEqual([E.documentCheckedOut, E.documentCheckedIn]);
    expect(await ids(`[id] eq '${E.documentDeleted.toUpperCase()}' or name eq 'Document added'`)).toEqual([E.documentAdded, E.documentDeleted]);
    expect(await ids("description like '%in the folder%'")).toEqual([E.documentAdded]);
    expect(await ids("name eq 'nothing'")).toEqual([]);
    expect(await ids('')).toHaveLength(5);
    expect((await U.get(`/alertevents?${q("name eq 'Document revised'")}&fields=name`)).body.data).toEqual([{ href: `~/alertevents/${E.documentRevised}`, dataType: 'AlertEvent', name: 'Document revised' }]);
    const unknown = await U.get(`/alertevents?${q("appliesTo eq 'folder'")}`);
    expectError(unknown, 400, "unknown field 'appliesTo'");
    expect(unknown.body.meta.errors[0].developerMessage).toContain('Known fields: id, name, description.');
    expectError(await U.get(`/alertevents?${q("name eq")}`), 400);
    const g = await U.gql('{ alertEvents(q: "name like \'%deleted\'") { id } }');
    expect(g.body.data.alertEvents).toEqual([{ id: E.documentDeleted }]);
  });

  test('/meta describes AlertEvent as it describes every record: /meta/AlertEvent (any case) and /meta?expand=true', async () => {
    const described = { dataType: 'AlertEvent', availableFields: ['id', 'name', 'description', 'appliesTo'], defaultFields: ['id', 'name', 'description', 'appliesTo'], idField: 'id' };
    const r = await U.get('/meta/alertevent');
    expectEnvelope(r, 'GET', U.url('/meta/alertevent'));
    expect(r.body.data).toEqual(described);
    expect((await U.get('/meta?expand=true')).body.data).toContainEqual(described);
    // What it describes is what the events carry.
    const [event] = (await U.get('/alertevents')).body.data;
    expect(Object.keys(event)).toEqual(['href', 'dataType', ...described.availableFields]);
  });
});

describe('subscriptions', () => {
  test('as the Node client calls them: POST folders/{id}/alerts/{eventId}?usId= answers 200 and the subscription; again, the same one; DELETE ends it', async () => {
    const folder = await newFolder();
    const path = `/folders/${folder.id}/alerts/${E.documentAdded}`;
    const r = await A.post(`${path}?usId=${watcher.id}`);
    expectEnvelope(r, 'POST', A.url(`${path}?usId=${watcher.id}`));
    const sub = r.body.data;
    expect(Object.keys(sub).sort()).toEqual([...KEYS].sort());
    expect(sub).toMatchObject({
      href: `~/alerts/${sub.id}`, dataType: 'AlertSubscription', eventId: E.documentAdded, eventName: 'Document added',
      folderId: folder.id, documentId: ZERO_GUID, userId: watcher.id, userName: watcher.name, createBy: 'admin',
    });
    // By user name, any case: the same subscription.
    expect((await A.post(`${path}?usId=${watcher.userid.toUpperCase()}`)).body.data.id).toBe(sub.id);
    expect((await A.get(`/folders/${folder.id}/alerts`)).body.data.map((s: { id: string }) => s.id)).toEqual([sub.id]);
    expect((await A.get(`/alerts/${sub.id}`)).body.data).toEqual(sub);

    const gone = await A.del(`${path}?usId=${watcher.userid}`);
    expectEnvelope(gone, 'DELETE', A.url(`${path}?usId=${watcher.userid}`));
    expectError(await A.del(`${path}?usId=${watcher.userid}`), 404, /has no 'Document added' alerts on folder/);
    expectError(await A.get(`/alerts/${sub.id}`), 404);
  });

  test('by the ids the Node clients ship in constants.alertEventIds, upper case as they send them (no body, usId in the query): the events they name; one of theirs not kept here is a 404', async () => {
    const folder = await newFolder();
    const doc = await newDocument(folder.id);
    const subscribe = async (path: string) => {
      const r = await A.post(`${path}?usId=${watcher.id}`);
      expectEnvelope(r, 'POST', A.url(`${path}?usId=${watcher.id}`));
      return r.body.data.eventName;
    };
    expect(await subscribe(`/folders/${folder.id}/alerts/3702CFBF-555C-4032-BFB2-E25829788BAC`)).toBe('Document added');
    expect(await subscribe(`/documents/${doc.documentId}/alerts/D47804AB-AEE9-4002-BAB5-9F1AC0366076`)).toBe('Document checked in');
    expect(await subscribe(`/documents/${doc.documentId}/alerts/4BBA55C1-7AF6-48FF-BFBE-EC7A58EB7F01`)).toBe('Document checked out');
    // documentViewed: no event here.
    expectError(await A.post(`/documents/${doc.documentId}/alerts/140B9E97-8D93-48D0-837B-AB4FD419B6D6?usId=${watcher.id}`), 404, /No alert event has the id/);
  });

  test('on a document, by its id or a revision id; without usId the caller subscribes themself', async () => {
    const folder = await newFolder();
    const doc = await newDocument(folder.id);
    const mine = (await U.post(`/documents/${doc.id}/alerts/${E.documentCheckedIn}`)).body.data;
    expect(mine).toMatchObject({ documentId: doc.documentId, folderId: ZERO_GUID, userId: plain.id, eventName: 'Document checked in' });
    expect((await U.post(`/documents/${doc.documentId}/alerts/${E.documentCheckedIn}`)).body.data.id).toBe(mine.id);
    expect((await A.get(`/documents/${doc.documentId}/alerts`)).body.data.map((s: { id: string }) => s.id)).toEqual([mine.id]);
    expect((await U.del(`/documents/${doc.id}/alerts/${E.documentCheckedIn}`)).status).toBe(200);
  });

  test('usId in a body counts as in the query string (JSON, form or multipart); the two must agree; a malformed body is a 400 and subscribes nobody', async () => {
    const folder = await newFolder();
    const path = `/folders/${folder.id}/alerts/${E.documentAdded}`;
    // Thrown away unread before: usId left out means the caller, so the administrator was subscribed.
    const sub = (await A.post(path, { usId: watcher.id })).body.data;
    expect(sub.userId).toBe(watcher.id);
    const form = await A.post(path, undefined, { raw: `UsId=${watcher.userid}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.body.data.id).toBe(sub.id);
    const multipart = `--b0\r\nContent-Disposition: form-data; name="usId"\r\n\r\n${watcher.id}\r\n--b0--\r\n`;
    expect((await A.post(path, undefined, { raw: multipart, headers: { 'content-type': 'multipart/form-data; boundary=b0' } })).body.data.id).toBe(sub.id);
    expectError(await A.post(`${path}?usId=${watcher.id}`, { usId: 'admin' }), 400, "The query string and the request body give 'usId' different values");
    expectError(await A.post(path, undefined, { raw: '{"usId":', headers: { 'content-type': 'application/json' } }), 400, 'not valid JSON');
    // A key the route does not know is ignored, as on every route.
    expect((await A.post(path, { usId: watcher.id, note: 'x' })).body.data.id).toBe(sub.id);
    expect((await A.get(`/folders/${folder.id}/alerts`)).body.data.map((s: { userId: string }) => s.userId)).toEqual([watcher.id]);
    // An empty body is none, whatever its Content-Type says: the caller subscribes themself.
    for (const type of ['application/json', 'multipart/form-data; boundary=b0']) {
      const own = await A.post(path, undefined, { raw: '', headers: { 'content-type': type, 'content-length': '0' } });
      expect([type, own.status, own.body.data?.userId]).toEqual([type, 200, A.t.adminId]);
    }
    expect((await A.del(path)).status).toBe(200);
    // Sent in the body, it ends the subscription it names, not the caller's.
    expect((await A.request('DELETE', path, { body: { usId: watcher.id } })).status).toBe(200);
    expect((await A.get(`/folders/${folder.id}/alerts`)).body.data).toEqual([]);
  });

  test('refusals: an unknown event, one that applies to folders only, a bad id, an unknown folder, document or user; nothing is made', async () => {
    const folder = await newFolder();
    const doc = await newDocument(folder.id);
    expectError(await A.post(`/folders/${folder.id}/alerts/${UNKNOWN_ID}`), 404, /No alert event has the id/);
    expectError(await A.post(`/documents/${doc.id}/alerts/${E.documentAdded}`), 400, /applies to folders only/);
    expectError(await A.post(`/folders/${folder.id}/alerts/not-a-guid`), 400, /must be a GUID/);
    expectError(await A.post(`/folders/${UNKNOWN_ID}/alerts/${E.documentAdded}`), 404, /Folder/);
    expectError(await A.post(`/documents/${UNKNOWN_ID}/alerts/${E.documentRevised}`), 404, /Document/);
    expectError(await A.post(`/folders/${folder.id}/alerts/${E.documentAdded}?usId=nobody-${uniq('x')}`), 404, /User 'nobody/);
    expect((await A.get(`/folders/${folder.id}/alerts`)).body.data).toEqual([]);
    expect((await A.get(`/documents/${doc.id}/alerts`)).body.data).toEqual([]);
  });

  test('a deleted document is not subscribed to (409, nothing made); its subscriptions are still read and ended', async () => {
    const folder = await newFolder();
    const doc = await newDocument(folder.id);
    const kept = (await A.post(`/documents/${doc.id}/alerts/${E.documentRevised}?usId=${watcher.id}`)).body.data;
    expect((await A.del(`/documents/${doc.documentId}`)).status).toBe(200);
    expectError(await A.post(`/documents/${doc.documentId}/alerts/${E.documentCheckedIn}?usId=${watcher.id}`), 409, /is deleted/);
    expectError(await U.post(`/documents/${doc.id}/alerts/${E.documentRevised}`), 409, /is deleted/);
    expect((await A.get(`/documents/${doc.documentId}/alerts`)).body.data.map((s: { id: string }) => s.id)).toEqual([kept.id]);
    expect((await A.del(`/documents/${doc.documentId}/alerts/${E.documentRevised}?usId=${watcher.id}`)).status).toBe(200);
  });

  test('a folder delete that commits while a subscription to the folder waits for it: the 404 of an unknown folder, not the foreign key\'s', async () => {
    const folder = await newFolder();
    // The delete, committed while the subscription waits for the folder's row.
    const deletion = { text: 'delete from folder where tenant_id = $1 and id = $2', values: [A.t.tenantId, folder.id] };
    expectError(await whileHeld(h, deletion, () => A.post(`/folders/${folder.id}/alerts/${E.documentAdded}?usId=${watcher.id}`)), 404, `Folder '${folder.id}' was not found.`);
  });

  type Target = { folder: string; doc: string };
  test.each([
    ['POST folders/{id}/alerts/{eventId}?usId=<id>', 'id', false, (t: Target, us: string) => A.post(`/folders/${t.folder}/alerts/${E.documentAdded}?usId=${us}`)],
    ['POST documents/{id}/alerts/{eventId}?usId=<user name>', 'userid', false, (t: Target, us: string) => A.post(`/documents/${t.doc}/alerts/${E.documentRevised}?usId=${us}`)],
    ['DELETE folders/{id}/alerts/{eventId}?usId=<user name>', 'userid', true, (t: Target, us: string) => A.del(`/folders/${t.folder}/alerts/${E.documentAdded}?usId=${us}`)],
    ['DELETE documents/{id}/alerts/{eventId}?usId=<id>', 'id', true, (t: Target, us: string) => A.del(`/documents/${t.doc}/alerts/${E.documentRevised}?usId=${us}`)],
  ] as const)("%s racing a delete of the user usId names, committed meanwhile: the 404 of an unknown user, not the foreign key's nor 'has no alerts'; nothing written", async (_, by, subscribed, send) => {
    const folder = await newFolder();
    const t = { folder: folder.id, doc: (await newDocument(folder.id)).documentId };
    const u = await createUser(A);
    if (subscribed) {
      expect((await A.post(`/folders/${t.folder}/alerts/${E.documentAdded}?usId=${u.id}`)).status).toBe(200);
      expect((await A.post(`/documents/${t.doc}/alerts/${E.documentRevised}?usId=${u.id}`)).status).toBe(200);
    }
    const us = u[by];
    // The delete, committed while the write waits for the user's row.
    const deletion = { text: 'delete from app_user where tenant_id = $1 and id = $2', values: [A.t.tenantId, u.id] };
    const r = await whileHeld(h, deletion, () => send(t, us));
    expectError(r, 404, `User '${us}' was not found.`);
    // Now the user is gone: the same request names an unknown user.
    expectAsUnknown(r, await send(t, us), u.id);
    expect((await A.get(`/folders/${t.folder}/alerts`)).body.data).toEqual([]);
    expect((await A.get(`/documents/${t.doc}/alerts`)).body.data).toEqual([]);
  });

  test('a delete that commits while a subscription waits for the document is seen: a 409, no subscription', async () => {
    const folder = await newFolder();
    const doc = await newDocument(folder.id);
    // The delete, committed while the subscription waits for the document's row.
    const deletion = { text: 'update document set archive = 2 where tenant_id = $1 and id = $2', values: [A.t.tenantId, doc.documentId] };
    expectError(await whileHeld(h, deletion, () => A.post(`/documents/${doc.documentId}/alerts/${E.documentRevised}?usId=${watcher.id}`)), 409, /is deleted/);
    expect((await A.get(`/documents/${doc.documentId}/alerts`)).body.data).toEqual([]);
  });

  test('only an administrator subscribes someone else; nobody is subscribed to what they cannot see; other tenants find nothing', async () => {
    const folder = await newFolder();
    expectError(await U.post(`/folders/${folder.id}/alerts/${E.documentAdded}?usId=${watcher.id}`), 403, /Only an administrator/);
    const own = await U.post(`/folders/${folder.id}/alerts/${E.documentAdded}?usId=${plain.userid}`);
    expect(own.status).toBe(200);
    expectError(await U.del(`/folders/${folder.id}/alerts/${E.documentAdded}?usId=${watcher.id}`), 403);

    // A folder with members that do not include the watcher: hidden from them.
    const closed = await newFolder();
    await A.put(`/folders/${closed.id}/securitymembers/${plain.id}`, { memberType: 0, securityRole: 4 });
    expectError(await A.post(`/folders/${closed.id}/alerts/${E.documentAdded}?usId=${watcher.id}`), 409, /cannot see folder/);
    await A.put(`/folders/${closed.id}/securitymembers/${watcher.id}`, { memberType: 0, securityRole: 2 });
    expect((await A.post(`/folders/${closed.id}/alerts/${E.documentAdded}?usId=${watcher.id}`)).status).toBe(200);

    expectError(await B.post(`/folders/${folder.id}/alerts/${E.documentAdded}`), 404);
    expectError(await B.get(`/alerts/${own.body.data.id}`), 404);
    expect((await B.get('/alerts')).body.data.map((s: { id: string }) => s.id)).not.toContain(own.body.data.id);
  });

  test('a user reads and ends their own subscriptions only; an administrator, any', async () => {
    const folder = await newFolder();
    const mine = (await U.post(`/folders/${folder.id}/alerts/${E.documentDeleted}`)).body.data;
    const theirs = (await A.post(`/folders/${folder.id}/alerts/${E.documentDeleted}?usId=${watcher.id}`)).body.data;
    const seen = (await U.get(`/folders/${folder.id}/alerts`)).body.data.map((s: { id: string }) => s.id);
    expect(seen).toEqual([mine.id]);
    expect((await U.get('/alerts')).body.data.every((s: { userId: string }) => s.userId === plain.id)).toBe(true);
    expectError(await U.get(`/alerts/${theirs.id}`), 404);
    expectError(await U.del(`/alerts/${theirs.id}`), 404);
    expect((await A.get(`/folders/${folder.id}/alerts`)).body.data).toHaveLength(2);
    expect((await U.del(`/alerts/${mine.id}`)).status).toBe(200);
    expect((await A.del(`/alerts/${theirs.id}`)).status).toBe(200);
    expect((await A.get(`/folders/${folder.id}/alerts`)).body.data).toEqual([]);
  });

  test('one subscription deleted several times at once, on a folder or a document: one 200, the others the 404 of one already gone', async () => {
    const burst = async (id: string) => {
      const replies = await Promise.all(Array.from({ length: 5 }, () => A.del(`/alerts/${id}`)));
      expect(replies.map((r) => r.status).sort()).toEqual([200, 404, 404, 404, 404]);
      for (const r of replies.filter((x) => x.status === 404)) expectError(r, 404, `Alert subscription '${id}' was not found.`);
      expectError(await A.get(`/alerts/${id}`), 404);
    };
    // Several rounds: one alone may see the deletes run one after the other.
    for (let round = 0; round < 4; round++) {
      const folder = await newFolder();
      const doc = await newDocument(folder.id);
      const onFolder = (await A.post(`/folders/${folder.id}/alerts/${E.documentAdded}?usId=${watcher.id}`)).body.data;
      const onDoc = (await A.post(`/documents/${doc.id}/alerts/${E.documentRevised}?usId=${watcher.id}`)).body.data;
      await burst(onFolder.id);
      await burst(onDoc.id);
      expect((await A.get(`/folders/${folder.id}/alerts`)).body.data).toEqual([]);
      expect((await A.get(`/documents/${doc.documentId}/alerts`)).body.data).toEqual([]);
    }
  });

  test('three subscribes of one user to one event at once: one subscription; subscriptions go with their folder and their document', async () => {
    const folder = await newFolder();
    const replies = await Promise.all(Array.from({ length: 3 }, () => A.post(`/folders/${folder.id}/alerts/${E.documentRevised}?usId=${watcher.id}`)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(replies.map((r) => r.body.data.id)).size).toBe(1);
    const doc = await newDocument(folder.id);
    const onDoc = (await A.post(`/documents/${doc.id}/alerts/${E.documentRevised}?usId=${watcher.id}`)).body.data;
    expect((await A.del(`/folders/${folder.id}`)).status).toBe(200);
    expectError(await A.get(`/alerts/${replies[0].body.data.id}`), 404);
    expectError(await A.get(`/alerts/${onDoc.id}`), 404);
  });
});

describe('alert e-mail', () => {
  test('every event queues one message per subscriber, never to the one who acted', async () => {
    const folder = await newFolder();
    const elsewhere = await newFolder();
    for (const e of [E.documentAdded, E.documentRevised, E.documentCheckedOut, E.documentCheckedIn, E.documentDeleted]) {
      expect((await A.post(`/folders/${folder.id}/alerts/${e}?usId=${watcher.id}`)).status).toBe(200);
      expect((await A.post(`/folders/${folder.id}/alerts/${e}`)).status).toBe(200); // the administrator, who acts below
    }
    const name = uniq('Watched');
    const doc = await newDocument(folder.id, name);
    expect((await A.post('/files', undefined, await multipart({ documentId: doc.documentId }, 'bytes', 'a.txt'))).status).toBe(200);
    expect((await A.put(`/documents/${doc.id}/status`, { checkIn: 1 })).status).toBe(200);
    expect((await A.put(`/documents/${doc.id}/status`, { checkIn: 0 })).status).toBe(200);
    expect((await A.del(`/documents/${doc.documentId}`)).status).toBe(200);
    expect(await subjectsFor(watcher, name)).toEqual([
      `Document added: ${name}`, `Document revised: ${name}`, `Document checked out: ${name}`, `Document checked in: ${name}`, `Document deleted: ${name}`,
    ]);
    const [added] = await queued(`${watcher.userid}@example.test`, name);
    expect(added.body).toContain(`Folder: ${folder.folderPath}`);
    expect(added.body).toContain(`Document id: ${doc.documentId}`);
    expect(added.body).toMatch(/By: admin, \d{4}-/);
    expect(added.body).toMatch(/alerts on the folder .*\nTo stop them: DELETE alerts\/[0-9a-f-]{36}$/);

    // Moved in and copied in count as added; a folder's alerts are for its own documents only.
    const moved = uniq('Moved');
    const outside = await newDocument(elsewhere.id, moved);
    expect(await subjectsFor(watcher, moved)).toEqual([]);
    await A.put(`/documents/${outside.id}/move`, { folderId: folder.id });
    await A.post(`/documents/${outside.id}/copy`, { folderId: folder.id, name: `${moved}` });
    expect(await subjectsFor(watcher, moved)).toEqual([`Document added: ${moved}`, `Document added: ${moved}`]);
  });

  test('a move into the folder the document is already in changes nothing: 200, the document as it was, no "Document added"', async () => {
    const folder = await newFolder();
    const name = uniq('Stays');
    const doc = await newDocument(folder.id, name);
    await A.post(`/folders/${folder.id}/alerts/${E.documentAdded}?usId=${watcher.id}`);
    const before = (await A.get(`/documents/${doc.documentId}`)).body.data;
    const r = await A.put(`/documents/${doc.documentId}/move`, { folderId: folder.id.toUpperCase() });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(before);
    expect(await subjectsFor(watcher, name)).toEqual([]);
  });

  test('a document subscription and a folder one for the same event: one message; a user who can no longer see the folder gets none', async () => {
    const folder = await newFolder();
    const name = uniq('Once');
    const doc = await newDocument(folder.id, name);
    await A.post(`/folders/${folder.id}/alerts/${E.documentCheckedOut}?usId=${watcher.id}`);
    await A.post(`/documents/${doc.id}/alerts/${E.documentCheckedOut}?usId=${watcher.id}`);
    await A.post(`/folders/${folder.id}/alerts/${E.documentCheckedIn}?usId=${plain.id}`);
    await A.put(`/documents/${doc.id}/status`, { checkIn: 1 });
    expect(await subjectsFor(watcher, name)).toEqual([`Document checked out: ${name}`]);
    expect((await queued(`${watcher.userid}@example.test`, name))[0].body).toContain('alerts on this document.');

    // The folder now has members, the plain user not among them.
    await A.put(`/folders/${folder.id}/securitymembers/${watcher.id}`, { memberType: 0, securityRole: 2 });
    expectError(await U.get(`/folders/${folder.id}`), 404);
    await A.put(`/documents/${doc.id}/status`, { checkIn: 0 });
    expect(await subjectsFor(plain, name)).toEqual([]);
  });

  test('a write that is refused queues nothing; statements stay the same however many subscribe', async () => {
    const folder = await newFolder();
    const name = uniq('Refused');
    const doc = await newDocument(folder.id, name);
    await A.post(`/folders/${folder.id}/alerts/${E.documentRevised}?usId=${watcher.id}`);
    const bad = await A.post('/files', undefined, await multipart({ documentId: doc.documentId, indexFields: '[{"no such field": "x"}]' }, 'bytes', 'a.txt'));
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(await subjectsFor(watcher, name)).toEqual([]);

    const upload = async () => (await A.post('/files', undefined, await multipart({ documentId: doc.documentId }, 'bytes', 'b.txt'))).status;
    // The first file fills revision 1; the two measured make a revision each.
    expect(await upload()).toBe(200);
    const one = await h.countQueries(upload);
    for (const u of [plain, await createUser(A), await createUser(A)]) await A.post(`/folders/${folder.id}/alerts/${E.documentRevised}?usId=${u.id}`);
    const four = await h.countQueries(upload);
    expect([one.result, four.result]).toEqual([200, 200]);
    expect(four.statements.length).toBe(one.statements.length);
    expect(await subjectsFor(watcher, name)).toEqual(Array(3).fill(`Document revised: ${name}`));
    expect(await subjectsFor(plain, name)).toEqual([`Document revised: ${name}`]);
  });

  test('deleting a folder: "Document deleted" for each document under it not deleted yet, to the subscribers of the document and of its folder; statements the same however many', async () => {
    /** A folder with a subfolder holding `n` documents and one deleted already; the watcher subscribed to the subfolder, `plain` to the first document. */
    async function tree(n: number) {
      const top = await newFolder();
      const sub = (await A.post(`/folders/${top.id}`, { name: 'sub' })).body.data as { id: string };
      const name = uniq('Swept');
      const docs = [];
      for (let i = 0; i < n; i++) docs.push(await newDocument(sub.id, name));
      await A.post(`/folders/${sub.id}/alerts/${E.documentDeleted}?usId=${watcher.id}`);
      await A.post(`/documents/${docs[0].id}/alerts/${E.documentDeleted}?usId=${plain.id}`);
      const binned = await newDocument(sub.id, `${name}-binned`);
      expect((await A.del(`/documents/${binned.documentId}`)).status).toBe(200);
      return { top, name };
    }
    const one = await tree(1);
    const three = await tree(3);
    const [small, big] = [await h.countQueries(() => A.del(`/folders/${one.top.id}`)), await h.countQueries(() => A.del(`/folders/${three.top.id}`))];
    expect([small.result.status, big.result.status]).toEqual([200, 200]);
    expect(big.statements.length).toBe(small.statements.length);
    expect(await subjectsFor(watcher, three.name)).toEqual(Array(3).fill(`Document deleted: ${three.name}`));
    expect(await subjectsFor(plain, three.name)).toEqual([`Document deleted: ${three.name}`]);
    // The document deleted before told them then, and only then.
    expect(await subjectsFor(watcher, `${three.name}-binned`)).toEqual([`Document deleted: ${three.name}-binned`]);
  });

  test('deleting a folder while a document is being created in a folder under it: the new document gets its "Document deleted" too', async () => {
    const top = await newFolder();
    const sub = (await A.post(`/folders/${top.id}`, { name: 'sub' })).body.data as { id: string };
    await A.post(`/folders/${sub.id}/alerts/${E.documentDeleted}?usId=${watcher.id}`);
    const name = uniq('Latecomer');
    // The create, uncommitted while the delete starts: the delete waits for it and then sees the document.
    const create = {
      text: `insert into document (tenant_id, id, folder_id, revision_id, revision, name) values ($1, gen_random_uuid(), $2, gen_random_uuid(), '1', $3)`,
      values: [A.t.tenantId, sub.id, name],
    };
    expect((await whileHeld(h, create, () => A.del(`/folders/${top.id}`))).status).toBe(200);
    expect(await subjectsFor(watcher, name)).toEqual([`Document deleted: ${name}`]);
  });

  test('the e-mail batches deliver an alert to a real SMTP server', async () => {
    const folder = await newFolder();
    await A.post(`/folders/${folder.id}/alerts/${E.documentAdded}?usId=${watcher.id}`);
    const name = uniq('Delivered');
    await newDocument(folder.id, name);
    const transport = smtpTransport(h.services.config);
    const before = smtp.received.length;
    try {
      while ((await sendDueEmails(h.services, transport)).claimed > 0);
    } finally {
      transport.close();
    }
    const mail = smtp.received.slice(before).filter((m) => m.mail.subject === `Document added: ${name}`);
    expect(mail).toHaveLength(1);
    expect(mail[0].to).toEqual([`${watcher.userid}@example.test`]);
    expect(mail[0].mail.text).toContain(`Document: ${name} (revision 1)`);
  });
});
