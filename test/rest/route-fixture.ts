/**
 * The records every tenant route's path and body name, for the tests generated from the route
 * table (test/rest/conformance.test.ts, test/rest/authorship.test.ts, and test/graphql/authorship.test.ts
 * for the mutations no route names, their arguments as the routes' are): tenant A's administrator
 * makes them, on a database of the test file's own, so no other file's background job (each serves
 * every tenant) changes them. A new route row needs no new code here: a record `:id` names is made
 * through the POST route that creates one (its body built from the input type), a list with too
 * few rows to page gets more through the POST on its path. A new path parameter other than `:id`
 * needs a sample value in SAMPLES, a body key that must name a real record (a siteId) a value in
 * KNOWN, a file part of a new type (a body's `fileUpload`) its content in FILE_PARTS, a list
 * under a parent that no POST on its own path fills three rows made in makeFixture; each test
 * failing for want of one says so. Jest loads modules afresh for each test file, so
 * these bindings are that file's alone.
 */
import fs from 'node:fs';
import { getNamedType, isInputObjectType, type GraphQLField, type GraphQLSchema } from 'graphql';
import { ALERT_EVENTS } from '../../src/alert-events.js';
import { buildNextZip } from '../../src/jobs/zip-builder.js';
import { isSofaRoute, routes, type SofaRoute } from '../../src/rest/routes.js';
import {
  adminApi,
  createGroup,
  createSite,
  createUser,
  formTemplateWith,
  multipart,
  ordinaryUser,
  uniq,
  type Api,
  type Fixture,
  type UserFixture,
} from './support.js';
import { Harness } from '../harness.js';
import { ownDatabase, type OwnDatabase } from '../own-database.js';
import { startScriptServer, type TestScriptServer } from '../script-server.js';
import { bodyFor, valueFor } from './input-body.js';

export const tenantRoutes = routes.filter((r) => r.scope !== 'root').filter(isSofaRoute);
export const label = (r: SofaRoute) => `${r.method} ${r.path}`;

let db: OwnDatabase;
export let h: Harness;
/** Tenant A's first administrator, who makes every record here. */
export let A: Api;
export let B: Api;
/** An ordinary user of tenant A. */
export let plain: UserFixture & { token: string };
let site: Fixture;
let group: Fixture;
let template: Fixture;
let dictionary: { id: string };
/** A top-level folder holding three, beside two more top-level ones. */
let folder: { id: string; folderPath: string };
/** Documents in `folder`: the first three related to `form`, the next two for the relate rows; the first with three revisions. */
let docs: { id: string; documentId: string }[];
/** Index field definitions, all three in `folder` (with `listField`). */
let indexField: { id: string };
/** Another of them, after which a move puts `indexField`. */
let otherField: { id: string };
/** A drop-down list of three items, beside two more. */
let list: { listID: string; items: string[] };
/** A drop-down list field of `folder` on `list`, whose three items are its select options. */
let listField: { id: string };
/** A document type, beside two more. */
let documentType: { id: string };
/** The ordinary user's zip of the second document's file. */
let zipKey: string;
/** A shared saved search over every folder, beside two more. */
let savedSearch: { asid: string };
/** The ordinary user's alert subscription, among four on `folder` and four on the first document. */
let alert: { id: string };
/** A file of the second document. */
let fileId: string;
let member: UserFixture;
/** Form instances: a released template whose fields take the keys of bodyOf, a form related to three others, one to delete. */
let formTemplate: { id: string; revisionId: string };
/** A field definition of formTemplate's released revision. */
let formTemplateField: string;
let form: { revisionId: string; formId: string };
let relateTo: string;
let relateToName: string;
let doomed: string;
/** A script the routes run (beside two more), on a real script server; three processes that run it, one with a run started (its token). */
let scripts: TestScriptServer;
let script: { id: string };
let scheduled: { id: string };
let runToken: string;
/** The ordinary user's message with its one attachment, among three the administrator sends. */
let email: { id: string; attachments: { id: string }[] };
/** Records made through their own POST route, for `:id` under a segment ID_RECIPES does not name (by segment). */
const made: Record<string, string> = {};

/** At a test file's top: the records above made before its tests, on a database of the file's own (`name`), dropped after them. */
export function setUpRouteFixture(name: string) {
  // Dozens of requests and a server start: they passed jest's 30 s on a two-core host running two suites at once.
  beforeAll(() => makeFixture(name), 120_000);
  afterAll(async () => {
    await h.stop();
    await scripts.close();
    await db.drop();
  });
}

