/**
 * /graphql's refusal of one input value names it in `extensions.field`, the path the schema gives
 * it (`input.name`, `id`), so that a form can show the message beside that input; other errors
 * have none, and REST's envelope is as it was.
 */
import { Harness, type TestTenant } from '../harness.js';
import { refusalCalls } from './refusal-calls.js';

let h: Harness;
let t: TestTenant;
let token: string;

// A small import limit, so that an XML over it is quick to send.
beforeAll(async () => ({ h, t, token } = await Harness.withTenant({ formImportMaxBytes: 4096 })));
afterAll(() => h.stop());

const { gql, refusal, created } = refusalCalls(() => ({ h, token }));

const CREATE_FOLDER = 'mutation($input: FolderInput!) { createFolder(input: $input) { id } }';
const CREATE_USER = 'mutation($siteId: UUID, $input: UserInput!) { createUser(siteId: $siteId, input: $input) { id } }';
const UPDATE_USER = 'mutation($id: UUID!, $input: UserInput!) { updateUser(id: $id, input: $input) { id } }';
const CREATE_GROUP = 'mutation($input: GroupInput!) { createGroup(input: $input) { id } }';
const UPDATE_GROUP = 'mutation($id: UUID!, $input: GroupInput!) { updateGroup(id: $id, input: $input) { id } }';
const CREATE_SITE = 'mutation($input: SiteInput!) { createSite(input: $input) { id } }';
const UPDATE_SITE = 'mutation($id: UUID!, $input: SiteInput!) { updateSite(id: $id, input: $input) { id } }';
const user = (userid: string) => ({ userid, password: 'Some-Passw0rd!x', firstName: 'A', lastName: 'B', emailaddress: '' });
const unknownId = '0190aaaa-0000-7000-8000-000000000001';

