/**
 * Relations from a record back to what it names (a subscription's user, folder and document, a
 * saved search's owner and folder, an attachment's message, a process's script, a revision's
 * document ...) and a folder's members and subscriptions: each resolved through a loader, so a
 * page of records costs the same number of statements however long it is. What the caller may
 * not see is null or left out, as a read of it would be a 404; REST's `expand=` does not offer them.
 */
import { ALERT_EVENTS } from '../../src/alert-events.js';
import { Harness } from '../harness.js';
import { type Api, adminApi, createUser, formTemplateWith, multipart, ordinaryUser, uniq } from '../rest/support.js';

let h: Harness;
let A: Api;

beforeAll(async () => {
  h = await Harness.start();
  A = await adminApi(h);
});
afterAll(() => h.stop());

/** Runs `query(limit)` at two page sizes: the data of the larger, and whether both cost the same statements. */
async function pages(query: (limit: number) => Promise<{ body: { data: unknown; errors?: unknown } }>) {
  const small = await h.countQueries(() => query(1));
  const big = await h.countQueries(() => query(3));
  expect(big.result.body.errors).toBeUndefined();
  expect(big.statements.length).toBe(small.statements.length);
  return big.result.body.data as Record<string, { items: Record<string, unknown>[] }>;
}

test('subscriptions name their user and folder; saved searches their owner and folder', async () => {
  const folders: { id: string; name: string }[] = [];
  for (let i = 0; i < 3; i++) folders.push((await A.post('/folders', { name: uniq(`Rel${i}`) })).body.data as { id: string; name: string });
  for (const f of folders) {
    expect((await A.post(`/folders/${f.id}/alerts/${ALERT_EVENTS.documentAdded.id}`)).status).toBe(200);
    expect((await A.gql('mutation ($f: UUID, $n: String) { createSavedSearch(input: { name: $n, q: "name like \'%\'", folderId: $f }) { asid } }', { f: f.id, n: uniq('s') })).body.errors).toBeUndefined();
  }
  const names = new Set(folders.map((f) => f.name));
  const alerts = await pages((n) => A.gql(`{ alertSubscriptions(limit: ${n}) { items { user { userid } folder { name } } } }`));
  for (const a of alerts.alertSubscriptions.items) expect(a).toEqual({ user: { userid: 'admin' }, folder: { name: expect.any(String) } });
  expect(alerts.alertSubscriptions.items.every((a) => names.has((a.folder as { name: string }).name))).toBe(true);
  const searches = await pages((n) => A.gql(`{ savedSearches(limit: ${n}) { items { owner { userid } folder { name } } } }`));
  expect(searches.savedSearches.items).toHaveLength(3);
  for (const s of searches.savedSearches.items) expect(s).toEqual({ owner: { userid: 'admin' }, folder: { name: expect.any(String) } });
});

test('an attachment names its message; a scheduled process its script', async () => {
  const file = { name: 'a.txt', base64: Buffer.from('a').toString('base64') };
  for (let i = 0; i < 3; i++) {
    const r = await A.gql('mutation ($f: [FileInput!]) { sendEmail(input: { recipients: ["x@example.com"], subject: "s", body: "b", fileUpload: $f }) { success } }', { f: [file] });
    expect(r.body.errors).toBeUndefined();
  }
  const emails = await pages((n) => A.gql(`{ emails(limit: ${n}) { items { id attachments { email { id } } } } }`));
  for (const e of emails.emails.items) expect((e.attachments as { email: { id: string } }[])[0].email.id).toBe(e.id);

  for (let i = 0; i < 3; i++) {
    const s = (await A.gql('mutation ($input: ScriptInput!) { createScript(input: $input) { id } }', { input: { name: uniq('job'), source: 'module.exports.main = () => {};' } })).body.data.createScript;
    const p = await A.gql('mutation ($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { id } }', { input: { name: uniq('proc'), script: s.id, intervalMinutes: 60 } });
    expect(p.body.errors).toBeUndefined();
  }
  const processes = await pages((n) => A.gql(`{ scheduledProcesses(limit: ${n}) { items { scriptId script { id } } } }`));
  for (const p of processes.scheduledProcesses.items) expect((p.script as { id: string }).id).toBe(p.scriptId);
});

