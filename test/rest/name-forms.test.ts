/**
 * A name is one name in any Unicode normal form, as in any case: `Résumé` typed on a Mac (NFD: e
 * and U+0301) is the `Résumé` typed elsewhere (NFC: U+00E9). Names are kept as sent; lookups,
 * uniqueness, logins and `q` compare them by `name_key` (migrations/Migration20261205000000_name_key.ts).
 */
import { createUser, expectError, formTemplateWith, q, uniq } from './support.js';
import { A, h, setUpTwoTenants } from './two-tenants.js';

setUpTwoTenants();

const nfd = (s: string) => s.normalize('NFD');
const nfc = (s: string) => s.normalize('NFC');
const enc = encodeURIComponent;
/** A name with accented letters, unique to the test, in NFC. */
const accented = (prefix: string) => nfc(uniq(`${prefix}-Résumé-Çà`));

test('the spellings differ in bytes: the cases below compare two strings, not one', () => {
  const name = accented('x');
  expect(nfd(name)).not.toBe(name);
  expect(Buffer.byteLength(nfd(name))).toBeGreaterThan(Buffer.byteLength(name));
});

test('a group name taken in NFC is taken in NFD, in any case; q finds it in either form', async () => {
  const name = accented('Group');
  const made = await A.post('/groups', { name, description: 'nfc' });
  expect(made.status).toBe(200);
  expectError(await A.post('/groups', { name: nfd(name).toUpperCase(), description: 'nfd' }), 409, /already exists/);
  for (const spelled of [name, nfd(name), nfd(name).toLowerCase()]) {
    const found = await A.get(`/groups?${q(`name eq '${spelled}'`)}`);
    expect(found.body.data.map((g: { id: string }) => g.id)).toEqual([made.body.data.id]);
  }
  const liked = await A.get(`/groups?${q(`name like '%${nfd('Résumé')}%' and id eq '${made.body.data.id}'`)}`);
  expect(liked.body.data).toHaveLength(1);
  // Kept as sent: the stored name is the NFC one, byte for byte.
  expect((await A.get(`/groups/${made.body.data.id}`)).body.data[0].name).toBe(name);
});

test('a name sent in NFD is kept in NFD', async () => {
  const name = nfd(accented('Kept'));
  const made = await A.post('/groups', { name, description: '' });
  expect(made.body.data.name).toBe(name);
  expect((await A.get(`/groups/${made.body.data.id}`)).body.data[0].name).toBe(name);
});

test('a user signs in with the login name in the other normal form; a second user may not take it', async () => {
  const userid = accented('josé');
  const u = await createUser(A, undefined, userid);
  const token = await h.login(A.t, nfd(userid).toUpperCase(), u.password);
  expect((await A.as(token).get('/users/me')).body.data.userid).toBe(userid);
  const taken = await A.post(`/sites/${A.t.homeSiteId}/users`, { userid: nfd(userid), firstName: 'F', lastName: 'L', emailaddress: 'x@example.test', password: `pw-${uniq('p')}` });
  expectError(taken, 409, /already/);
});

test('a folder path names the folder in either normal form; a sibling in the other form is taken', async () => {
  const top = accented('Top');
  const child = accented('Child');
  const made = await A.post('/folders', { folderpath: `/${top}/${child}` });
  expect(made.status).toBe(200);
  const found = await A.get(`/folders?folderPath=${enc(nfd(`/${top}/${child}`))}`);
  expect(found.body.data.id).toBe(made.body.data.id);
  const parent = (await A.get(`/folders?folderPath=${enc(`/${top}`)}`)).body.data;
  expectError(await A.post(`/folders/${parent.id}`, { name: nfd(child) }), 409);
  // A path that is the folder's own in the other form is its path (checkSentPath).
  const renamed = await A.put(`/folders/${made.body.data.id}`, { description: 'same place', folderPath: nfd(`/${top}/${child}`) });
  expect(renamed.status).toBe(200);
  expect(renamed.body.data.folderPath).toBe(`/${top}/${child}`);
});

test('an index field label and a document type name are taken in the other normal form', async () => {
  const label = accented('Label');
  expect((await A.post('/indexfields', { label, fieldType: 'Text' })).status).toBe(200);
  expectError(await A.post('/indexfields', { label: nfd(label), fieldType: 'Text' }), 409);
  const type = accented('Type');
  expect((await A.post('/documenttypes', { name: type })).status).toBe(200);
  expectError(await A.post('/documenttypes', { name: nfd(type) }), 409);
});

test("a document's index field is set by its label in the other normal form", async () => {
  const folder = (await A.post('/folders', { name: uniq('Indexed') })).body.data;
  const label = accented('Field');
  const field = (await A.post('/indexfields', { label, fieldType: 'Text' })).body.data;
  await A.put(`/indexfields/${field.id}/folders/${folder.id}`);
  const doc = (await A.post('/documents', { folderId: folder.id, name: uniq('Doc') })).body.data;
  const r = await A.put(`/documents/${doc.documentId}/indexfields`, { indexFields: JSON.stringify({ [nfd(label).toUpperCase()]: 'set' }) });
  expect(r.status).toBe(200);
  expect(r.body.data.find((v: { fieldId: string }) => v.fieldId === field.id).value).toBe('set');
});

test("a form's instance name (its template's prefix and number) is found in the other normal form, by q and by relateToDocId", async () => {
  const template = await formTemplateWith(A, ['note'], [], {}, accented('Tpl'));
  const post = async () => (await A.post(`/formtemplates/${template.id}/forms`, { note: 'n' })).body.data;
  const [x, y] = [await post(), await post()];
  expect(x.instanceName.startsWith(`${template.name}-`)).toBe(true);
  const found = await A.get(`/formtemplates/${template.id}/forms?${q(`instanceName eq '${nfd(y.instanceName).toUpperCase()}'`)}`);
  expect(found.body.data.map((f: { revisionId: string }) => f.revisionId)).toEqual([y.revisionId]);
  expect((await A.put(`/forminstance/${x.formId}/relateForm?relateToDocId=${enc(nfd(y.instanceName))}`)).status).toBe(200);
  const related = await A.get(`/forminstance/${x.formId}/forms`);
  expect(related.body.data.map((f: { instanceName: string }) => f.instanceName)).toEqual([y.instanceName]);
});
