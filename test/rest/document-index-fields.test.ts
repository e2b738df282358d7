/**
 * Documents' index field values (rest-api-v1.md "Documents": `documents/{id}/indexfields`, by
 * revision, `PUT documents/{id}/indexfields/{fieldId}` with `value`; client-compatibility.md:
 * `PUT documents/{id}/indexfields` with `{indexFields: "<JSON string>"}`, keys ids or labels, the
 * Python client's single quotes): shapes, typed values, revisions, copies, races, who may, GraphQL.
 */
import { expectAsUnknown, expectEnvelope, expectError, GUID, keysOf, multipart, sorted, uniq, UNKNOWN_ID, whileHeld } from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

const KEYS = [
  'href', 'dataType', 'id', 'dhId', 'fieldId', 'fieldType', 'label', 'description', 'ordinalPosition', 'required', 'units', 'value',
  'createDate', 'modifyDate', 'createById', 'modifyById', 'createBy', 'modifyBy',
];

let admin: { id: string; name: string };

type Field = { id: string; label: string };
type Value = Record<string, unknown> & { id: string; fieldId: string; value: string; label: string };

setUpTwoTenants();
beforeAll(async () => {
  admin = (await A.get('/users/me')).body.data;
});

async function field(fieldType: unknown, more: Record<string, unknown> = {}): Promise<Field> {
  const r = await A.post('/indexfields', { label: uniq(`F${String(fieldType)}`), fieldType, ...more });
  expect(r.status).toBe(200);
  return r.body.data;
}

/** A folder with a text field (default 'none'), a numeric, a date and a required text field; and a document in it. */
async function indexedDocument() {
  const folder = (await A.post('/folders', { name: uniq('Indexed') })).body.data as { id: string };
  const text = await field('Text', { defaultValue: 'none', description: 'the text' });
  const number = await field('Numeric');
  const date = await field('Calendar');
  const required = await field(1, { required: true, defaultValue: 'must' });
  for (const f of [text, number, date, required]) await A.put(`/indexfields/${f.id}/folders/${folder.id}`);
  const doc = (await A.post('/documents', { folderId: folder.id, name: uniq('Doc') })).body.data as { id: string; documentId: string };
  return { folder, doc, text, number, date, required };
}

const values = async (path: string) => Object.fromEntries(((await A.get(path)).body.data as Value[]).map((v) => [v.label, v.value]));