type Rec = Record<string, unknown>;

test('revisions, files and document subscriptions name their document', async () => {
  const T = await adminApi(h);
  const folder = (await T.post('/folders', { name: uniq('Docs') })).body.data as { id: string };
  for (let i = 0; i < 3; i++) {
    const d = (await T.post('/documents', { folderId: folder.id, name: uniq(`Doc${i}`) })).body.data as { documentId: string };
    expect((await T.post('/files', undefined, await multipart({ documentId: d.documentId }, `bytes ${i}`, 'f.txt'))).status).toBe(200);
    expect((await T.post(`/documents/${d.documentId}/alerts/${ALERT_EVENTS.documentRevised.id}`)).status).toBe(200);
  }
  // A query per relation: two relations that read through one loader at different depths may share its batch or not.
  const documents = (n: number, relation: string) =>
    T.gql(`query ($f: UUID!) { folderDocuments(id: $f, limit: ${n}) { items { id documentId ${relation} } } }`, { f: folder.id });
  const revisions = await pages((n) => documents(n, 'revisions { document { id documentId } }'));
  expect(revisions.folderDocuments.items).toHaveLength(3);
  // A revision's document is the document as of its current revision (its `id`), found by its own id.
  for (const d of revisions.folderDocuments.items) expect(d.revisions).toEqual([{ document: { id: d.id, documentId: d.documentId } }]);
  const files = await pages((n) => documents(n, 'file { document { documentId } }'));
  for (const d of files.folderDocuments.items) expect(d.file).toEqual({ document: { documentId: d.documentId } });
  const alerts = await pages((n) => T.gql(`{ alertSubscriptions(limit: ${n}) { items { documentId document { documentId } folder { id } } } }`));
  expect(alerts.alertSubscriptions.items).toHaveLength(3);
  for (const a of alerts.alertSubscriptions.items) expect(a).toEqual({ documentId: a.documentId, document: { documentId: a.documentId }, folder: null });
});

test('template and form revisions name their template and form; list items their list; index fields their list and folders', async () => {
  const T = await adminApi(h);
  for (let i = 0; i < 3; i++) {
    const t = await formTemplateWith(T, ['a']);
    expect((await T.post(`/formtemplates/${t.id}/forms`, { a: 'x' })).status).toBe(201);
    const list = (await T.post('/lists', { Name: uniq('List'), Items: [{ itemName: 'Red' }, { itemName: 'Blue' }] })).body.data as { listID: string };
    const field = (await T.post('/indexfields', { label: uniq('Colour'), fieldType: 'DropDownList', dropdownListId: list.listID })).body.data as { id: string };
    const folder = (await T.post('/folders', { name: uniq('Indexed') })).body.data as { id: string };
    expect((await T.put(`/indexfields/${field.id}/folders/${folder.id}`)).status).toBe(200);
  }
  const forms = await pages((n) => T.gql(`{ formTemplates(limit: ${n}) { items { id revisions(limit: 5) { template { id } } forms(limit: 5) { formId revisions(limit: 5) { form { formId } } } } } }`));
  expect(forms.formTemplates.items).toHaveLength(3);
  for (const t of forms.formTemplates.items) {
    expect((t.revisions as Rec[]).map((r) => r.template)).toEqual((t.revisions as Rec[]).map(() => ({ id: t.id })));
    const [form] = t.forms as { formId: string; revisions: Rec[] }[];
    expect(form.revisions.length).toBeGreaterThan(0);
    for (const r of form.revisions) expect(r.form).toEqual({ formId: form.formId });
  }
  // One query each: both read lists through one loader, whose batches may meet or not.
  const lists = await pages((n) => T.gql(`{ dropDownLists(limit: ${n}) { items { listID items { list { listID } } } } }`));
  for (const l of lists.dropDownLists.items) expect(l.items).toEqual([{ list: { listID: l.listID } }, { list: { listID: l.listID } }]);
  const fields = await pages((n) => T.gql(`{ indexFields(limit: ${n}) { items { dropDownListId dropDownList { listID } folders { id } } } }`));
  expect(fields.indexFields.items).toHaveLength(3);
  for (const f of fields.indexFields.items) {
    expect(f.dropDownList).toEqual({ listID: f.dropDownListId });
    expect(f.folders).toEqual([{ id: expect.any(String) }]);
  }
});