async function makeFixture(name: string) {
  [scripts, db] = await Promise.all([startScriptServer(), ownDatabase(name)]);
  h = await Harness.start({ databaseUrl: db.url, scriptServerUrl: scripts.url });
  A = await adminApi(h);
  B = await adminApi(h);
  plain = await ordinaryUser(A);
  // Three of everything a list route pages over, so that limit=1 and limit=3 differ.
  site = await createSite(A);
  await createSite(A);
  const groups = [await createGroup(A, { siteId: site.id }), await createGroup(A, { siteId: site.id }), await createGroup(A, { siteId: site.id })];
  group = groups[0];
  const users = [await createUser(A, site.id), await createUser(A, site.id), await createUser(A, site.id)];
  member = users[0];
  for (const g of groups) await A.put(`/groups/${g.id}/users`, { userIds: users.map((u) => u.id).join(',') });
  // Three supervisors and three supervisees of the member, for its two user lists.
  const extra = [await createUser(A, site.id), await createUser(A, site.id), await createUser(A, site.id)];
  const supervise = 'mutation($u: UUID!, $s: UUID!) { addUserSupervisor(userId: $u, input: { supervisorId: $s }) { id } }';
  for (const u of users.slice(1).concat(extra[0])) expect((await A.gql(supervise, { u: member.id, s: u.id })).body.errors).toBeUndefined();
  for (const u of extra) expect((await A.gql(supervise, { u: u.id, s: member.id })).body.errors).toBeUndefined();
  const templates = [];
  for (let i = 0; i < 3; i++) templates.push((await A.post('/formtemplates', { name: uniq('template'), description: '' })).body.data);
  template = templates[0];
  formTemplate = await formTemplateWith(A, Object.keys(KNOWN)); // every key a body may carry
  formTemplateField = (await A.gql('query ($id: String!) { formTemplate(id: $id) { revisions { fields(limit: 1) { id } } } }', { id: formTemplate.id })).body.data.formTemplate.revisions.at(-1).fields[0].id;
  const forms = [];
  for (let i = 0; i < 7; i++) forms.push((await A.post(`/formtemplates/${formTemplate.id}/forms`, {})).body.data);
  form = forms[0];
  // Related to five: the route table's unrelateForm and unrelateFormByDocId (each after its relateForm)
  // end a relation each, two forms since a second unrelate of one is a 404, and leave three for the paged list.
  for (const other of forms.slice(1, 6)) await A.put(`/forminstance/${form.formId}/relateForm?relateToId=${other.formId}`);
  relateTo = forms[5].formId;
  relateToName = forms[4].instanceName;
  doomed = forms[6].formId;
  // Global, so every user of the tenant reads it; only its creator (or an administrator) deletes it.
  const dictionaries = [];
  for (let i = 0; i < 3; i++) dictionaries.push((await A.post('/persistedData', { name: uniq('dictionary'), scope: 1, persistedData: '{}' })).body.data);
  dictionary = dictionaries[0];
  const tops = [];
  for (let i = 0; i < 3; i++) tops.push((await A.post('/folders', { name: uniq('folder') })).body.data);
  folder = tops[0];
  for (let i = 0; i < 3; i++) await A.post(`/folders/${folder.id}`, { name: uniq('child') });
  const fields = [];
  for (let i = 0; i < 3; i++) fields.push((await A.post('/indexfields', { label: uniq('field'), fieldType: 1 })).body.data);
  for (const f of fields) await A.put(`/indexfields/${f.id}/folders/${folder.id}`);
  [indexField, otherField] = fields;
  const lists = [];
  for (let i = 0; i < 3; i++) lists.push((await A.post('/lists', { Name: uniq('list'), Items: ['a', 'b', 'c'].map((itemName) => ({ itemName })) })).body.data);
  list = { listID: lists[0].listID, items: (await A.get(`/lists/${lists[0].listID}/items`)).body.data.map((i: { listId: string }) => i.listId) };
  listField = (await A.post('/indexfields', { label: uniq('choice'), fieldType: 6, dropdownListId: list.listID })).body.data;
  await A.put(`/indexfields/${listField.id}/folders/${folder.id}`);
  const searches = [];
  for (let i = 0; i < 3; i++) searches.push((await A.post('/savedsearches', { name: uniq('search'), shared: true })).body.data);
  savedSearch = searches[0];
  const types = [];
  for (let i = 0; i < 3; i++) types.push((await A.post('/documenttypes', { documentTypeName: uniq('type') })).body.data);
  documentType = types[0];
  // Its security members: the ordinary user, who so still reads it (the routes' open reads answer 200).
  await A.put(`/folders/${folder.id}/securitymembers/${plain.id}`, { memberType: 0, securityRole: 4 });
  for (const g of groups.slice(1)) await A.put(`/folders/${folder.id}/securitymembers/${g.id}`, { memberType: 1, securityRole: 4 });
  docs = [];
  for (let i = 0; i < 5; i++) docs.push((await A.post('/documents', { folderId: folder.id, name: uniq('doc') })).body.data);
  for (const d of docs.slice(0, 3)) await A.put(`/forminstance/${form.formId}/relateDocument?relateToId=${d.id}`);
  // Opened by the administrator, for lastdocuments and frequentdocuments.
  for (const d of docs.slice(0, 3)) await A.get(`/documents/${d.id}`);
  fileId = (await A.post('/files', undefined, await multipart({ documentId: docs[1].documentId }, 'bytes', 'a.txt'))).body.data.fileId;
  const zip = await A.as(plain.token).post('/documents/CreateDocumentZipFile', { documentDhIds: [docs[1].documentId] });
  expect(zip.status).toBe(200);
  zipKey = zip.body.data.downloadKey;
  // Built as a server's zip builder builds it (no other builds this database's zips).
  await buildNextZip(h.services);
  expect((await A.get(`/documents/GetDocumentZipFileStatus?downloadKey=${zipKey}`)).body.data.status).toBe('Ready');
  // The ordinary user's own first, which the routes' open reads read (and its open writes end): three stay.
  for (const u of [plain, ...users]) {
    const sub = await A.post(`/folders/${folder.id}/alerts/${ALERT_EVENTS.documentAdded.id}?usId=${u.id}`);
    expect(sub.status).toBe(200);
    alert ??= sub.body.data;
    await A.post(`/documents/${docs[0].id}/alerts/${ALERT_EVENTS.documentRevised.id}?usId=${u.id}`);
  }
  // Run as a script (main(fields, client, response)) and as a scheduled one (main(client, response, token)): it answers either way.
  const source = "module.exports.main = (...args) => args.find((a) => a && typeof a.json === 'function').json(200, ['Success']);";
  const created = await A.gql('mutation ($source: String!) { createScript(input: { name: "conformance", source: $source }) { id } }', { source });
  script = created.body.data.createScript;
  for (let i = 0; i < 2; i++) expect((await A.gql('mutation ($name: String!) { createScript(input: { name: $name, source: "x" }) { id } }', { name: uniq('script') })).body.errors).toBeUndefined();
  for (let i = 0; i < 3; i++) {
    const p = await A.gql('mutation ($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { id } }', { input: { name: uniq('process'), script: script.id, intervalMinutes: 60, nextRunDate: i ? '2099-01-01' : undefined } });
    expect(p.body.errors).toBeUndefined();
    scheduled ??= p.body.data.createScheduledProcess;
  }
  runToken = (await A.put('/scheduledProcess/Run')).body.data[0].id;
  const sent = await A.as(plain.token).post('/emails', undefined, await multipart({ recipients: 'ada@example.com', subject: 'conformance' }, 'attached', 'a.txt'));
  expect(sent.status).toBe(201);
  email = (await A.as(plain.token).gql('{ emails(limit: 1) { items { id attachments { id } } } }')).body.data.emails.items[0];
  for (let i = 0; i < 2; i++) expect((await A.post('/emails', { recipients: 'bob@example.com', subject: 'conformance' })).status).toBe(201);
  // Revisions come with file uploads, which are not built yet: two more of the first, in SQL.
  for (const n of ['2', '3']) {
    await h.services.reads.query(`insert into document_revision (tenant_id, id, document_id, revision, name) values ($1, gen_random_uuid(), $2, $3, 'r')`, [
      A.t.tenantId, docs[0].documentId, n,
    ]);
  }
  await makeRecords();
}