describe("a document's index fields", () => {
  test('GET documents/{id}/indexfields: every field of its folder, in the folder order, unset ones at their default', async () => {
    const { doc, text, number, date, required } = await indexedDocument();
    const r = await A.get(`/documents/${doc.documentId}/indexfields`);
    expectEnvelope(r, 'GET', A.url(`/documents/${doc.documentId}/indexfields`));
    expect(r.body).not.toHaveProperty('pagination');
    const list = r.body.data as Value[];
    expect(list.map((v) => v.fieldId)).toEqual([text.id, number.id, date.id, required.id]);
    expect(keysOf(list[0])).toEqual(sorted(KEYS));
    expect(list[0]).toMatchObject({
      dataType: 'DocumentIndexField',
      href: `~/documents/${doc.id}/indexfields/${text.id}`,
      dhId: doc.id,
      fieldType: 1,
      label: text.label,
      description: 'the text',
      ordinalPosition: 1,
      required: false,
      units: '',
      value: 'none',
    });
    expect(list[0].id).toMatch(GUID);
    expect(list.map((v) => v.value)).toEqual(['none', '', '', 'must']);
    expect(list[3].required).toBe(true);
    // The same by the revision id, by the field, and by the revision's own route.
    expect((await A.get(`/documents/${doc.id}/indexfields`)).body.data).toEqual(list);
    const one = await A.get(`/documents/${doc.documentId}/indexfields/${number.id}`);
    expectEnvelope(one, 'GET', A.url(`/documents/${doc.documentId}/indexfields/${number.id}`));
    expect(one.body.data).toEqual(list[1]);
    expect((await A.get(`/documents/${doc.documentId}/revisions/${doc.id}/indexfields`)).body.data).toEqual(list);
    expect((await A.get(`/documents/${doc.documentId}/revisions/${doc.id}/indexfields/${date.id}`)).body.data).toEqual(list[2]);
  });

  test("a record's own id addresses it as its fieldId does: GET by document and by revision, PUT; another revision's record id does not", async () => {
    const { doc, number } = await indexedDocument();
    const rec = ((await A.get(`/documents/${doc.documentId}/indexfields`)).body.data as Value[])[1];
    expect(rec.id).not.toBe(number.id);
    expect((await A.get(`/documents/${doc.documentId}/indexfields/${rec.id}`)).body.data).toEqual(rec);
    expect((await A.get(`/documents/${doc.documentId}/revisions/${doc.id}/indexfields/${rec.id.toUpperCase()}`)).body.data).toEqual(rec);
    const put = (await A.put(`/documents/${doc.documentId}/indexfields/${rec.id}`, { value: '5' })).body.data;
    expect(put).toMatchObject({ id: rec.id, fieldId: number.id, value: '5' });
    // A new revision's records have ids of their own; the old revision's id names none of them.
    for (const n of [1, 2]) await A.post('/files', undefined, await multipart({ documentId: doc.documentId }, `v${n}`, `${n}.txt`));
    const current = (await A.get(`/documents/${doc.documentId}/indexfields/${number.id}`)).body.data as Value;
    expect(current).toMatchObject({ value: '5', fieldId: number.id });
    expect(current.id).not.toBe(rec.id);
    expect((await A.get(`/documents/${doc.documentId}/indexfields/${current.id}`)).body.data).toEqual(current);
    expectError(await A.get(`/documents/${doc.documentId}/indexfields/${rec.id}`), 404, /not an index field/);
    expectError(await A.put(`/documents/${doc.documentId}/indexfields/${rec.id}`, { value: '6' }), 404, /not an index field/);
    expect((await A.get(`/documents/${doc.documentId}/revisions/${doc.id}/indexfields/${rec.id}`)).body.data.value).toBe('5');
  });

  test('PUT documents/{id}/indexfields/{fieldId} {value}: 200 with the field; values kept by type', async () => {
    const { doc, text, number, date } = await indexedDocument();
    const r = await A.put(`/documents/${doc.documentId}/indexfields/${text.id}`, { value: 'Contract 7', label: 'ignored', description: 'ignored' });
    expectEnvelope(r, 'PUT', A.url(`/documents/${doc.documentId}/indexfields/${text.id}`));
    expect(r.body.data).toMatchObject({ fieldId: text.id, value: 'Contract 7', label: text.label, description: 'the text', modifyById: admin.id, modifyBy: admin.name });
    expect((await A.put(`/documents/${doc.id}/indexfields/${number.id}`, { value: ' -12.50 ' })).body.data.value).toBe('-12.50');
    expect((await A.put(`/documents/${doc.id}/indexfields/${date.id}`, { value: '1/31/2026' })).body.data.value).toBe('2026-01-31');
    expect((await A.put(`/documents/${doc.id}/indexfields/${date.id}`, { value: '2026-02-01T10:00:00+02:00' })).body.data.value).toBe('2026-02-01T08:00:00.000');
    // '' clears it: the field reads its default again.
    expect((await A.put(`/documents/${doc.id}/indexfields/${text.id}`, { value: '' })).body.data.value).toBe('none');
    expect((await A.get(`/indexfields/${text.id}`)).body.data.label).toBe(text.label);
  });

  test("a field's createDate and createBy are its revision's, before and after its first value; modifyDate and modifyBy follow the values", async () => {
    const { folder, doc, text } = await indexedDocument();
    await A.put(`/folders/${folder.id}/securitymembers/${plain.id}`, { securityRole: 2 });
    const path = `/documents/${doc.documentId}/indexfields/${text.id}`;
    const revision = (await A.get(`/documents/${doc.documentId}/revisions/${doc.id}`)).body.data;
    const before = (await A.get(path)).body.data;
    expect(before).toMatchObject({ createDate: revision.createDate, modifyDate: revision.createDate, createById: admin.id, modifyById: admin.id });
    const created = { createDate: before.createDate, createById: admin.id, createBy: admin.name };
    const first = (await A.as(plain.token).put(path, { value: 'first' })).body.data;
    expect(first).toMatchObject({ ...created, modifyById: plain.id, modifyBy: plain.name });
    expect(first.modifyDate > before.createDate).toBe(true);
    expect((await A.put(path, { value: 'second' })).body.data).toMatchObject({ ...created, modifyById: admin.id });
    expect((await A.get(path)).body.data).toMatchObject(created);
  });

  test('bad values: 400s that name the field, and nothing changes', async () => {
    const { doc, text, number, date, required } = await indexedDocument();
    await A.put(`/documents/${doc.id}/indexfields/${number.id}`, { value: '5' });
    const before = await values(`/documents/${doc.id}/indexfields`);
    expectError(await A.put(`/documents/${doc.id}/indexfields/${number.id}`, { value: 'five' }), 400, new RegExp(`${number.label}.*not a number`));
    expectError(await A.put(`/documents/${doc.id}/indexfields/${number.id}`, { value: '1e999' }), 400, /not a number/);
    expectError(await A.put(`/documents/${doc.id}/indexfields/${date.id}`, { value: '2026-02-30' }), 400, new RegExp(`${date.label}.*date`));
    expectError(await A.put(`/documents/${doc.id}/indexfields/${date.id}`, { value: '13/1/2026' }), 400, /date/);
    expectError(await A.put(`/documents/${doc.id}/indexfields/${required.id}`, { value: ' ' }), 400, /required/);
    expectError(await A.put(`/documents/${doc.id}/indexfields/${text.id}`, { value: 'x'.repeat(4001) }), 400, /4000/);
    expectError(await A.put(`/documents/${doc.id}/indexfields/${text.id}`, {}), 400, /value/);
    expectError(await A.put(`/documents/${doc.id}/indexfields/${UNKNOWN_ID}`, { value: 'x' }), 404, /not an index field/);
    expectError(await A.put(`/documents/${UNKNOWN_ID}/indexfields/${text.id}`, { value: 'x' }), 404, /Document/);
    const other = await field('Text');
    expectError(await A.get(`/documents/${doc.id}/indexfields/${other.id}`), 404, /not an index field/);
    expect(await values(`/documents/${doc.id}/indexfields`)).toEqual(before);
  });

  test("a drop-down list field takes one of its list's values (the folder's list where it overrides), trimmed; a modifiable one any text", async () => {
    const list = async (values: string[]) =>
      (await A.post('/lists', { Name: uniq('Choices'), Items: values.map((v) => ({ itemName: `Name ${v}`, itemValue: v })) })).body.data.listID as string;
    const [colours, sizes] = [await list(['red', 'green']), await list(['small', 'large'])];
    const { folder, doc } = await indexedDocument();
    const fixed = await field(6, { dropdownListId: colours });
    const open = await field(8, { dropdownListId: colours });
    const bare = await field(6);
    for (const f of [fixed, open, bare]) await A.put(`/indexfields/${f.id}/folders/${folder.id}`);
    const at = (f: Field) => `/documents/${doc.id}/indexfields/${f.id}`;

    expect((await A.put(at(fixed), { value: ' green ' })).body.data.value).toBe('green');
    expectError(await A.put(at(fixed), { value: 'Name red' }), 400, new RegExp(`'${fixed.label}' is a drop-down list: 'Name red' is none of its values`));
    expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: JSON.stringify([{ [open.id]: 'lost' }, { [fixed.id]: 'blue' }]) }), 400, /'blue' is none of its values/);
    expect((await A.put(at(open), { value: 'blue' })).body.data.value).toBe('blue');
    expect((await A.put(at(bare), { value: 'anything' })).body.data.value).toBe('anything');
    expect((await A.put(at(fixed), { value: '' })).body.data.value).toBe('');

    // The folder's own list replaces the definition's.
    await A.put(`/folders/${folder.id}/indexfields/${fixed.id}`, { dropdownListId: sizes });
    expectError(await A.put(at(fixed), { value: 'red' }), 400, /'red' is none of its values/);
    expect((await A.put(`/documents/${doc.id}/indexfields`, { indexFields: JSON.stringify({ [fixed.label]: 'large' }) })).status).toBe(200);
    expect(await values(`/documents/${doc.id}/indexfields`)).toMatchObject({ [fixed.label]: 'large', [open.label]: 'blue', [bare.label]: 'anything' });
  });

  test('PUT documents/{id}/indexfields {indexFields: JSON string} as the Node client sends it, by id or label, all or nothing', async () => {
    const { doc, text, number, date } = await indexedDocument();
    const r = await A.put(`/documents/${doc.documentId}/indexfields`, { indexFields: JSON.stringify([{ [text.id]: 'by id' }, { [number.label.toUpperCase()]: '42' }]) });
    expectEnvelope(r, 'PUT', A.url(`/documents/${doc.documentId}/indexfields`));
    expect((r.body.data as Value[]).map((v) => v.value)).toEqual(['by id', '42', '', 'must']);
    // One object, the Python client's single quotes, and JSON itself.
    await A.put(`/documents/${doc.documentId}/indexfields`, { indexFields: `{'${date.label}': '2026-03-04'}` });
    await A.put(`/documents/${doc.documentId}/indexfields`, { indexFields: { [text.label]: 'as json' } });
    expect(await values(`/documents/${doc.id}/indexfields`)).toMatchObject({ [text.label]: 'as json', [number.label]: '42', [date.label]: '2026-03-04' });
    // One bad entry: nothing of the request is kept.
    expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: JSON.stringify([{ [text.id]: 'lost' }, { [number.id]: 'NaN' }]) }), 400, /not a number/);
    expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: JSON.stringify([{ [text.id]: 'lost' }, { Nope: 'x' }]) }), 400, /'Nope' is not an index field/);
    expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: '[{' }), 400, /must be JSON/);
    expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: '[1, 2]' }), 400, /objects/);
    expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: '[]' }), 400, /no index field/);
    expectError(await A.put(`/documents/${doc.id}/indexfields`, {}), 400, /indexFields/);
    // A field named twice (by id, by label in another case) with two values: which one was meant is not ours to guess.
    const twice = await A.put(`/documents/${doc.id}/indexfields`, { indexFields: `[{'${text.label}': 'lost'}, {'${text.id}': 'also lost'}, {'${text.label.toLowerCase()}': 'third'}]` });
    expectError(twice, 400, new RegExp(`index field '${text.label}' was sent 3 times with different values \\('lost' as '${text.label}' and 'also lost' as '${text.id}'\\)`));
    expect((await values(`/documents/${doc.id}/indexfields`))[text.label]).toBe('as json');
    // With one value it is that value.
    expect((await A.put(`/documents/${doc.id}/indexfields`, { indexFields: JSON.stringify([{ [number.label]: '7' }, { [number.id]: 7 }]) })).status).toBe(200);
    expect(await values(`/documents/${doc.id}/indexfields`)).toMatchObject({ [text.label]: 'as json', [number.label]: '7' });
  });

  test("NUL or a lone surrogate escaped inside indexFields' JSON text is a 400 naming the field, on every route that takes it; nothing kept", async () => {
    // The body's own check sees `\u0000` as six characters: parsed, NUL reached PostgreSQL (a 500)
    // and a lone surrogate was stored as U+FFFD.
    const { folder, doc, text } = await indexedDocument();
    await A.put(`/documents/${doc.id}/indexfields/${text.id}`, { value: 'kept' });
    for (const [sent, why] of [
      ['a\\u0000b', /holds NUL \(U\+0000\), which cannot be stored as sent/],
      ['\\ud800', /holds a lone UTF-16 surrogate \(U\+D800\), which cannot be stored as sent/],
      ['x\\udc00', /holds a lone UTF-16 surrogate \(U\+DC00\), which cannot be stored as sent/],
    ] as const) {
      const message = new RegExp(`^The value of index field '${text.label}' ${why.source}\\.$`);
      expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: `{"${text.id}": "${sent}"}` }), 400, message);
      // The Python client's single quotes (JSON5), where \x00 is NUL too.
      expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: `[{'${text.label}': '${sent}'}]` }), 400, message);
      const name = uniq('Never Made');
      expectError(await A.post('/documents', { folderId: folder.id, name, indexFields: `{"${text.id}": "${sent}"}` }), 400, message);
      expect((await A.get(`/documents?q=name eq '${name}'`)).body.data).toEqual([]);
    }
    expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: `{'${text.id}': 'a\\x00'}` }), 400, /holds NUL/);
    const upload = await multipart({ documentId: doc.documentId, indexFields: `{"${text.id}": "\\u0000"}` }, 'bytes', 'a.txt');
    expectError(await A.post('/files', undefined, upload), 400, /holds NUL/);
    expect((await A.get(`/documents/${doc.documentId}/revisions`)).body.data).toHaveLength(1);
    expect((await values(`/documents/${doc.id}/indexfields`))[text.label]).toBe('kept');
  });

  test('a JSON number in indexFields is kept as its text only when that is surely what was sent, else a 400 asking for a string; nothing kept', async () => {
    // The body's rule for a number where text is wanted did not reach indexFields: 12345678901234567890
    // was kept as '12345678901234567000', -0 as '0', 1e400 as 'Infinity' and JSON5's NaN as 'NaN'.
    const { doc, text, number } = await indexedDocument();
    await A.put(`/documents/${doc.id}/indexfields/${text.id}`, { value: 'kept' });
    for (const [sent, shown] of [['12345678901234567890', '12345678901234567000'], ['-0', '-0'], ['1e400', 'Infinity'], ['NaN', 'NaN'], ['1e21', '1e+21'], ['0.1234567890123456789', '0.12345678901234568']]) {
      const message = `The value of index field '${text.label}' must be sent as a string in quotes: as a JSON number (${shown}) it may already have been rounded or rewritten, so it cannot be kept as sent.`;
      expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: `{"${text.id}": ${sent}}` }), 400, message);
    }
    const json = await A.put(`/documents/${doc.id}/indexfields`, undefined, { raw: `{"indexFields": {"${number.id}": 12345678901234567890}}`, headers: { 'content-type': 'application/json' } });
    expectError(json, 400, `The value of index field '${number.label}' must be sent as a string in quotes`);
    expect(await values(`/documents/${doc.id}/indexfields`)).toMatchObject({ [text.label]: 'kept', [number.label]: '' });
    // Numbers whose text is what was sent are taken, as before.
    expect((await A.put(`/documents/${doc.id}/indexfields`, { indexFields: `[{"${text.id}": 42}, {"${number.id}": 1.5}]` })).status).toBe(200);
    expect(await values(`/documents/${doc.id}/indexfields`)).toMatchObject({ [text.label]: '42', [number.label]: '1.5' });
  });

  test('POST documents with indexFields and no file sets them; one refused makes no document', async () => {
    const { folder, text, number } = await indexedDocument();
    const name = uniq('Born Indexed');
    const made = await A.post('/documents', { folderId: folder.id, name, indexFields: JSON.stringify([{ [text.id]: 'at birth' }, { [number.label]: '7' }]) });
    expect(made.status).toBe(200);
    expect(await values(`/documents/${made.body.data.documentId}/indexfields`)).toMatchObject({ [text.label]: 'at birth', [number.label]: '7' });
    const refused = uniq('Never Made');
    expectError(await A.post('/documents', { folderId: folder.id, name: refused, indexFields: JSON.stringify([{ [number.id]: 'NaN' }]) }), 400, /not a number/);
    expect((await A.get(`/documents?q=name eq '${refused}'`)).body.data).toEqual([]);
  });

  test("indexFields '{}' with a new document or an upload (the Python and .NET clients always send it) sets nothing; on PUT it is still a 400", async () => {
    const { folder, text } = await indexedDocument();
    // The Python client's new_document, form-encoded.
    const form = new URLSearchParams({ folderId: folder.id, documentState: '1', name: uniq('Py'), description: 'd', revision: '0', allowNoFile: 'True', fileLength: '0', fileName: 'a.txt', indexFields: '{}' });
    const made = await A.post('/documents', undefined, { raw: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect([made.status, made.text.slice(0, 200)]).toEqual([200, expect.any(String)]);
    const doc = made.body.data as { id: string; documentId: string };
    const up = await A.post('/files', undefined, await multipart({ documentId: doc.documentId, indexFields: '{}' }, 'bytes', 'a.txt'));
    expect(up.status).toBe(200);
    expect((await values(`/documents/${doc.documentId}/indexfields`))[text.label]).toBe('none');
    expectError(await A.put(`/documents/${doc.id}/indexfields`, { indexFields: '{}' }), 400, /no index field/);
  });

  test('the Node client flow: a field added to a folder, a new document there, its first field set by id', async () => {
    const { folder, text } = await indexedDocument();
    const fields = (await A.get(`/folders/${folder.id}/indexfields`)).body.data as Field[];
    const doc = (await A.post('/documents', { folderId: folder.id, name: uniq('Index Field Test Document'), description: 'd', documentState: 1 })).body.data;
    const r = await A.put(`/documents/${doc.documentId}/indexfields`, { indexFields: JSON.stringify([{ [fields[0].id]: `Test Value ${new Date().toISOString()}` }]) });
    expect(r.body.meta.status).toBe(200);
    expect((await values(`/documents/${doc.id}/indexfields`))[text.label]).toMatch(/^Test Value /);
  });

  test('revisions keep their own values; a copied document takes every value with it; a deleted definition takes its values', async () => {
    const { folder, doc, text, number } = await indexedDocument();
    await A.put(`/documents/${doc.id}/indexfields`, { indexFields: { [text.id]: 'original', [number.id]: '1' } });
    // A second revision (uploads are not built yet: made in SQL) starts without values.
    const older = doc.id;
    const { rows } = await h.services.reads.query(
      `with r as (insert into document_revision (tenant_id, id, document_id, revision, name) values ($1, gen_random_uuid(), $2, '2', 'r') returning id)
       update document set revision_id = (select id from r), revision = '2' where tenant_id = $1 and id = $2 returning revision_id`,
      [A.t.tenantId, doc.documentId],
    );
    const current = rows[0].revision_id as string;
    await A.put(`/documents/${doc.documentId}/indexfields/${text.id}`, { value: 'revised' });
    expect((await values(`/documents/${doc.documentId}/indexfields`))[text.label]).toBe('revised');
    expect((await values(`/documents/${doc.documentId}/revisions/${older}/indexfields`))[text.label]).toBe('original');
    expect((await values(`/documents/${older}/indexfields`))[text.label]).toBe('original');
    expect((await values(`/documents/${doc.documentId}/revisions/${current}/indexfields`))[number.label]).toBe('');
    expectError(await A.get(`/documents/${doc.documentId}/revisions/${UNKNOWN_ID}/indexfields`), 404, /no revision/);

    const copy = (await A.post(`/documents/${doc.documentId}/copy`, { folderId: folder.id, name: uniq('Copy') })).body.data;
    expect((await values(`/documents/${copy.documentId}/indexfields`))[text.label]).toBe('revised');
    const copyRevisions = (await A.get(`/documents/${copy.documentId}/revisions`)).body.data as { id: string; revision: string }[];
    const copyOlder = copyRevisions.find((r) => r.revision === '1')!;
    expect((await values(`/documents/${copy.documentId}/revisions/${copyOlder.id}/indexfields`))[text.label]).toBe('original');

    await A.del(`/indexfields/${number.id}`);
    expect(Object.keys(await values(`/documents/${doc.id}/indexfields`))).not.toContain(number.label);
  });

  test('a copied folder takes its index fields, overrides and order; its documents keep their values', async () => {
    const { folder, doc, text, required } = await indexedDocument();
    await A.put(`/folders/${folder.id}/indexfields/${text.id}`, { defaultValue: 'folder default' });
    await A.put(`/documents/${doc.id}/indexfields/${required.id}`, { value: 'set' });
    const target = `/${uniq('CopyTarget')}`;
    const copy = (await A.post('/folders/copy', { sourceFolderId: folder.id, targetFolderPath: target })).body.data;
    const fields = (await A.get(`/folders/${copy.id}/indexfields`)).body.data as Record<string, unknown>[];
    expect(fields.map((f) => [f.label, f.folderOrdinalPosition])).toEqual(((await A.get(`/folders/${folder.id}/indexfields`)).body.data as Record<string, unknown>[]).map((f) => [f.label, f.folderOrdinalPosition]));
    expect(fields[0]).toMatchObject({ defaultValue: 'folder default' });
    const copiedDoc = (await A.get(`/folders/${copy.id}/documents`)).body.data[0];
    expect(await values(`/documents/${copiedDoc.documentId}/indexfields`)).toMatchObject({ [text.label]: 'folder default', [required.label]: 'set' });
  });

  test.each([
    ['PUT documents/{id}/indexfields, a value', (d: { id: string }, f: string) => A.put(`/documents/${d.id}/indexfields`, { indexFields: JSON.stringify([{ [f]: 'raced' }]) })],
    // The field is refused before a bad value after it is looked at, as an unknown one is.
    ['PUT documents/{id}/indexfields, a value and a bad one after it', (d: { id: string }, f: string) => A.put(`/documents/${d.id}/indexfields`, { indexFields: JSON.stringify([{ [f]: 'raced' }, { Nope: 'x' }]) })],
    ['PUT documents/{id}/indexfields, a value cleared', (d: { id: string }, f: string) => A.put(`/documents/${d.id}/indexfields`, { indexFields: { [f]: '' } })],
    ['PUT documents/{id}/indexfields/{fieldId}', (d: { id: string }, f: string) => A.put(`/documents/${d.id}/indexfields/${f}`, { value: 'raced' })],
    ['POST documents with indexFields', (_: { id: string }, f: string, folderId: string, name: string) => A.post('/documents', { folderId, name, indexFields: JSON.stringify([{ [f]: 'raced' }]) })],
  ])("%s racing a delete of the index field, committed meanwhile: what an unknown field gets, not the foreign key's 404; nothing written", async (_, send) => {
    const { folder, doc, text, number } = await indexedDocument();
    await A.put(`/documents/${doc.id}/indexfields`, { indexFields: { [text.id]: 'kept', [number.id]: '3' } });
    const before = await values(`/documents/${doc.id}/indexfields`);
    const name = uniq('Never Made');
    // The delete, committed while the write waits for the field's row.
    const other = { text: 'delete from index_field where tenant_id = $1 and id = $2', values: [A.t.tenantId, text.id] };
    const r = await whileHeld(h, other, () => send(doc, text.id, folder.id, name));
    expectError(r, r.status === 404 ? 404 : 400, /is not an index field of this document's folder/);
    expectAsUnknown(r, await send(doc, UNKNOWN_ID, folder.id, name), text.id);
    // The values as they were, less the deleted field's; no document made, and no value left behind.
    expect(await values(`/documents/${doc.id}/indexfields`)).toEqual(Object.fromEntries(Object.entries(before).filter(([label]) => label !== text.label)));
    expect((await A.get(`/documents?q=name eq '${name}'`)).body.data).toEqual([]);
    const { rows } = await h.services.reads.query('select count(*)::int as n from document_index_value where tenant_id = $1 and field_id = $2', [A.t.tenantId, text.id]);
    expect(rows[0].n).toBe(0);
  });

  test('two changes of one document at once: both kept when they touch different fields, the last whole when the same', async () => {
    const { doc, text, number } = await indexedDocument();
    const replies = await Promise.all([
      A.put(`/documents/${doc.id}/indexfields/${text.id}`, { value: 'a' }),
      A.put(`/documents/${doc.id}/indexfields/${number.id}`, { value: '2' }),
      ...Array.from({ length: 4 }, (_, i) => A.put(`/documents/${doc.id}/indexfields`, { indexFields: { [text.id]: `t${i}` } })),
    ]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const after = await values(`/documents/${doc.id}/indexfields`);
    expect(after[number.label]).toBe('2');
    expect(['a', 't0', 't1', 't2', 't3']).toContain(after[text.label]);
  });
});

describe('who may', () => {
  test('an ordinary user reads values but sets none; another tenant finds nothing', async () => {
    const { doc, text } = await indexedDocument();
    const U = A.as(plain.token);
    expect((await U.get(`/documents/${doc.id}/indexfields`)).body.data).toHaveLength(4);
    expectError(await U.put(`/documents/${doc.id}/indexfields/${text.id}`, { value: 'no' }), 403);
    expectError(await U.put(`/documents/${doc.id}/indexfields`, { indexFields: { [text.id]: 'no' } }), 403);
    expectError(await B.get(`/documents/${doc.id}/indexfields`), 404);
    expectError(await B.put(`/documents/${doc.id}/indexfields/${text.id}`, { value: 'no' }), 404);
    expect((await values(`/documents/${doc.id}/indexfields`))[text.label]).toBe('none');
  });
});

describe('GraphQL', () => {
  test('documents and revisions with their index fields; statements constant as the page grows', async () => {
    const { folder, text } = await indexedDocument();
    for (let i = 0; i < 3; i++) {
      const d = (await A.post('/documents', { folderId: folder.id, name: uniq('G') })).body.data;
      await A.put(`/documents/${d.id}/indexfields/${text.id}`, { value: `v${i}` });
    }
    const query = (limit: number) =>
      A.gql(`query ($id: UUID!) { folderDocuments(id: $id, limit: ${limit}) { items { name indexFields(limit: 10) { label value dhId } revisions(limit: 5) { indexFields(limit: 10) { value } } } } }`, { id: folder.id });
    const small = await h.countQueries(() => query(1));
    const big = await h.countQueries(() => query(4));
    expect(big.result.body.errors).toBeUndefined();
    const items = big.result.body.data.folderDocuments.items;
    expect(items).toHaveLength(4);
    expect(items.flatMap((d: { indexFields: Value[] }) => d.indexFields.filter((f) => f.label === text.label).map((f) => f.value)).sort()).toEqual(['none', 'v0', 'v1', 'v2']);
    expect(items[0].revisions[0].indexFields).toHaveLength(4);
    expect(big.statements.length).toBe(small.statements.length);
  });

  test('setDocumentIndexFields with a JSON object', async () => {
    const { doc, number } = await indexedDocument();
    const r = await A.gql('mutation ($d: UUID!, $v: JSON) { setDocumentIndexFields(documentId: $d, input: { indexFields: $v }) { totalRecords items { label value } } }', {
      d: doc.documentId,
      v: { [number.label]: '3.5' },
    });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.setDocumentIndexFields.totalRecords).toBe(4);
    expect(r.body.data.setDocumentIndexFields.items[1]).toEqual({ label: number.label, value: '3.5' });
  });
});
