/**
 * `extensions.field` where test/graphql/field-errors.test.ts does not reach: an id sent in a body
 * (an input's key or an argument's list) that names nothing is named by that key, whoever looks
 * it up (the write, or the access policy before it); a nested field's argument, by its name on
 * that field.
 */
import { Harness, type TestTenant } from '../harness.js';
import { refusalCalls, type GqlError } from './refusal-calls.js';

let h: Harness;
let t: TestTenant;
let token: string;

beforeAll(async () => ({ h, t, token } = await Harness.withTenant()));
afterAll(() => h.stop());

const { gql, refusal, created } = refusalCalls(() => ({ h, token }));

const unknownId = '0190aaaa-0000-7000-8000-000000000001';
const notFound = (field: string) => ({ code: 'NOT_FOUND', field });

describe('an unknown id sent in a body is named by its key', () => {
  test("documents: a create's, copy's or move's folder; a zip's documents", async () => {
    const folderId = await created('mutation { createFolder(input: {name: "Docs"}) { id } }');
    const documentId = await created('mutation($f: UUID) { createDocument(input: {folderId: $f, name: "d"}) { id } }', { f: folderId });
    expect(await refusal('mutation($f: UUID) { createDocument(input: {folderId: $f, name: "d"}) { id } }', { f: unknownId })).toMatchObject(notFound('input.folderId'));
    expect(await refusal('mutation($d: UUID!, $f: UUID) { copyDocument(documentId: $d, input: {folderId: $f}) { id } }', { d: documentId, f: unknownId })).toMatchObject(notFound('input.folderId'));
    expect(await refusal('mutation($d: UUID!, $f: UUID) { moveDocument(documentId: $d, input: {folderId: $f}) { id } }', { d: documentId, f: unknownId })).toMatchObject(notFound('input.folderId'));
    const zip = 'mutation($d: [String]) { createDocumentZipFile(input: {documentDhIds: $d}) { __typename } }';
    expect(await refusal(zip, { d: [unknownId] })).toMatchObject(notFound('input.documentDhIds'));
    expect(await refusal(zip, { d: [] })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.documentDhIds' });
    expect(await refusal(zip, { d: ['nope'] })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.documentDhIds' });
  });

  test("folders: a move's or copy's source and target", async () => {
    const folderId = await created('mutation { createFolder(input: {name: "Moved"}) { id } }');
    for (const op of ['moveFolder', 'copyFolder']) {
      const q = `mutation($input: FolderMoveInput!) { ${op}(input: $input) { id } }`;
      expect(await refusal(q, { input: { sourceFolderId: unknownId, targetFolderPath: '/' } })).toMatchObject(notFound('input.sourceFolderId'));
      expect(await refusal(q, { input: { sourceFolderPath: '/Nowhere', targetFolderPath: '/' } })).toMatchObject(notFound('input.sourceFolderPath'));
      expect(await refusal(q, { input: { sourceFolderId: folderId, targetFolderId: unknownId } })).toMatchObject(notFound('input.targetFolderId'));
    }
  });

  test("a form's relations: the document or form relateToId or relateToDocId names; the form formId names, none", async () => {
    const templateId = await created('mutation { createFormTemplate(input: {name: "Related"}) { id } }');
    const formId = await created('mutation($t: String!) { createFormInstance(templateId: $t, input: {}) { id: revisionId } }', { t: templateId });
    const folders = await Promise.all(['Twins 1', 'Twins 2'].map((name) => created('mutation($n: String) { createFolder(input: {name: $n}) { id } }', { n: name })));
    const [documentId] = await Promise.all(folders.map((f) => created('mutation($f: UUID) { createDocument(input: {folderId: $f, name: "twin"}) { id } }', { f })));
    for (const op of ['relateDocument', 'unrelateDocument', 'relateForm', 'unrelateForm']) {
      expect(await refusal(`mutation($f: UUID!, $r: UUID!) { ${op}(formId: $f, relateToId: $r) }`, { f: formId, r: unknownId })).toMatchObject(notFound('relateToId'));
      const byDocId = `mutation($f: UUID!, $r: String!) { ${op}ByDocId(formId: $f, relateToDocId: $r) }`;
      expect(await refusal(byDocId, { f: formId, r: 'no such name' })).toMatchObject(notFound('relateToDocId'));
      if (op.endsWith('Document')) {
        expect(await refusal(byDocId, { f: formId, r: unknownId })).toMatchObject(notFound('relateToDocId'));
        expect(await refusal(byDocId, { f: formId, r: 'TWIN' })).toMatchObject({ code: 'CONFLICT', field: 'relateToDocId' });
      }
    }
    const unknownForm = await refusal('mutation($f: UUID!, $r: UUID!) { relateDocument(formId: $f, relateToId: $r) }', { f: unknownId, r: documentId });
    expect(unknownForm.code).toBe('NOT_FOUND');
    expect(unknownForm).not.toHaveProperty('field');
  });

  test("users and groups: a group's new members, a supervisor, the user or group a site change names", async () => {
    const groupId = await created('mutation { createGroup(input: {name: "g", description: ""}) { id } }');
    const add = 'mutation($g: UUID!, $input: GroupMembersInput!) { addGroupUsers(groupId: $g, input: $input) { id } }';
    expect(await refusal(add, { g: groupId, input: { userIds: [t.adminId, unknownId] } })).toMatchObject(notFound('input.userIds'));
    expect(await refusal(add, { g: groupId, input: { id: unknownId } })).toMatchObject(notFound('input.id'));
    const supervise = 'mutation($u: UUID!, $s: UUID) { addUserSupervisor(userId: $u, input: {supervisorId: $s}) { id } }';
    expect(await refusal(supervise, { u: t.adminId, s: unknownId })).toMatchObject(notFound('input.supervisorId'));
    const siteId = await created('mutation { createSite(input: {name: "s", description: ""}) { id } }');
    expect(await refusal('mutation($u: UUID) { changeUserSite(input: {userId: $u, newSiteId: "' + siteId + '"}) { id } }', { u: unknownId })).toMatchObject(notFound('input.userId'));
    expect(await refusal('mutation($g: UUID) { changeGroupSite(input: {groupId: $g, newSiteId: "' + siteId + '"}) { id } }', { g: unknownId })).toMatchObject(notFound('input.groupId'));
  });

  test("index fields and lists: a field's list, a move's fields, a list's items to delete", async () => {
    const fieldId = await created('mutation { createIndexField(input: {fieldType: "Text", label: "l"}) { id } }');
    expect(await refusal('mutation($l: UUID) { createIndexField(input: {fieldType: "DropDownList", label: "dd", dropDownListId: $l}) { id } }', { l: unknownId })).toMatchObject(notFound('input.dropDownListId'));
    expect(await refusal('mutation($id: UUID!, $l: UUID) { updateIndexField(id: $id, input: {dropDownListId: $l}) { id } }', { id: fieldId, l: unknownId })).toMatchObject(notFound('input.dropDownListId'));
    const move = 'mutation($s: UUID, $d: UUID) { moveIndexFieldAfter(input: {sourceFieldId: $s, destinationFieldId: $d}) { id } }';
    expect(await refusal(move, { s: unknownId, d: fieldId })).toMatchObject(notFound('input.sourceFieldId'));
    expect(await refusal(move, { s: fieldId, d: unknownId })).toMatchObject(notFound('input.destinationFieldId'));
    const listId = await created('mutation { createDropDownList(input: {name: "list"}) { id: listID } }');
    expect(await refusal('mutation($id: UUID!, $i: String!) { deleteDropDownListItems(id: $id, itemIds: $i) }', { id: listId, i: unknownId })).toMatchObject(notFound('itemIds'));
  });

  test("an administrator's upload over multipart /graphql: the document it names", async () => {
    const form = new FormData();
    const query = 'mutation($input: FileUploadInput!) { uploadFile(input: $input) { id } }';
    form.append('operations', JSON.stringify({ query, variables: { input: { documentId: unknownId, fileUpload: { name: 'a.txt', base64: 'aGk=' } } } }));
    form.append('map', '{}');
    const multipart = new Request('http://x/', { method: 'POST', body: form });
    const headers = { 'content-type': multipart.headers.get('content-type')! };
    const r = await h.request('POST', '/graphql', { token, raw: new Uint8Array(await multipart.arrayBuffer()), headers });
    expect(r.body.errors).toEqual([expect.objectContaining({ path: ['uploadFile'], extensions: expect.objectContaining(notFound('input.documentId')) })]);
  });

  test("the access policy's 404, before the write, names the body's key too; a path's id none", async () => {
    const password = 'Some-Passw0rd!x';
    await created('mutation($input: UserInput!) { createUser(input: $input) { id } }', { input: { userid: 'plain', password, firstName: 'A', lastName: 'B', emailaddress: '' } });
    const plain = await h.login(t, 'plain', password);
    expect(await refusal('mutation($f: UUID) { createDocument(input: {folderId: $f, name: "d"}) { id } }', { f: unknownId }, plain)).toMatchObject(notFound('input.folderId'));
    expect(await refusal('mutation($d: UUID) { uploadFile(input: {documentId: $d}) { id } }', { d: unknownId }, plain)).toMatchObject(notFound('input.documentId'));
    expect(await refusal('mutation($p: UUID) { addSecurityMember(input: {parentId: $p, memberId: "' + t.adminId + '", securityRole: "1"}) { __typename } }', { p: unknownId }, plain)).toMatchObject(notFound('input.parentId'));
    const byPath = await refusal('mutation($d: UUID!) { setDocumentExpiration(documentId: $d, input: {}) { id } }', { d: unknownId }, plain);
    expect(byPath.code).toBe('NOT_FOUND');
    expect(byPath).not.toHaveProperty('field');
  });
});

describe("a name taken by a create the pre-check did not see: the database's 409 names it as the check's would", () => {
  /**
   * `create`'s answer while another transaction holds an uncommitted row that `insert` made: its
   * check does not see the row, its own insert waits for that transaction, which then commits.
   */
  async function losingTheRace(insert: string, params: unknown[], create: () => Promise<{ errors?: GqlError[] }>) {
    const holder = await h.services.reads.connect();
    try {
      await holder.query('begin');
      await holder.query(insert, params);
      const { pid } = (await holder.query('select pg_backend_pid() as pid')).rows[0] as { pid: number };
      const answer = create();
      const blocked = async () =>
        (await h.services.reads.query('select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [pid])).rows[0].n > 0;
      for (let i = 0; !(await blocked()); i++) {
        if (i === 500) throw new Error('the create never waited for the row');
        await new Promise((r) => setTimeout(r, 20));
      }
      await holder.query('commit');
      const { errors } = await answer;
      expect(errors).toHaveLength(1);
      return { message: errors![0].message, ...errors![0].extensions };
    } finally {
      await holder.query('rollback').catch(() => {});
      holder.release();
    }
  }

  test("a group's name (a flush's violation)", async () => {
    const r = await losingTheRace('insert into user_group (id, tenant_id, name) values ($1, $2, $3)', [unknownId, t.tenantId, 'Raced group'], () =>
      gql('mutation { createGroup(input: {name: "raced GROUP", description: ""}) { id } }'),
    );
    expect(r).toMatchObject({ code: 'CONFLICT', field: 'input.name', message: "A group named 'raced GROUP' already exists." });
  });

  test("a drop-down list's name (an insert's violation, mapped where the error is answered)", async () => {
    const r = await losingTheRace('insert into dropdown_list (id, tenant_id, name) values ($1, $2, $3)', [unknownId, t.tenantId, 'Raced list'], () =>
      gql('mutation { createDropDownList(input: {name: "raced LIST"}) { id: listID } }'),
    );
    expect(r).toMatchObject({ code: 'CONFLICT', field: 'input.name', message: expect.stringMatching(/^Such drop-down list already exists \(it may have just been created\)/) });
  });

  /** A top-level folder at `/<name>`, inserted as a create that has not committed yet would. */
  const folderInsert = (id: string, name: string): [string, unknown[]] => ['insert into folder (id, tenant_id, top_id, name, path) values ($1, $2, $1, $3, $4)', [id, t.tenantId, name, `/${name}`]];

  test("a folder's path, by the key that carried it: name or folderPath", async () => {
    const byName = await losingTheRace(...folderInsert('0190aaaa-0000-7000-8000-000000000011', 'Raced folder'), () => gql('mutation { createFolder(input: {name: "raced FOLDER"}) { id } }'));
    expect(byName).toMatchObject({ code: 'CONFLICT', field: 'input.name', message: "A folder named 'Raced folder' already exists in '/'." });
    const byPath = await losingTheRace(...folderInsert('0190aaaa-0000-7000-8000-000000000012', 'Raced path'), () => gql('mutation { createFolder(input: {folderPath: "/raced PATH"}) { id } }'));
    expect(byPath).toMatchObject({ code: 'CONFLICT', field: 'input.folderPath', message: "The folder '/Raced path' already exists." });
  });

  test("a folder's new name (a rename's violation: the index's message, as REST's)", async () => {
    const id = await created('mutation { createFolder(input: {name: "Before rename"}) { id } }');
    const r = await losingTheRace(...folderInsert('0190aaaa-0000-7000-8000-000000000013', 'Raced rename'), () =>
      gql('mutation($id: UUID!) { updateFolder(id: $id, input: {name: "raced RENAME"}) { id } }', { id }),
    );
    expect(r).toMatchObject({ code: 'CONFLICT', field: 'input.name', message: 'Such folder already exists (it may have just been created): choose another or try again.' });
  });

  test("a folder move's or copy's landing path, by the target's key (the index's message, as REST's)", async () => {
    for (const [op, n] of [['moveFolder', 14], ['copyFolder', 15]] as const) {
      const name = `Raced ${op}`;
      await created('mutation($p: String) { createFolder(input: {folderPath: $p}) { id } }', { p: `/From ${op}/${name}` });
      const r = await losingTheRace(...folderInsert(`0190aaaa-0000-7000-8000-0000000000${n}`, name.toLowerCase()), () =>
        gql(`mutation($input: FolderMoveInput!) { ${op}(input: $input) { id } }`, { input: { sourceFolderPath: `/From ${op}/${name}`, targetFolderPath: '/' } }),
      );
      expect(r).toMatchObject({ code: 'CONFLICT', field: 'input.targetFolderPath', message: 'Such folder already exists (it may have just been created): choose another or try again.' });
    }
  });
});

describe('a value written in the query that GraphQL refuses is named as a refused variable is', () => {
  /** Every error of `query`: its message and extensions. */
  const refusals = async (query: string) => (await gql(query)).errors!.map((e) => ({ message: e.message, ...e.extensions }));
  const refused = (field: string) => ({ code: 'GRAPHQL_VALIDATION_FAILED', field });

  test('a key of an input, an item of a list, an argument; each of several', async () => {
    expect(await refusals('mutation { createSite(input: {name: 5, description: ""}) { id } }')).toEqual([expect.objectContaining(refused('input.name'))]);
    expect(await refusals('mutation { createGroup(input: {name: "g", description: "", siteId: "nope"}) { id } }')).toEqual([expect.objectContaining(refused('input.siteId'))]);
    const list = 'mutation { createDropDownList(input: {name: "l", items: [{itemName: "a"}, {itemName: 5}]}) { id: listID } }';
    expect(await refusals(list)).toEqual([expect.objectContaining(refused('input.items[1].itemName'))]);
    expect(await refusals('mutation { deleteGroup(id: "nope") }')).toEqual([expect.objectContaining(refused('id'))]);
    const two = await refusals('mutation { a: deleteGroup(id: 1) b: createSite(input: {name: true}) { id } }');
    expect(two.map((e) => e.field)).toEqual(['id', 'input.name']);
  });

  test("a key the input does not have: the input, as a variable's", async () => {
    expect(await refusals('mutation { createSite(input: {name: "s", nosuch: 1}) { id } }')).toEqual([expect.objectContaining(refused('input'))]);
  });

  test('the same document again, its validation cached: placed again', async () => {
    const query = 'mutation { createSite(input: {name: 6, description: ""}) { id } }';
    expect(await refusals(query)).toEqual([expect.objectContaining(refused('input.name'))]);
    expect(await refusals(query)).toEqual([expect.objectContaining(refused('input.name'))]);
  });

  test('an error about no one value written: none', async () => {
    const [missing] = await refusals('mutation { deleteGroup }');
    expect(missing.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(missing).not.toHaveProperty('field');
  });
});

describe("a nested field's refused argument is named as sent on that field, its path saying which field", () => {
  /** Every error of `query`: its path and extensions. */
  const refusals = async (query: string, variables: Record<string, unknown> = {}) =>
    ((await gql(query, variables)).errors as (GqlError & { path: (string | number)[] })[]).map((e) => ({ path: e.path, ...e.extensions }));
  const at = (path: (string | number)[], field: string) => expect.arrayContaining([expect.objectContaining({ path, code: 'BAD_REQUEST', field })]);

  test("a relation list's q, limit and offset; a variable's value alike", async () => {
    await created('mutation { createGroup(input: {name: "nested", description: ""}) { id } }');
    expect(await refusals('{ groups { items { users(q: "nosuchfield eq 1") { id } } } }')).toEqual(at(['groups', 'items', 0, 'users'], 'q'));
    expect(await refusals('{ groups { items { users(limit: -1) { id } } } }')).toEqual(at(['groups', 'items', 0, 'users'], 'limit'));
    expect(await refusals('query($o: Int) { groups { items { members: users(offset: $o) { id } } } }', { o: -2 })).toEqual(at(['groups', 'items', 0, 'members'], 'offset'));
  });

  test("a relation's page: its q, limit and offset", async () => {
    expect(await refusals('{ sites { items { usersPage(q: "[name] eq") { totalRecords } } } }')).toEqual(at(['sites', 'items', 0, 'usersPage'], 'q'));
    expect(await refusals('{ sites { items { usersPage(limit: -1) { items { id } } } } }')).toEqual(at(['sites', 'items', 0, 'usersPage'], 'limit'));
    expect(await refusals('{ me { groupsPage(offset: -1) { totalRecords } } }')).toEqual(at(['me', 'groupsPage'], 'offset'));
  });
});