/**
 * The records `:id` names under a segment whose sample must be a particular one (the fixture
 * above says why: the ordinary user's own, one to delete, a document's revision...); under any
 * other segment it is a record made through its own POST route (makeRecords).
 */
const ID_RECIPES = (): Record<string, string | undefined> => ({ sites: site.id, groups: group.id, users: member.id, formtemplates: template.id, forminstance: doomed, persisteddata: dictionary.id, folders: folder.id, revisions: docs[0].id, indexfields: indexField.id, lists: list.listID, files: fileId, scripts: script.id, documenttypes: documentType.id, alerts: alert.id, emails: email.id, attachments: email.attachments[0]?.id, outsideprocesses: scheduled.id });

/** A real value for each path parameter of tenant A; `id` depends on the segment before it. */
const SAMPLES: Record<string, (previous: string, r: SofaRoute) => string | undefined> = {
  id: (previous, r) =>
    // Under formtemplates a revision is the template's own, elsewhere a document's.
    r.field === 'Query.formTemplateRevision' ? formTemplate.revisionId : r.field === 'Query.formTemplateField' ? formTemplateField : r.field === 'Query.folderIndexFieldOptions' ? listField.id : (ID_RECIPES()[previous.toLowerCase()] ?? made[previous.toLowerCase()]),
  folderPath: () => folder.folderPath,
  folderId: () => folder.id,
  fieldId: () => indexField.id,
  memberId: () => plain.id,
  parentId: () => folder.id,
  itemIds: () => list.items[0],
  itemId: () => list.items[0],
  messageId: () => email.id,
  q: () => `fileId eq '${fileId}'`,
  templateId: () => formTemplate.id,
  revisionId: (_, r) => (/document/i.test(r.field) ? docs[0].id : r.field === 'Query.formTemplateField' ? formTemplate.revisionId : form.revisionId),
  formId: () => form.formId,
  relateToId: (_, r) => (/Document/.test(r.field) ? docs[3].id : relateTo),
  relateToDocId: (_, r) => (/Document/.test(r.field) ? docs[4].documentId : relateToName),
  documentId: () => docs[0].documentId,
  siteId: () => site.id,
  groupId: () => group.id,
  userId: () => member.id,
  datatype: () => 'Site',
  name: (_, r) => (r.field === 'Query.documentField' ? 'documentId' : 'formsapi'),
  userName: () => member.userid,
  token: () => runToken,
  action: () => 'complete',
  asid: () => savedSearch.asid,
  downloadKey: () => zipKey,
  savedSearchId: () => savedSearch.asid,
  eventId: (_, r) => (/Folder/.test(r.field) ? ALERT_EVENTS.documentAdded.id : ALERT_EVENTS.documentRevised.id),
};