test("a folder's security members and subscriptions, a page per folder", async () => {
  const T = await adminApi(h);
  for (let i = 0; i < 3; i++) {
    const folder = (await T.post('/folders', { name: uniq('Secured') })).body.data as { id: string };
    expect((await T.put(`/folders/${folder.id}/securitymembers/${(await createUser(T)).id}`, { securityRole: 2 })).status).toBe(200);
    expect((await T.post(`/folders/${folder.id}/alerts/${ALERT_EVENTS.documentAdded.id}`)).status).toBe(200);
  }
  const folders = await pages((n) => T.gql(`{ topFolders(limit: ${n}) { items { id securityMembers { parentId memberRole } alerts { folderId eventId } } } }`));
  expect(folders.topFolders.items).toHaveLength(3);
  for (const f of folders.topFolders.items) {
    expect(f.securityMembers).toEqual([{ parentId: f.id, memberRole: 2 }]);
    expect(f.alerts).toEqual([{ folderId: f.id, eventId: ALERT_EVENTS.documentAdded.id }]);
  }
});

test('what the caller may not see stays out of reach through a relation', async () => {
  const T = await adminApi(h);
  const plain = await ordinaryUser(T);
  const U = T.as(plain.token);
  const folder = (await T.post('/folders', { name: uniq('Closing') })).body.data as { id: string };
  const doc = (await T.post('/documents', { folderId: folder.id, name: uniq('Doc') })).body.data as { documentId: string };
  expect((await U.post(`/documents/${doc.documentId}/alerts/${ALERT_EVENTS.documentRevised.id}`)).status).toBe(200);
  expect((await U.post(`/folders/${folder.id}/alerts/${ALERT_EVENTS.documentAdded.id}`)).status).toBe(200);
  expect((await T.post(`/folders/${folder.id}/alerts/${ALERT_EVENTS.documentAdded.id}`)).status).toBe(200);
  const field = (await T.post('/indexfields', { label: uniq('Plain'), fieldType: 1 })).body.data as { id: string };
  expect((await T.put(`/indexfields/${field.id}/folders/${folder.id}`)).status).toBe(200);

  const ask = async (api: Api) => {
    const r = await api.gql('query ($i: UUID!) { alertSubscriptions { items { folder { id } document { documentId } } } indexField(id: $i) { folders { id } } }', { i: field.id });
    expect(r.body.errors).toBeUndefined();
    return r.body.data as { alertSubscriptions: { items: Rec[] }; indexField: { folders: Rec[] } };
  };
  const open = await ask(U);
  expect(open.alertSubscriptions.items).toEqual(expect.arrayContaining([{ folder: { id: folder.id }, document: null }, { folder: null, document: { documentId: doc.documentId } }]));
  expect(open.indexField.folders).toEqual([{ id: folder.id }]);
  // The folder of an open folder's subscriptions shows the caller's own; an administrator sees every one.
  const alertsOf = async (api: Api) => (await api.gql('query ($f: UUID!) { folder(id: $f) { alerts { userId } } }', { f: folder.id })).body.data.folder.alerts as Rec[];
  expect(await alertsOf(U)).toEqual([{ userId: plain.id }]);
  expect(await alertsOf(T)).toHaveLength(2);

  // Another user becomes the folder's only member: the caller keeps their subscriptions, not the folder and document.
  expect((await T.put(`/folders/${folder.id}/securitymembers/${(await createUser(T)).id}`, { securityRole: 4 })).status).toBe(200);
  const closed = await ask(U);
  expect(closed.alertSubscriptions.items).toEqual([{ folder: null, document: null }, { folder: null, document: null }]);
  expect(closed.indexField.folders).toEqual([]);
  expect((await ask(T)).indexField.folders).toEqual([{ id: folder.id }]);
});