describe('users', () => {
  test('a create names the missing, blank, too long or taken value', async () => {
    expect(await refusal(CREATE_USER, { input: { ...user('u1'), lastName: undefined } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.lastName' });
    expect(await refusal(CREATE_USER, { input: { ...user('u1'), password: ' ' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.password' });
    expect(await refusal(CREATE_USER, { input: { ...user('u1'), firstName: 'x'.repeat(129) } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.firstName' });
    await created(CREATE_USER, { input: user('taken') });
    expect(await refusal(CREATE_USER, { input: user('TAKEN') })).toMatchObject({ code: 'CONFLICT', field: 'input.userid' });
  });

  test('a site id is named where it was sent: the argument, or the input', async () => {
    expect(await refusal(CREATE_USER, { siteId: unknownId, input: user('u2') })).toMatchObject({ code: 'BAD_REQUEST', field: 'siteId' });
    expect(await refusal(CREATE_USER, { input: { ...user('u2'), siteId: unknownId } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.siteId' });
  });

  test('an update names the value, in the schema spelling where the message uses the legacy one', async () => {
    const id = await created(CREATE_USER, { input: user('u3') });
    expect(await refusal(UPDATE_USER, { id, input: { middleInitial: 'x'.repeat(9) } })).toMatchObject({ field: 'input.middleInitial' });
    expect(await refusal(UPDATE_USER, { id: t.adminId, input: { enabled: false } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.enabled' });
    // The message says 'userid', as the legacy body spells it; UserIdChangeInput spells it userId.
    const taken = await refusal('mutation($id: UUID!, $input: UserIdChangeInput!) { changeUserId(id: $id, input: $input) { id } }', { id, input: { userId: 'taken' } });
    expect(taken).toMatchObject({ code: 'CONFLICT', field: 'input.userId' });
  });
});

describe('groups and sites', () => {
  test('a group create and update name the blank, too long or taken name', async () => {
    expect(await refusal(CREATE_GROUP, { input: { name: ' ', description: '' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name' });
    expect(await refusal(CREATE_GROUP, { input: { name: 'g' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.description' });
    await created(CREATE_GROUP, { input: { name: 'Taken group', description: '' } });
    expect(await refusal(CREATE_GROUP, { input: { name: 'taken GROUP', description: '' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
    const id = await created(CREATE_GROUP, { input: { name: 'g2', description: '' } });
    expect(await refusal(UPDATE_GROUP, { id, input: { description: 'd'.repeat(4001) } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.description' });
    expect(await refusal(UPDATE_GROUP, { id, input: { name: 'a\u0007b' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name' });
  });

  test('group members: the list of ids by the key it came in', async () => {
    const id = await created(CREATE_GROUP, { input: { name: 'members', description: '' } });
    const add = 'mutation($groupId: UUID!, $input: GroupMembersInput!) { addGroupUsers(groupId: $groupId, input: $input) { id } }';
    expect(await refusal(add, { groupId: id, input: { userIds: 'nope' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.userIds' });
    expect(await refusal(add, { groupId: id, input: {} })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.id' });
  });

  test('a site create and update name the value; changeUserSite its newSiteId', async () => {
    expect(await refusal(CREATE_SITE, { input: { description: '' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name' });
    const id = await created(CREATE_SITE, { input: { name: 's1', description: '' } });
    expect(await refusal(UPDATE_SITE, { id, input: { siteType: 't'.repeat(65) } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.siteType' });
    const move = 'mutation($input: ChangeUserSiteInput!) { changeUserSite(input: $input) { id } }';
    expect(await refusal(move, { input: { userId: t.adminId, newSiteId: unknownId } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.newSiteId' });
  });
});

describe('folders, index fields and form templates', () => {
  const UPDATE_FOLDER = 'mutation($id: UUID!, $input: FolderInput!) { updateFolder(id: $id, input: $input) { id } }';
  const CREATE_FIELD = 'mutation($input: IndexFieldInput!) { createIndexField(input: $input) { id } }';
  const UPDATE_FIELD = 'mutation($id: UUID!, $input: IndexFieldInput!) { updateIndexField(id: $id, input: $input) { id } }';
  const CREATE_TEMPLATE = 'mutation($input: FormTemplateInput!) { createFormTemplate(input: $input) { id } }';
  const ADD_FIELD = 'mutation($id: String!, $input: FormFieldInput!) { addFormTemplateField(id: $id, input: $input) { id } }';

  test('a folder create and update name the name or path refused, or taken', async () => {
    expect(await refusal(CREATE_FOLDER, { input: { description: 'd' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name' });
    expect(await refusal(CREATE_FOLDER, { input: { name: 'a/b' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name' });
    expect(await refusal(CREATE_FOLDER, { input: { folderPath: '/A/..' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.folderPath' });
    const id = await created(CREATE_FOLDER, { input: { name: 'Top' } });
    expect(await refusal(CREATE_FOLDER, { input: { name: 'TOP' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
    expect(await refusal(CREATE_FOLDER, { input: { folderPath: '/top' } })).toMatchObject({ code: 'CONFLICT', field: 'input.folderPath' });
    expect(await refusal(UPDATE_FOLDER, { id, input: { description: 'd'.repeat(4001) } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.description' });
    expect(await refusal(UPDATE_FOLDER, { id, input: { name: 'x\u0001' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name' });
  });

  test("a folder move's or copy's landing path taken names the target's key, as sent", async () => {
    const destId = await created(CREATE_FOLDER, { input: { name: 'Dest' } });
    for (const folderPath of ['/Dest/Dup', '/Src/Dup']) await created(CREATE_FOLDER, { input: { folderPath } });
    for (const op of ['moveFolder', 'copyFolder']) {
      const q = `mutation($input: FolderMoveInput!) { ${op}(input: $input) { id } }`;
      const taken = (field: string) => ({ code: 'CONFLICT', field, message: "The folder '/Dest/Dup' already exists." });
      expect(await refusal(q, { input: { sourceFolderPath: '/Src/Dup', targetFolderId: destId } })).toMatchObject(taken('input.targetFolderId'));
      expect(await refusal(q, { input: { sourceFolderPath: '/Src/Dup', targetFolderPath: '/Dest' } })).toMatchObject(taken('input.targetFolderPath'));
    }
    const intoItsParent = await refusal('mutation($input: FolderMoveInput!) { copyFolder(input: $input) { id } }', { input: { sourceFolderPath: '/Src/Dup', targetFolderPath: '/src' } });
    expect(intoItsParent).toMatchObject({ code: 'CONFLICT', field: 'input.targetFolderPath', message: "The folder '/Src/Dup' already exists." });
  });

  test("a new folder whose name a folder the caller may not see has: the create's key", async () => {
    const editorId = await created(CREATE_USER, { input: user('folder-editor') });
    const SET_MEMBER = 'mutation($f: UUID!, $m: UUID!, $r: String) { setFolderSecurityMember(folderId: $f, memberId: $m, input: {securityRole: $r}) { __typename } }';
    const CREATE_CHILD = 'mutation($id: UUID!, $input: FolderInput!) { createChildFolder(id: $id, input: $input) { id } }';
    const top = await created(CREATE_FOLDER, { input: { name: 'Shared top' } });
    expect((await gql(SET_MEMBER, { f: top, m: editorId, r: '2' })).errors).toBeUndefined();
    const hidden = await created(CREATE_CHILD, { id: top, input: { name: 'Hidden' } });
    // Its members: the administrator alone (a folder without members is open to everyone).
    expect((await gql(SET_MEMBER, { f: hidden, m: t.adminId, r: '1' })).errors).toBeUndefined();
    expect((await gql('mutation($f: UUID!, $m: UUID!) { removeFolderSecurityMember(folderId: $f, memberId: $m) { __typename } }', { f: hidden, m: editorId })).errors).toBeUndefined();
    const editor = await h.login(t, 'folder-editor', user('folder-editor').password);
    expect(await refusal(CREATE_CHILD, { id: top, input: { name: 'hidden' } }, editor)).toMatchObject({
      code: 'CONFLICT',
      field: 'input.name',
      message: "A folder named 'hidden' already exists in '/Shared top' (one you may not see): choose another name.",
    });
  });

  test('an index field create and update name the type, label or default refused', async () => {
    expect(await refusal(CREATE_FIELD, { input: { fieldType: 'Colour', label: 'f1' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.fieldType' });
    expect(await refusal(CREATE_FIELD, { input: { fieldType: 'Text' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.label' });
    expect(await refusal(CREATE_FIELD, { input: { fieldType: 'Numeric', label: 'n1', defaultValue: 'many' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.defaultValue' });
    const id = await created(CREATE_FIELD, { input: { fieldType: 'Text', label: 'Taken label' } });
    expect(await refusal(CREATE_FIELD, { input: { fieldType: 'Text', label: 'taken LABEL' } })).toMatchObject({ code: 'CONFLICT', field: 'input.label' });
    expect(await refusal(UPDATE_FIELD, { id, input: { fieldType: 'Date' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.fieldType' });
    expect(await refusal(UPDATE_FIELD, { id, input: { queryId: unknownId } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.queryId' });
  });

  test("a form template's create and a field's add name the name, type or option refused", async () => {
    expect(await refusal(CREATE_TEMPLATE, { input: { name: ' ' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name' });
    await created(CREATE_TEMPLATE, { input: { name: 'Taken form' } });
    expect(await refusal(CREATE_TEMPLATE, { input: { name: 'taken FORM' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
    expect(await refusal(ADD_FIELD, { id: 'Taken form', input: { name: 'createdate' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name' });
    expect(await refusal(ADD_FIELD, { id: 'Taken form', input: { name: 'f', fieldType: 999 } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.fieldType' });
    expect(await refusal(ADD_FIELD, { id: 'Taken form', input: { name: 'f', options: ['a', 'o'.repeat(401)] } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.options[1]' });
    await created(ADD_FIELD, { id: 'Taken form', input: { name: 'f' } });
    expect(await refusal(ADD_FIELD, { id: 'Taken form', input: { name: 'F' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
  });
});

describe('drop-down lists', () => {
  const CREATE_LIST = 'mutation($input: DropDownListInput!) { createDropDownList(input: $input) { id: listID } }';
  const UPDATE_LIST = 'mutation($id: UUID!, $input: DropDownListInput!) { updateDropDownList(id: $id, input: $input) { id: listID } }';
  const DELETE_ITEMS = 'mutation($id: UUID!, $itemIds: String!) { deleteDropDownListItems(id: $id, itemIds: $itemIds) }';

  test('a create and update name the taken name, the item refused or the ids of a delete', async () => {
    const id = await created(CREATE_LIST, { input: { name: 'Taken list' } });
    expect(await refusal(CREATE_LIST, { input: { name: 'taken LIST' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
    expect(await refusal(CREATE_LIST, { input: { name: 'l1', items: [{ itemName: 'a' }, { itemValue: 'b' }] } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.items[1].itemName' });
    expect(await refusal(UPDATE_LIST, { id, input: { items: [{ itemName: ' ' }] } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.items[0].itemName' });
    expect(await refusal(UPDATE_LIST, { id, input: { items: Array.from({ length: 10_001 }, () => ({ itemName: 'i' })) } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.items' });
    expect(await refusal(DELETE_ITEMS, { id, itemIds: ' , ' })).toMatchObject({ code: 'BAD_REQUEST', field: 'itemIds' });
    expect(await refusal(DELETE_ITEMS, { id, itemIds: 'nope' })).toMatchObject({ code: 'BAD_REQUEST', field: 'itemIds' });
  });
});

describe('documents and their index values', () => {
  const CREATE_DOC = 'mutation($input: DocumentInput!) { createDocument(input: $input) { id } }';
  const SET_VALUE = 'mutation($d: UUID!, $f: UUID!, $input: DocumentIndexFieldInput!) { setDocumentIndexField(documentId: $d, fieldId: $f, input: $input) { id } }';
  const SET_VALUES = 'mutation($d: UUID!, $input: DocumentIndexFieldsInput!) { setDocumentIndexFields(documentId: $d, input: $input) { totalRecords } }';

  /** A document in a new folder with a numeric index field. */
  const indexedDocument = async (name: string) => {
    const folderId = await created('mutation($input: FolderInput!) { createFolder(input: $input) { id } }', { input: { name } });
    const fieldId = await created('mutation($input: IndexFieldInput!) { createIndexField(input: $input) { id } }', { input: { fieldType: 'Numeric', label: `${name} number` } });
    expect((await gql('mutation($id: UUID!, $f: UUID!) { relateIndexFieldToFolder(id: $id, folderId: $f) { id } }', { id: fieldId, f: folderId })).errors).toBeUndefined();
    return { folderId, fieldId, documentId: await created(CREATE_DOC, { input: { folderId, name: 'doc' } }) };
  };

  test("a document's dates, check-in status and revision id", async () => {
    const { folderId, documentId } = await indexedDocument('Docs');
    expect(await refusal(CREATE_DOC, { input: { folderId, name: 'd', reviewDate: 'soon' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.reviewDate' });
    const dates = 'mutation($d: UUID!, $input: DocumentDatesInput!) { setDocumentDates(documentId: $d, input: $input) { id } }';
    expect(await refusal(dates, { d: documentId, input: { expirationDate: 'never' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.expirationDate' });
    const status = 'mutation($d: UUID!, $input: DocumentStatusInput!) { setDocumentCheckIn(documentId: $d, input: $input) { id } }';
    expect(await refusal(status, { d: documentId, input: {} })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.checkIn' });
    expect(await refusal(status, { d: documentId, input: { checkIn: 2 } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.checkIn' });
    const own = await created('mutation($input: DocumentInput!) { createDocument(input: $input) { id: documentId } }', { input: { folderId, name: 'own' } });
    expect(await refusal('mutation($r: UUID!) { deleteDocumentRevision(revisionId: $r) }', { r: own })).toMatchObject({ code: 'BAD_REQUEST', field: 'revisionId' });
  });

  test('an upload names its missing file, its contentType or fileLength, a revision label taken', async () => {
    const { documentId } = await indexedDocument('Uploads');
    const UPLOAD = 'mutation($input: FileUploadInput!) { uploadFile(input: $input) { id } }';
    const file = { name: 'a.txt', base64: 'aGk=' };
    expect(await refusal(UPLOAD, { input: { documentId } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.fileUpload' });
    expect(await refusal(UPLOAD, { input: { documentId, fileUpload: file, contentType: 'text' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.contentType' });
    expect(await refusal(UPLOAD, { input: { documentId, fileUpload: file, fileLength: '3' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.fileLength' });
    await created(UPLOAD, { input: { documentId, fileUpload: file } });
    expect(await refusal(UPLOAD, { input: { documentId, fileUpload: file, revision: '1' } })).toMatchObject({ code: 'CONFLICT', field: 'input.revision' });
  });

  test('one value by the key that brought it: value, or indexFields', async () => {
    const { fieldId, documentId } = await indexedDocument('Indexed');
    expect(await refusal(SET_VALUE, { d: documentId, f: fieldId, input: {} })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.value' });
    expect(await refusal(SET_VALUE, { d: documentId, f: fieldId, input: { value: 'many' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.value' });
    expect(await refusal(SET_VALUES, { d: documentId, input: {} })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.indexFields' });
    expect(await refusal(SET_VALUES, { d: documentId, input: { indexFields: '[' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.indexFields' });
    expect(await refusal(SET_VALUES, { d: documentId, input: { indexFields: [] } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.indexFields' });
    expect(await refusal(SET_VALUES, { d: documentId, input: { indexFields: { nosuch: '1' } } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.indexFields' });
    expect(await refusal(SET_VALUES, { d: documentId, input: { indexFields: { 'Indexed number': 'x'.repeat(5000) } } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.indexFields' });
    expect(await refusal(SET_VALUES, { d: documentId, input: { indexFields: [{ [fieldId]: 'many' }] } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.indexFields' });
  });
});

describe('persisted data and form instances', () => {
  const CREATE_DATA = 'mutation($input: PersistedDataInput!) { createPersistedData(input: $input) { id } }';
  const CREATE_FORM = 'mutation($t: String!, $input: JSON, $pd: UUID) { createFormInstance(templateId: $t, input: $input, persistedDataId: $pd) { id: revisionId } }';
  const REVISE = 'mutation($r: UUID!, $input: JSON) { reviseForm(formId: $r, input: $input) { id: revisionId } }';

  test('a dictionary names its data, linked object type or expiration', async () => {
    expect(await refusal(CREATE_DATA, { input: { name: 'p' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.persistedData' });
    expect(await refusal(CREATE_DATA, { input: { name: 'p', persistedData: '[1]' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.persistedData' });
    expect(await refusal(CREATE_DATA, { input: { name: 'p', persistedData: {}, linkedObjectType: 50 } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.linkedObjectType' });
    // Past an Int: the codes it takes, not an Int's range.
    expect((await refusal(CREATE_DATA, { input: { name: 'p', persistedData: {}, linkedObjectType: 99999999999 } })).message).toContain('Expected a whole number from 0 to 16, or 99, got 99999999999');
    // Its text is the code, as a form sends it.
    const made = await gql(`${CREATE_DATA.replace('{ id }', '{ id linkedObjectType }')}`, { input: { name: 'p', persistedData: {}, linkedObjectType: ' 16' } });
    expect(made.data?.createPersistedData).toMatchObject({ linkedObjectType: 16 });
    expect(await refusal(CREATE_DATA, { input: { name: 'p', persistedData: {}, expirationDateUtc: '2000-01-01T00:00:00Z' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.expirationDateUtc' });
  });

  test("a form's values by their key in input; several refused together, none", async () => {
    const t = await created('mutation($input: FormTemplateInput!) { createFormTemplate(input: $input) { id } }', { input: { name: 'Form values' } });
    const add = 'mutation($id: String!, $input: FormFieldInput!) { addFormTemplateField(id: $id, input: $input) { id } }';
    for (const name of ['colour', 'size']) await created(add, { id: t, input: { name, required: name === 'size' } });
    expect(await refusal(CREATE_FORM, { t, input: [] })).toMatchObject({ code: 'BAD_REQUEST', field: 'input' });
    expect(await refusal(CREATE_FORM, { t, input: { size: '1', colour: { red: true } } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.colour' });
    expect(await refusal(CREATE_FORM, { t, input: { size: 'x'.repeat(100_001) } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.size' });
    expect(await refusal(CREATE_FORM, { t, input: { size: '1', weight: '2' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.weight' });
    expect(await refusal(CREATE_FORM, { t, input: { colour: 'red' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.size' });
    const several = await refusal(CREATE_FORM, { t, input: { size: '1', weight: '2', height: '3' } });
    expect(several.code).toBe('BAD_REQUEST');
    expect(several).not.toHaveProperty('field');
    // A dictionary stored before NUL was refused: its value is named by the argument that brought it.
    const pd = await created(CREATE_DATA, { input: { name: 'old', scope: 1, persistedData: { colour: 'x' } } });
    await h.orm.em.getConnection().execute('update persisted_data set data = ? where id = ?', ['{"colour":"a\\u0000b"}', pd]);
    expect(await refusal(CREATE_FORM, { t, input: { size: '1' }, pd })).toMatchObject({ code: 'BAD_REQUEST', field: 'persistedDataId' });
    const form = await created(CREATE_FORM, { t, input: { size: '1' } });
    expect(await refusal(REVISE, { r: form, input: { size: ' ' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.size' });
  });
});

describe('e-mails, scripts and scheduled processes', () => {
  const SEND = 'mutation($input: EmailInput!) { sendEmail(input: $input) { __typename } }';
  const CREATE_SCRIPT = 'mutation($input: ScriptInput!) { createScript(input: $input) { id } }';
  const CREATE_PROCESS = 'mutation($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { id } }';

  test("an e-mail names the address list, or the document it cannot attach; too many in all, none", async () => {
    expect(await refusal(SEND, { input: { subject: 's' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.recipients' });
    expect(await refusal(SEND, { input: { recipients: ['a@example.com'], ccRecipients: ['not an address <x>'] } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.ccRecipients' });
    expect(await refusal(SEND, { input: { recipients: ['a@example.com'], documents: [unknownId] } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.documents' });
    const many = await refusal(SEND, { input: { recipients: Array.from({ length: 101 }, (_, i) => `a${i}@example.com`) } });
    expect(many.code).toBe('BAD_REQUEST');
    expect(many).not.toHaveProperty('field');
  });

  test('a script names its missing or blank source or name, or its taken name; runScript the name it needs', async () => {
    // Missing, it is refused as any missing mandatory field is; blank (empty or spaces), as blank.
    for (const input of [{ name: 's1' }, { name: 's1', source: null }]) {
      expect(await refusal(CREATE_SCRIPT, { input })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.source', message: "The mandatory field 'source' is missing." });
    }
    for (const source of ['', ' \n ']) {
      expect(await refusal(CREATE_SCRIPT, { input: { name: 's1', source } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.source', message: "The field 'source' must not be blank." });
    }
    for (const input of [{ source: 'x' }, { name: null, source: 'x' }]) {
      expect(await refusal(CREATE_SCRIPT, { input })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name', message: "The mandatory field 'name' is missing." });
    }
    expect(await refusal(CREATE_SCRIPT, { input: { name: ' ', source: 'x' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name', message: "The field 'name' must not be blank." });
    await created(CREATE_SCRIPT, { input: { name: 'Taken script', source: 'x' } });
    expect(await refusal(CREATE_SCRIPT, { input: { name: 'taken SCRIPT', source: 'x' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
    expect(await refusal('mutation { runScript(name: " ") }')).toMatchObject({ code: 'BAD_REQUEST', field: 'name' });
  });

  test('a scheduled process names its script, interval, next run or taken name; a run report its action', async () => {
    await created(CREATE_SCRIPT, { input: { name: 'For processes', source: 'x' } });
    const p = { name: 'p1', script: 'For processes', intervalMinutes: 5 };
    expect(await refusal(CREATE_PROCESS, { input: { ...p, script: ' ' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.script' });
    expect(await refusal(CREATE_PROCESS, { input: { ...p, script: 'no such script' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.script' });
    expect(await refusal(CREATE_PROCESS, { input: { ...p, intervalMinutes: undefined } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.intervalMinutes' });
    expect(await refusal(CREATE_PROCESS, { input: { ...p, intervalMinutes: 0 } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.intervalMinutes' });
    expect(await refusal(CREATE_PROCESS, { input: { ...p, nextRunDate: 'tomorrow' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.nextRunDate' });
    await created(CREATE_PROCESS, { input: { ...p, name: 'Taken process' } });
    expect(await refusal(CREATE_PROCESS, { input: { ...p, name: 'taken PROCESS' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
    const report = 'mutation($t: UUID!) { completeScheduledRun(token: $t, action: "done") { id } }';
    expect(await refusal(report, { t: unknownId })).toMatchObject({ code: 'BAD_REQUEST', field: 'action' });
  });
});

describe('folder security, saved searches, document types and alerts', () => {
  const SET_MEMBER = 'mutation($f: UUID!, $m: UUID!, $input: SecurityMemberInput!) { setFolderSecurityMember(folderId: $f, memberId: $m, input: $input) { successCount } }';
  const SET_MEMBERS = 'mutation($f: UUID!, $input: SecurityActionsInput!) { updateFolderSecurityMembers(folderId: $f, input: $input) { successCount } }';
  const CREATE_SEARCH = 'mutation($input: SavedSearchInput!) { createSavedSearch(input: $input) { id } }';
  const UPDATE_SEARCH = 'mutation($id: UUID!, $input: SavedSearchInput!) { updateSavedSearch(asid: $id, input: $input) { id } }';
  const CREATE_TYPE = 'mutation($input: DocumentTypeInput!) { createDocumentType(input: $input) { id } }';
  const UPDATE_TYPE = 'mutation($id: UUID!, $input: DocumentTypeInput!) { updateDocumentType(id: $id, input: $input) { id } }';

  test("a member's role or type, an action's key by its index, or the list of actions", async () => {
    const f = await created(CREATE_FOLDER, { input: { name: 'Secured' } });
    const m = t.adminId;
    expect(await refusal(SET_MEMBER, { f, m, input: {} })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.securityRole' });
    expect(await refusal(SET_MEMBER, { f, m, input: { role: 'Boss' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.role' });
    expect(await refusal(SET_MEMBER, { f, m, input: { securityRole: '2', memberType: 'robot' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.memberType' });
    const add = 'mutation($input: SecurityMemberInput!) { addSecurityMember(input: $input) { memberId } }';
    expect(await refusal(add, { input: { parentId: f, memberId: m, securityRole: '9' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.securityRole' });
    expect(await refusal(SET_MEMBERS, { f, input: {} })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.securityActions' });
    const many = Array.from({ length: 1001 }, () => ({ memberId: m, roleType: '1' }));
    expect(await refusal(SET_MEMBERS, { f, input: { securityActions: many } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.securityActions' });
    const actions = (last: Record<string, unknown>) => ({ securityActions: [{ memberId: m, roleType: '1' }, { memberId: m, ...last }] });
    expect(await refusal(SET_MEMBERS, { f, input: actions({ action: 'Move' }) })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.securityActions[1].action' });
    expect(await refusal(SET_MEMBERS, { f, input: actions({ roleType: 'nope' }) })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.securityActions[1].roleType' });
    expect(await refusal(SET_MEMBERS, { f, input: actions({ roleType: '1', memberType: '7' }) })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.securityActions[1].memberType' });
  });

  test('a member id that names no user or group, by the key that sent it', async () => {
    const f = await created(CREATE_FOLDER, { input: { name: 'Secured 2' } });
    const add = 'mutation($input: SecurityMemberInput!) { addSecurityMember(input: $input) { memberId } }';
    expect(await refusal(add, { input: { parentId: f, memberId: unknownId, securityRole: '2' } })).toMatchObject({ code: 'NOT_FOUND', field: 'input.memberId' });
    expect(await refusal(SET_MEMBER, { f, m: unknownId, input: { securityRole: '2', memberType: 'group' } })).toMatchObject({ code: 'NOT_FOUND', field: 'memberId' });
    const actions = { securityActions: [{ memberId: t.adminId, roleType: '1' }, { memberId: unknownId, roleType: '2' }] };
    expect(await refusal(SET_MEMBERS, { f, input: actions })).toMatchObject({ code: 'NOT_FOUND', field: 'input.securityActions[1].memberId' });
    // The folder is the record the call is about: its 404 names none.
    expect(await refusal(SET_MEMBER, { f: unknownId, m: t.adminId, input: { securityRole: '2' } })).not.toHaveProperty('field');
  });

  test('a saved search names its taken name or its q; a folder sent twice over, none', async () => {
    await created(CREATE_SEARCH, { input: { name: 'Taken search' } });
    expect(await refusal(CREATE_SEARCH, { input: { name: 'taken SEARCH' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
    const id = await created(CREATE_SEARCH, { input: { name: 'search 2' } });
    expect(await refusal(UPDATE_SEARCH, { id, input: { name: 'TAKEN search' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
    expect(await refusal(UPDATE_SEARCH, { id, input: { q: '[name] eq' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.q' });
    expect(await refusal(CREATE_SEARCH, { input: { name: 'search 4', folderId: unknownId } })).toMatchObject({ code: 'NOT_FOUND', field: 'input.folderId' });
    expect(await refusal(UPDATE_SEARCH, { id, input: { folderPath: '/No such folder' } })).toMatchObject({ code: 'NOT_FOUND', field: 'input.folderPath' });
    const both = await refusal(CREATE_SEARCH, { input: { name: 'search 3', folderId: unknownId, folderPath: '/x' } });
    expect(both.code).toBe('BAD_REQUEST');
    expect(both).not.toHaveProperty('field');
  });

  test("a document type names its missing or taken name; name and documentTypeName at odds, none", async () => {
    expect(await refusal(CREATE_TYPE, { input: { description: 'd' } })).toMatchObject({ code: 'BAD_REQUEST', field: 'input.name' });
    await created(CREATE_TYPE, { input: { documentTypeName: 'Taken type' } });
    expect(await refusal(CREATE_TYPE, { input: { name: 'taken TYPE' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
    const id = await created(CREATE_TYPE, { input: { name: 'type 2' } });
    expect(await refusal(UPDATE_TYPE, { id, input: { name: 'TAKEN type' } })).toMatchObject({ code: 'CONFLICT', field: 'input.name' });
    const odds = await refusal(CREATE_TYPE, { input: { name: 'a', documentTypeName: 'b' } });
    expect(odds.code).toBe('BAD_REQUEST');
    expect(odds).not.toHaveProperty('field');
  });

  test('an alert names the event that does not apply to its target, a user usId names not; a deleted document, none', async () => {
    const folderId = await created(CREATE_FOLDER, { input: { name: 'Alerted' } });
    const d = await created('mutation($input: DocumentInput!) { createDocument(input: $input) { id: documentId } }', { input: { folderId, name: 'doc' } });
    const subscribe = 'mutation($d: UUID!, $e: UUID!) { subscribeDocumentAlert(documentId: $d, eventId: $e) { id } }';
    const documentAdded = '3702cfbf-555c-4032-bfb2-e25829788bac';
    expect(await refusal(subscribe, { d, e: documentAdded })).toMatchObject({ code: 'BAD_REQUEST', field: 'eventId' });
    const forSomeone = 'mutation($f: UUID!, $e: UUID!, $u: String) { subscribeFolderAlert(id: $f, eventId: $e, usId: $u) { id } }';
    expect(await refusal(forSomeone, { f: folderId, e: documentAdded, u: 'nobody' })).toMatchObject({ code: 'NOT_FOUND', field: 'usId' });
    expect((await gql('mutation($d: UUID!) { deleteDocument(documentId: $d) }', { d })).errors).toBeUndefined();
    const deleted = await refusal(subscribe, { d, e: '82798fa6-7f46-4ce3-998f-8025aba4bcb1' });
    expect(deleted.code).toBe('CONFLICT');
    expect(deleted).not.toHaveProperty('field');
  });
});

describe('a form template import names the XML, its message the element at fault', () => {
  const IMPORT = 'mutation($id: String!, $input: FormTemplateImportInput!) { importFormTemplate(id: $id, input: $input) { id } }';
  const xml = (fields: string) => `<FormEntity><FormPages><FormPage><FieldList>${fields}</FieldList></FormPage></FormPages></FormEntity>`;
  const field = (name: string, type = 'TextBox', inner = '') => `<BaseField><FieldType>${type}</FieldType><Name>${name}</Name>${inner}</BaseField>`;

  test('malformed, a DOCTYPE, too large; a field, its type or an item refused', async () => {
    const id = await created('mutation($input: FormTemplateInput!) { createFormTemplate(input: $input) { id } }', { input: { name: 'Imported' } });
    const refused = (fileUpload: string) => refusal(IMPORT, { id, input: { fileUpload } });
    expect(await refused('<FormEntity>')).toMatchObject({ code: 'BAD_REQUEST', field: 'input.fileUpload' });
    expect(await refused('<!DOCTYPE x [<!ENTITY e "e">]><FormEntity/>')).toMatchObject({ code: 'BAD_REQUEST', field: 'input.fileUpload' });
    expect(await refused(xml(field('a'.repeat(5000))))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', field: 'input.fileUpload' });
    expect(await refused(xml(field('colour', 'Hologram')))).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining("'colour'"), field: 'input.fileUpload' });
    expect(await refused(xml(field('createdate')))).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining("'createdate'"), field: 'input.fileUpload' });
    expect(await refused(xml(field('size', 'DropDownList', `<ItemList><string>s</string><string>${'m'.repeat(401)}</string></ItemList>`))))
      .toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^Item 2 of the field 'size'/), field: 'input.fileUpload' });
  });

  // The XML's check lower-cases names as JavaScript does ('ΑΣ' to 'ας', a final sigma), the unique
  // index as PostgreSQL's lower() does ('ασ'): a pair only the index finds alike is the XML's fault too,
  // not `input.name` (which the import ignores).
  test('two field names alike only as the database compares them: the XML', async () => {
    const id = await created('mutation($input: FormTemplateInput!) { createFormTemplate(input: $input) { id } }', { input: { name: 'Sigma' } });
    const r = await refusal(IMPORT, { id, input: { fileUpload: xml(field('ΑΣ') + field('ασ')), name: 'ignored' } });
    expect(r).toMatchObject({ code: 'BAD_REQUEST', field: 'input.fileUpload', message: expect.stringMatching(/^The template XML names two fields alike/) });
  });
});

test("a read's arguments: its q, limit or path", async () => {
  expect(await refusal('{ groups(q: "[name] eq") { totalRecords } }')).toMatchObject({ code: 'BAD_REQUEST', field: 'q' });
  expect(await refusal('{ groups(limit: -1) { totalRecords } }')).toMatchObject({ code: 'BAD_REQUEST', field: 'limit' });
  expect(await refusal('{ folderByPath(folderPath: "/") { id } }')).toMatchObject({ code: 'BAD_REQUEST', field: 'folderPath' });
});

describe('errors about no one value have no field', () => {
  test('a record not found, a refusal of the record, a permission', async () => {
    const notFound = await refusal(UPDATE_GROUP, { id: unknownId, input: { description: 'x' } });
    expect(notFound.code).toBe('NOT_FOUND');
    expect(notFound).not.toHaveProperty('field');
    const self = await refusal('mutation($id: UUID!) { deleteUser(id: $id) }', { id: t.adminId });
    expect(self.code).toBe('BAD_REQUEST');
    expect(self).not.toHaveProperty('field');
    const nothing = await refusal(UPDATE_GROUP, { id: await created(CREATE_GROUP, { input: { name: 'g3', description: '' } }), input: {} });
    expect(nothing).toMatchObject({ code: 'BAD_REQUEST', message: 'Send at least one of: name, description, siteId.' });
    expect(nothing).not.toHaveProperty('field');
    await created(CREATE_USER, { input: user('plain') });
    const denied = await refusal(CREATE_GROUP, { input: { name: ' ' } }, await h.login(t, 'plain', user('plain').password));
    expect(denied.code).toBe('FORBIDDEN');
    expect(denied).not.toHaveProperty('field');
  });
});

describe('a variable GraphQL refuses is named by the argument it stands for', () => {
  test('inside an input, whatever the variable is called', async () => {
    const r = await refusal('mutation($u: UserInput!) { createUser(input: $u) { id } }', { u: { ...user('v1'), siteId: 'not-a-guid' } });
    expect(r.field).toBe('input.siteId');
    expect(r.message).toMatch(/^Variable "\$u" got invalid value "not-a-guid" at "u.siteId"; /);
  });

  test('a variable given inside a literal, and a variable itself', async () => {
    expect((await refusal('mutation($n: String) { createGroup(input: {name: $n, description: ""}) { id } }', { n: 5 })).field).toBe('input.name');
    expect((await refusal('mutation($id: UUID!) { deleteGroup(id: $id) }', {})).field).toBe('id');
  });
});

test('REST answers a refusal with the envelope it always had: meta.errors holds code, message and developerMessage only', async () => {
  const envelope = (method: string, path: string, code: string, message: string, developerMessage = message) =>
    JSON.stringify({ meta: { status: code === 'CONFLICT' ? 409 : 400, statusMsg: code === 'CONFLICT' ? 'Conflict' : 'Bad Request', method, href: `http://quire.test${t.root}${path}`, errors: [{ code, message, developerMessage }] } });
  const blank = await h.request('POST', `${t.root}/groups`, { token, body: { name: ' ', description: '' } });
  expect(blank.text).toBe(envelope('POST', '/groups', 'BAD_REQUEST', "The field 'name' must not be blank."));
  await h.request('POST', `${t.root}/groups`, { token, body: { name: 'REST taken', description: '' } });
  const taken = await h.request('POST', `${t.root}/groups`, { token, body: { name: 'rest TAKEN', description: '' } });
  expect(taken.text).toBe(envelope('POST', '/groups', 'CONFLICT', "A group named 'rest TAKEN' already exists."));
  const q = await h.request('GET', `${t.root}/groups?q=${encodeURIComponent('[name] eq')}`, { token });
  expect(JSON.parse(q.text).meta.errors).toEqual([{ code: 'BAD_REQUEST', message: expect.stringMatching(/^Invalid q: /), developerMessage: expect.stringMatching(/^Invalid q: .*Near: /) }]);
});