/** The root field of a row. */
export function fieldOf(schema: GraphQLSchema, r: SofaRoute) {
  const [op, name] = r.field.split('.');
  const root = op === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const field = root!.getFields()[name];
  if (!field) throw new Error(`${label(r)} names ${r.field}, which the schema lacks`);
  return field;
}

/** The fixture's value for the path or query parameter `name` of `r`; `previous`: the path segment before it (what an `:id` names). */
export const sampleOf = (r: SofaRoute, name: string, previous = '') => {
  const sample = SAMPLES[name]?.(previous, r);
  if (sample) return sample;
  if (name === 'id') {
    throw new Error(
      `No '${previous}' record for ${label(r)}: no POST route whose path ends in /${previous} made one (see makeRecords' failure above), ` +
        'so give it one, or, if only a particular record will do, a recipe in ID_RECIPES in test/rest/route-fixture.ts',
    );
  }
  throw new Error(`No sample value for '${name}' in ${label(r)}: add one to SAMPLES in test/rest/route-fixture.ts`);
};

/** The row's path with sample values, plus a query string for required arguments the path does not carry. */
export function pathOf(r: SofaRoute): string {
  const segments = r.path.split('/');
  const path = segments.map((s, i) => (s.startsWith(':') ? sampleOf(r, s.slice(1), segments[i - 1]) : s)).join('/');
  const inPath = new Set(segments.filter((s) => s.startsWith(':')).map((s) => r.params?.[s.slice(1)] ?? s.slice(1)));
  const required = fieldOf(h.app.schema, r).args.filter((a) => a.type.toString().endsWith('!') && !inPath.has(a.name) && a.name !== r.body);
  const query = new URLSearchParams(required.map((a) => [a.name, sampleOf(r, a.name)]));
  // A row chosen by a query parameter's value gets it, or the row without it would answer.
  if (r.when) query.set(r.when.param, r.when.values[0] === '*' ? sampleOf(r, r.when.param) : r.when.values[0]);
  // POST scripts names its script in the query string (`?id=` or `?name=`), neither required alone.
  if (r.field === 'Mutation.runScript' && !inPath.has('id')) query.set('id', script.id);
  return query.size ? `${path}?${query}` : path;
}