test('records name the users who made and last changed them', async () => {
  const T = await adminApi(h);
  const plain = await ordinaryUser(T);
  const folder = (await T.post('/folders', { name: uniq('Made') })).body.data as { id: string };
  for (let i = 0; i < 3; i++) {
    const d = (await T.post('/documents', { folderId: folder.id, name: uniq(`Doc${i}`) })).body.data as { documentId: string };
    expect((await T.post('/files', undefined, await multipart({ documentId: d.documentId }, `bytes ${i}`, 'f.txt'))).status).toBe(200);
    const made = await T.as(plain.token).gql('mutation ($n: String) { createSavedSearch(input: { name: $n, q: "name like \'%\'" }) { asid } }', { n: uniq('s') });
    expect(made.body.errors).toBeUndefined();
  }
  const admin = { userid: 'admin' };
  // A query per depth, as above: the users' loader is one.
  const documents = (n: number, selection: string) => T.gql(`query ($f: UUID!) { folderDocuments(id: $f, limit: ${n}) { items { ${selection} } } }`, { f: folder.id });
  for (const [selection, each] of [
    ['createByUser { userid } modifyByUser { userid }', { createByUser: admin, modifyByUser: admin }],
    ['revisions { createByUser { userid } modifyByUser { userid } }', { revisions: [{ createByUser: admin, modifyByUser: admin }] }],
    ['file { createByUser { userid } }', { file: { createByUser: admin } }],
  ] as const) {
    expect((await pages((n) => documents(n, selection))).folderDocuments.items).toEqual(Array(3).fill(each));
  }
  const searches = await pages((n) => T.gql(`{ savedSearches(limit: ${n}) { items { createByUser { userid } modifyByUser { userid } } } }`));
  expect(searches.savedSearches.items).toEqual(Array(3).fill({ createByUser: { userid: plain.userid }, modifyByUser: { userid: plain.userid } }));
});