/**
 * Values a body takes where its input type has the key; refused calls never act on them. They
 * name the folder and document a write goes to, since one that names none is a 400 to everyone
 * (src/permissions/policies.ts), not the refusal checked here; and the rest a write needs to
 * succeed with a change, which test/rest/authorship.test.ts checks. A form's body (JSON) takes
 * them all: formTemplate has a field of each key.
 */
const KNOWN: Record<string, () => unknown> = {
  name: () => 'conformance',
  description: () => 'refused',
  firstName: () => 'Changed',
  userIds: () => member.id,
  persistedData: () => '{}',
  recipients: () => 'conformance@example.com',
  documentDhIds: () => docs[1].documentId,
  folderId: () => folder.id,
  documentId: () => docs[0].documentId,
  parentId: () => folder.id,
  memberId: () => plain.id,
  fieldType: () => '1',
  expirationDate: () => '2099-01-01T00:00:00',
  value: () => 'conformance',
  required: () => true,
  sourceFolderId: () => folder.id,
  // A new folder each time (made with the path): a copy and a move of `folder` go in without a clash.
  targetFolderPath: () => `/${uniq('target')}`,
  sourceFieldId: () => indexField.id,
  destinationFieldId: () => otherField.id,
};
/** Values only an input object takes: mandatory in prose, not in the SDL, and checked before the folder or document is looked up. */
const INPUT_ONLY: Record<string, () => unknown> = {
  securityRole: () => '4',
  securityActions: () => [{ memberId: plain.id, roleType: '4' }],
  checkIn: () => 0,
  indexFields: () => ({ [indexField.id]: 'conformance' }),
  // A scheduled process's script and a script's source (/graphql's, test/graphql/authorship.test.ts).
  script: () => script.id,
  source: () => 'conformance',
};
const valuesOf = (thunks: Record<string, () => unknown>) => Object.fromEntries(Object.entries(thunks).map(([k, v]) => [k, v()]));

/** The type of `r`'s body argument. */
const bodyTypeOf = (r: SofaRoute) => getNamedType(fieldOf(h.app.schema, r).args.find((a) => a.name === r.body)!.type);

/**
 * Keys an answer named mandatory when a record was made through the argument `arg` of `field`
 * (create, or a /graphql call): by the argument's input type, which an update takes too, or by the
 * call (`where`) for an argument that is no input object (JSON) or where the caller asks (`ownCall`).
 */
const learned: Record<string, Record<string, unknown>> = {};
const learnedKey = (field: GraphQLField<unknown, unknown>, arg: string, where: string, ownCall = false) => {
  const type = getNamedType(field.args.find((a) => a.name === arg)!.type);
  return isInputObjectType(type) && !ownCall ? type.name : where;
};
/** The keys the call `where`'s own answers named mandatory (learnMandatory with `ownCall`): inputOf gives them only for an argument that is no input object. */
export const learnedByCall = (where: string) => learned[where];

/** A value for `field`'s argument `arg` every call can parse and whose checks it passes: KNOWN's keys, plus any other its input type requires (test/rest/input-body.ts) or an answer named. */
export const inputOf = (field: GraphQLField<unknown, unknown>, arg: string, where: string) => ({
  ...(bodyFor(field, arg, valuesOf({ ...KNOWN, ...INPUT_ONLY }), where) ?? valuesOf(KNOWN)),
  ...learned[learnedKey(field, arg, where)],
});

/**
 * A field mandatory in prose only, which a refusal's `text` names (src/domain/validate.ts), goes in
 * `arg`'s later values with a value of its type; true when it names one not learned before.
 */
export function learnMandatory(field: GraphQLField<unknown, unknown>, arg: string, where: string, text: string, ownCall = false): boolean {
  const missing = /The mandatory field '(\w+)' is missing/.exec(text)?.[1];
  const key = learnedKey(field, arg, where, ownCall);
  if (!missing || missing in (learned[key] ?? {})) return false;
  learned[key] = { ...learned[key], [missing]: valueFor(field, arg, missing, where) };
  return true;
}

/** A body every route can parse and whose checks it passes (inputOf its body argument). */
export const bodyOf = (r: SofaRoute) => (r.body ? inputOf(fieldOf(h.app.schema, r), r.body, label(r)) : undefined);

const lastSegment = (path: string) => path.split('/').at(-1)!.toLowerCase();
const creatorOf = (segment: string) => tenantRoutes.find((c) => c.method === 'POST' && c.body && lastSegment(c.path) === segment);