test('the rest of what records name: top folders, members, check-outs, revisions, definitions, template fields and revisions', async () => {
  const T = await adminApi(h);
  const plain = await ordinaryUser(T);
  const group = (await T.post('/groups', { name: uniq('g'), description: 'd' })).body.data as { id: string; name: string };
  const field = (await T.post('/indexfields', { label: uniq('Code'), fieldType: 1 })).body.data as { id: string };
  for (let i = 0; i < 3; i++) {
    const top = (await T.post('/folders', { name: uniq('Top') })).body.data as { id: string };
    const child = (await T.post(`/folders/${top.id}`, { name: 'child', description: '', allowRevisions: true })).body.data as { id: string };
    expect((await T.put(`/indexfields/${field.id}/folders/${child.id}`)).status).toBe(200);
    for (const [memberId, role] of [[plain.id, 4], [group.id, 2]] as const) expect((await T.put(`/folders/${top.id}/securitymembers/${memberId}`, { securityRole: role })).status).toBe(200);
    const d = (await T.post('/documents', { folderId: child.id, name: uniq('Doc') })).body.data as { documentId: string };
    expect((await T.post('/files', undefined, await multipart({ documentId: d.documentId }, 'bytes', 'f.txt'))).status).toBe(200);
    const out = await T.gql('mutation ($d: UUID!) { setDocumentCheckIn(documentId: $d, input: { checkIn: 1 }) { checkInStatus } }', { d: d.documentId });
    expect(out.body.errors).toBeUndefined();
  }
  const members = await pages((n) => T.gql(`{ topFolders(limit: ${n}) { items { id securityMembers(limit: 5) { folder { id } user { id } group { id } } } } }`));
  expect(members.topFolders.items).toHaveLength(3);
  for (const f of members.topFolders.items) {
    expect(f.securityMembers).toEqual([{ folder: { id: f.id }, user: null, group: { id: group.id } }, { folder: { id: f.id }, user: { id: plain.id }, group: null }]);
  }
  for (const f of (await pages((n) => T.gql(`{ topFolders(limit: ${n}) { items { id folders(limit: 5) { topLevelFolder { id } } } } }`))).topFolders.items) {
    expect(f.folders).toEqual([{ topLevelFolder: { id: f.id } }]);
  }

  const documents = (n: number, selection: string) =>
    T.gql(`{ topFolders(limit: ${n}) { items { folders(limit: 5) { documents(limit: 5) { id ${selection} } } } } }`);
  const docsOf = (data: Record<string, { items: Rec[] }>) => data.topFolders.items.flatMap((f) => (f.folders as Rec[]).flatMap((c) => c.documents as Rec[]));
  const admin = { userid: 'admin' };
  for (const d of docsOf(await pages((n) => documents(n, 'checkedOutByUser { userid } folderId')))) expect(d.checkedOutByUser).toEqual(admin);
  for (const d of docsOf(await pages((n) => documents(n, 'folderId revisions(limit: 5) { checkedOutByUser { userid } folder { id } }')))) {
    expect(d.revisions).toEqual([{ checkedOutByUser: admin, folder: { id: d.folderId } }]);
  }
  for (const d of docsOf(await pages((n) => documents(n, 'file { revision { id } }')))) expect(d.file).toEqual({ revision: { id: d.id } });
  for (const d of docsOf(await pages((n) => documents(n, 'indexFields(limit: 5) { revision { id } definition { id } }')))) {
    expect(d.indexFields).toEqual([{ revision: { id: d.id }, definition: { id: field.id } }]);
  }

  for (let i = 0; i < 3; i++) {
    const t = await formTemplateWith(T, ['a']);
    expect((await T.post(`/formtemplates/${t.id}/forms`, { a: 'x' })).status).toBe(201);
  }
  const templates = (n: number, selection: string) => T.gql(`{ formTemplates(limit: ${n}) { items { id latestRevisionId ${selection} } } }`);
  for (const t of (await pages((n) => templates(n, 'latestRevision { id }'))).formTemplates.items) expect(t.latestRevision).toEqual({ id: t.latestRevisionId });
  for (const t of (await pages((n) => templates(n, 'revisions(limit: 5) { id fields(limit: 5) { revision { id } template { id } } }'))).formTemplates.items) {
    for (const r of t.revisions as { id: string; fields: Rec[] }[]) expect(r.fields).toEqual([{ revision: { id: r.id }, template: { id: t.id } }]);
  }
  for (const t of (await pages((n) => templates(n, 'forms(limit: 5) { revisions(limit: 5) { template { id } } }'))).formTemplates.items) {
    expect((t.forms as { revisions: Rec[] }[])[0].revisions[0]).toEqual({ template: { id: t.id } });
  }
});

test('REST does not expand the relations GraphQL added', async () => {
  const T = await adminApi(h);
  const folder = (await T.post('/folders', { name: uniq('Rest') })).body.data as { id: string };
  const doc = (await T.post('/documents', { folderId: folder.id, name: uniq('Doc') })).body.data as { documentId: string };
  for (const [path, expand] of [
    [`/folders/${folder.id}`, 'securityMembers,alerts,createByUser'],
    [`/documents/${doc.documentId}/revisions`, 'document,createByUser,modifyByUser'],
  ]) {
    const plain = await T.get(path);
    expect(plain.status).toBe(200);
    expect((await T.get(`${path}?expand=${expand}`)).body.data).toEqual(plain.body.data);
  }
});