/**
 * `r` called by `api` with the body `bodyNow()` builds (at `path`), built and sent again while its
 * 400 names a mandatory key not learned before (learnMandatory, `ownCall` as there): the last body and answer.
 */
export async function sendLearning<Body extends Record<string, unknown> | undefined>(api: Api, r: SofaRoute, bodyNow: () => Body, path = pathOf(r), ownCall = false) {
  for (;;) {
    const body = bodyNow();
    const reply = await send(api, r, body, path);
    if (!r.body || reply.body?.meta?.status !== 400 || !learnMandatory(fieldOf(h.app.schema, r), r.body, label(r), reply.text, ownCall)) return { body, reply };
  }
}

/** One record, through the POST route `c`, as tenant A's administrator (or `api`'s caller): its data. */
export async function create(c: SofaRoute, api: Api = A) {
  // A name of its own on every try, where names are unique.
  const { body, reply } = await sendLearning(api, c, () => ({ ...bodyOf(c), ...(bodyOf(c)?.name ? { name: uniq('conformance') } : {}) }));
  if (reply.status !== (c.status ?? 200) || !reply.body?.data) {
    // Keys KNOWN does not give hold a mere value of their type (test/rest/input-body.ts), such as a GUID that names no record.
    const given = Object.keys({ ...KNOWN, ...INPUT_ONLY }).map((k) => k.toLowerCase());
    const guessed = Object.keys(body).filter((k) => !given.includes(k.toLowerCase()));
    const hint = guessed.length ? `${guessed.join(', ')} held a mere value of its type: one that must name a real record needs a value in KNOWN; else ` : '';
    throw new Error(`${label(c)} with ${JSON.stringify(body)} answered ${reply.status} ${reply.text}: ${hint}give it a recipe in ID_RECIPES (test/rest/route-fixture.ts)`);
  }
  return reply.body.data;
}

/** For `:id` under every segment ID_RECIPES does not name: a record made through the POST route whose path ends in that segment. */
async function makeRecords() {
  for (const r of tenantRoutes) {
    const segments = r.path.split('/');
    for (const [i, s] of segments.entries()) {
      const segment = segments[i - 1]?.toLowerCase();
      if (s !== ':id' || ID_RECIPES()[segment] || made[segment]) continue;
      const c = creatorOf(segment);
      if (!c) continue; // sampleOf names the route and what to add
      const data = await create(c);
      if (typeof data.id !== 'string') throw new Error(`${label(c)} answered no id (${JSON.stringify(data)}): give '${segment}' a recipe in ID_RECIPES`);
      made[segment] = data.id;
    }
  }
}

/** The designer's XML, as test/rest/form-templates.test.ts imports it. */
const TEMPLATE_XML = fs.readFileSync(new URL('./fixtures/form-template.xml', import.meta.url), 'utf8');

/**
 * What a body's file part holds, by the type of the input's `fileUpload` (which the multipart
 * body's file part fills): the designer's XML where it is text (an import), else a small file.
 */
const FILE_PARTS: Record<string, { content: string; fileName: string }> = {
  String: { content: TEMPLATE_XML, fileName: 'template.xml' },
  FileInput: { content: 'conformance', fileName: 'conformance.txt' },
};

/** The type of the file part `r`'s body takes (its input's `fileUpload`), if it takes one. */
function filePartOf(r: SofaRoute): string | undefined {
  const type = r.body ? bodyTypeOf(r) : undefined;
  const file = type && isInputObjectType(type) ? type.getFields().fileUpload : undefined;
  return file && getNamedType(file.type).name;
}

/**
 * `r` called by `api` with `body` as the clients send it: a multipart body, its keys as text parts
 * and a file part, where the input takes a file (`fileUpload`); else JSON. At the fixture's path, or
 * at `path` (the same row on another record).
 */
export async function send(api: Api, r: SofaRoute, body: Record<string, unknown> | undefined, path = pathOf(r)) {
  const file = body && filePartOf(r);
  if (!file) return api.request(r.method, path, body === undefined ? {} : { body });
  const part = FILE_PARTS[file];
  if (!part) throw new Error(`${label(r)} takes a file part of type ${file}: give FILE_PARTS in test/rest/route-fixture.ts one`);
  const texts = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return api.request(r.method, path, await multipart(texts, part.content, part.fileName));
}

export const call = (api: Api, r: SofaRoute) => send(api, r, bodyOf(r));
