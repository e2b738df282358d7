/**
 * Index field definitions and folders' index fields (rest-api-v1.md "Index field definitions",
 * "Folders"; client-compatibility.md: `fieldType` sent as a name, nulls for GUIDs, the key
 * `dropDownListId`, `POST indexfields/MoveIndexFieldAfter`, `PUT indexfields/{id}/folders/{folderId}`
 * without a body): shapes, types, order, overrides, errors, races, other tenants and GraphQL.
 */
import { expectAsUnknown, expectEnvelope, expectError, GUID, keysOf, PAGINATION_KEYS, q, sorted, uniq, UNKNOWN_ID, whileHeld, ZERO_GUID } from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

const DEFINITION_KEYS = [
  'href', 'dataType', 'pkey', 'id', 'fieldType', 'label', 'description', 'required', 'connectionId', 'queryId', 'dropDownListId',
  'queryDisplayField', 'queryValueField', 'defaultValue', 'createDate', 'modifyDate', 'createById', 'modifyById', 'createBy', 'modifyBy',
];
const FOLDER_FIELD_KEYS = [
  'href', 'dataType', 'id', 'definitionPkey', 'folderId', 'fieldType', 'label', 'description', 'ordinalPosition', 'folderOrdinalPosition',
  'required', 'connectionId', 'queryId', 'dropDownListId', 'queryDisplayField', 'queryValueField', 'defaultValue', 'globalRequired',
  'globalConnectionId', 'globalQueryID', 'globalDropDownListId', 'globalQueryValueField', 'globalQueryDisplayField', 'globalDefaultValue',
  'createDate', 'modifyDate', 'createById', 'modifyById', 'createBy', 'modifyBy',
];

let admin: { id: string; name: string };

type Definition = Record<string, unknown> & { id: string; label: string; pkey: number };

setUpTwoTenants();
beforeAll(async () => {
  admin = (await A.get('/users/me')).body.data;
});

/** The Node client's create body. */
const nodeBody = (label: string, more: Record<string, unknown> = {}) => ({
  fieldType: 'Text',
  label,
  description: 'Created by test',
  required: false,
  connectionId: null,
  queryId: null,
  queryDisplayField: null,
  queryValueField: null,
  dropDownListId: null,
  defaultValue: null,
  ...more,
});

async function newField(label = uniq('Field'), more: Record<string, unknown> = {}): Promise<Definition> {
  const r = await A.post('/indexfields', nodeBody(label, more));
  expect([r.status, r.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
  return r.body.data;
}
const newFolder = async () => (await A.post('/folders', { name: uniq('Indexed') })).body.data as { id: string; folderPath: string };

describe('index field definitions', () => {
  test('POST /indexfields as the Node client sends it: 200, an IndexFieldDefinition object with every spec field', async () => {
    const label = uniq('Invoice No');
    const r = await A.post('/indexfields', nodeBody(label));
    expectEnvelope(r, 'POST', A.url('/indexfields'));
    const d = r.body.data;
    expect(keysOf(d)).toEqual(sorted(DEFINITION_KEYS));
    expect(d).toMatchObject({
      dataType: 'IndexFieldDefinition',
      href: `~/indexfields/${d.id}`,
      fieldType: 1,
      label,
      description: 'Created by test',
      required: false,
      connectionId: ZERO_GUID,
      queryId: ZERO_GUID,
      dropDownListId: ZERO_GUID,
      queryDisplayField: '',
      queryValueField: '',
      defaultValue: '',
      createById: admin.id,
      modifyById: admin.id,
      createBy: admin.name,
    });
    expect(d.id).toMatch(GUID);
    expect(Number.isInteger(d.pkey)).toBe(true);
    const got = await A.get(`/indexfields/${d.id}`);
    expectEnvelope(got, 'GET', A.url(`/indexfields/${d.id}`));
    expect(got.body.data).toEqual(d);
  });

  test('fieldType as a code or any of the names; the spec body (integer type, dropdownListId spelled so, zero GUIDs)', async () => {
    const cases: [unknown, number][] = [[0, 0], ['5', 5], ['Calendar', 4], ['numeric', 5], ['SingleLineTextBox', 1], ['multiLineTextBox', 0], ['UsersDropDownList', 7]];
    for (const [sent, code] of cases) {
      const d = await newField(uniq('Typed'), { fieldType: sent });
      expect([sent, d.fieldType]).toEqual([sent, code]);
    }
    const spec = await A.post('/indexfields', {
      label: uniq('Spec'), description: 'd', fieldType: 5, queryId: ZERO_GUID, dropdownListId: ZERO_GUID,
      queryValueField: 'v', queryDisplayField: 'n', required: true, defaultValue: '7',
    });
    expect(spec.status).toBe(200);
    expect(spec.body.data).toMatchObject({ fieldType: 5, required: true, defaultValue: '7', queryValueField: 'v', queryDisplayField: 'n', dropDownListId: ZERO_GUID });
  });

  test('bad input: 400s that name the problem, and nothing is made', async () => {
    const before = (await A.get('/indexfields?limit=1')).body.pagination.totalRecords;
    expectError(await A.post('/indexfields', nodeBody(uniq('x'), { fieldType: 3 })), 400, /fieldType/);
    expectError(await A.post('/indexfields', nodeBody(uniq('x'), { fieldType: 'Color' })), 400, /fieldType/);
    expectError(await A.post('/indexfields', nodeBody(uniq('x'), { fieldType: null })), 400, /fieldType/);
    expectError(await A.post('/indexfields', nodeBody('  ')), 400, /label/);
    expectError(await A.post('/indexfields', nodeBody('x'.repeat(257))), 400, /label.*256/);
    expectError(await A.post('/indexfields', nodeBody('tab\there')), 400, /control/);
    expectError(await A.post('/indexfields', nodeBody('del\u007f')), 400, "The field 'label' may not contain control characters.");
    expectError(await A.post('/indexfields', nodeBody('nel\u0085')), 400, "The field 'label' may not contain control characters.");
    expectError(await A.post('/indexfields', nodeBody(uniq('x'), { dropDownListId: UNKNOWN_ID })), 404, /Drop-down list/);
    expectError(await A.post('/indexfields', nodeBody(uniq('x'), { queryId: UNKNOWN_ID })), 400, /queryId.*queries/);
    expectError(await A.post('/indexfields', nodeBody(uniq('x'), { queryId: 'not-a-guid' })), 400, /queryId/);
    expectError(await A.post('/indexfields', nodeBody(uniq('x'), { description: 'd'.repeat(4001) })), 400, /description/);
    expect((await A.get('/indexfields?limit=1')).body.pagination.totalRecords).toBe(before);
  });

  test('a default value is checked as a value of the field\'s type would be: on create, on change and in a folder; dates kept as the API writes them', async () => {
    const before = (await A.get('/indexfields?limit=1')).body.pagination.totalRecords;
    expectError(await A.post('/indexfields', nodeBody(uniq('Num'), { fieldType: 5, defaultValue: 'abc' })), 400, /default value of index field .* is numeric: 'abc' is not a number/);
    expectError(await A.post('/indexfields', nodeBody(uniq('Day'), { fieldType: 4, defaultValue: 'notadate' })), 400, /default value of index field .* is a date/);
    expect((await A.get('/indexfields?limit=1')).body.pagination.totalRecords).toBe(before);
    const day = await newField(uniq('Day'), { fieldType: 4, defaultValue: '2026-01-31T10:00:00+01:00' });
    expect(day.defaultValue).toBe('2026-01-31T09:00:00.000');
    expect((await newField(uniq('Num'), { fieldType: 5, defaultValue: ' 7.5 ' })).defaultValue).toBe('7.5');
    expect((await newField(uniq('Text'), { fieldType: 1, defaultValue: 'anything at all' })).defaultValue).toBe('anything at all');
    expectError(await A.put(`/indexfields/${day.id}`, { defaultValue: 'someday' }), 400, /is a date/);
    expect((await A.put(`/indexfields/${day.id}`, { defaultValue: '2/3/2027' })).body.data.defaultValue).toBe('2027-02-03');
    const folder = await newFolder();
    await A.put(`/indexfields/${day.id}/folders/${folder.id}`);
    expectError(await A.put(`/folders/${folder.id}/indexfields/${day.id}`, { defaultValue: 'soon' }), 400, /is a date/);
    expect((await A.get(`/indexfields/${day.id}`)).body.data.defaultValue).toBe('2027-02-03');
  });

  test('labels are unique without regard to case: 409 on create and on rename', async () => {
    const a = await newField(uniq('Unique'));
    expectError(await A.post('/indexfields', nodeBody(a.label.toUpperCase())), 409, new RegExp(a.label, 'i'));
    const b = await newField();
    expectError(await A.put(`/indexfields/${b.id}`, { label: ` ${a.label.toLowerCase()} ` }), 409, /already exists/);
    // Its own label in another case is a rename, not a clash.
    const same = await A.put(`/indexfields/${a.id}`, { label: a.label.toUpperCase() });
    expect(same.body.data.label).toBe(a.label.toUpperCase());
  });

  test('two creates of one label at once: exactly one is made, the other gets a 409', async () => {
    const label = uniq('Race');
    const replies = await Promise.all(Array.from({ length: 4 }, () => A.post('/indexfields', nodeBody(label))));
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect((await A.get(`/indexfields?${q(`label eq '${label}'`)}`)).body.data).toHaveLength(1);
  });

  test('two renames to one label at once, 20 rounds: one wins, the other a 409; one field of that label', async () => {
    for (let round = 0; round < 20; round++) {
      const label = uniq('Same');
      const [a, b] = [await newField(), await newField()];
      const replies = await Promise.all([a, b].map((f) => A.put(`/indexfields/${f.id}`, { label })));
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
      expectError(replies.find((r) => r.status === 409)!, 409, /already exists/);
      expect((await A.get(`/indexfields?${q(`label eq '${label}'`)}`)).body.data.map((f: Definition) => f.id)).toEqual([replies.find((r) => r.status === 200)!.body.data.id]);
    }
  });

  test('PUT /indexfields/{id}: keys sent change, keys left out or null stay; the type cannot change', async () => {
    const d = await newField(uniq('Edit'), { defaultValue: 'a', description: 'first' });
    const r = await A.put(`/indexfields/${d.id}`, nodeBody(d.label, { description: 'second', required: true, defaultValue: null }));
    expectEnvelope(r, 'PUT', A.url(`/indexfields/${d.id}`));
    expect(r.body.data).toMatchObject({ id: d.id, description: 'second', required: true, defaultValue: 'a', fieldType: 1, createDate: d.createDate });
    // The .NET client sends one key at a time, with `Description` capitalised.
    expect((await A.put(`/indexfields/${d.id}`, { Description: 'third' })).body.data.description).toBe('third');
    expectError(await A.put(`/indexfields/${d.id}`, { fieldType: 'Numeric' }), 400, /type.*cannot change/);
    expectError(await A.put(`/indexfields/${d.id}`, {}), 400, /at least one/);
    // Blank, as every other name: it was 'missing', which it is not.
    expectError(await A.put(`/indexfields/${d.id}`, { label: '  ' }), 400, "The field 'label' must not be blank.");
    expectError(await A.put(`/indexfields/${UNKNOWN_ID}`, { description: 'x' }), 404);
    expect((await A.get(`/indexfields/${d.id}`)).body.data.description).toBe('third');
  });

  test('PUT /indexfields/{id} takes queryId and connectionId (the spec lists queryId), answered as the all-zero GUID', async () => {
    const d = await newField(uniq('Queried'));
    for (const body of [{ queryId: ZERO_GUID }, { connectionId: null }, { QueryId: ZERO_GUID, dropdownListId: ZERO_GUID }]) {
      const r = await A.put(`/indexfields/${d.id}`, body);
      expect([body, r.status, r.body.data?.queryId, r.body.data?.connectionId]).toEqual([body, 200, ZERO_GUID, ZERO_GUID]);
    }
    expectError(await A.put(`/indexfields/${d.id}`, { queryId: UNKNOWN_ID }), 400, "The field 'queryId' must be null or the all-zero GUID: queries are not part of this service yet.");
    expectError(await A.put(`/indexfields/${d.id}`, { connectionId: UNKNOWN_ID }), 400, /connections/);
  });

  test('an empty PUT of a definition or a folder\'s field names what may be sent, and each key it names is taken alone', async () => {
    const d = await newField(uniq('Named'));
    const folder = await newFolder();
    const sample: Record<string, unknown> = {
      label: uniq('Renamed'), description: 'd', required: true, queryDisplayField: 'n', queryValueField: 'v', defaultValue: 'x',
      dropDownListId: ZERO_GUID, queryId: ZERO_GUID, connectionId: ZERO_GUID, overriden: false,
    };
    const named = async (path: string, keys: string[]) => {
      const empty = await A.put(path, {});
      expectError(empty, 400, `Send at least one of: ${keys.join(', ')}.`);
      for (const key of keys) expect([key, (await A.put(path, { [key]: sample[key] })).status]).toEqual([key, 200]);
    };
    await named(`/indexfields/${d.id}`, ['label', 'description', 'required', 'queryDisplayField', 'queryValueField', 'defaultValue', 'dropDownListId', 'queryId', 'connectionId']);
    await named(`/folders/${folder.id}/indexfields/${d.id}`, ['overriden', 'required', 'queryDisplayField', 'queryValueField', 'defaultValue', 'dropDownListId', 'queryId', 'connectionId']);
    // A key the type has that the update never changes is not one.
    expectError(await A.put(`/indexfields/${d.id}`, { fieldType: 'Text' }), 400, 'Send at least one of: label,');
  });

  test('GET /indexfields: pagination, q over the fields, in their order', async () => {
    const tag = uniq('Listed');
    for (let i = 0; i < 3; i++) await newField(`${tag}-${i}`, { fieldType: i === 1 ? 5 : 1 });
    const r = await A.get(`/indexfields?${q(`label like '${tag}%'`)}&limit=2`);
    expectEnvelope(r, 'GET', A.url(`/indexfields?${q(`label like '${tag}%'`)}&limit=2`));
    expect(keysOf(r.body.pagination)).toEqual(sorted(PAGINATION_KEYS));
    expect(r.body.pagination.totalRecords).toBe(3);
    expect(r.body.data.map((d: Definition) => d.label)).toEqual([`${tag}-0`, `${tag}-1`]);
    const numeric = await A.get(`/indexfields?${q(`label like '${tag}%' and fieldType eq 5`)}`);
    expect(numeric.body.data.map((d: Definition) => d.label)).toEqual([`${tag}-1`]);
  });

  test('MoveIndexFieldAfter puts the source right after the destination; ordinalPosition and the list follow', async () => {
    const tag = uniq('Order');
    const [a, b, c] = [await newField(`${tag}-a`), await newField(`${tag}-b`), await newField(`${tag}-c`)];
    const r = await A.post('/indexfields/MoveIndexFieldAfter', { sourceFieldId: c.id, destinationFieldId: a.id });
    expectEnvelope(r, 'POST', A.url('/indexfields/MoveIndexFieldAfter'));
    expect(r.body.data.id).toBe(c.id);
    const list = async () => (await A.get(`/indexfields?${q(`label like '${tag}%'`)}&fields=label,ordinalPosition`)).body.data as Definition[];
    const after = await list();
    expect(after.map((d) => d.label)).toEqual([a.label, c.label, b.label]);
    const positions = after.map((d) => d.ordinalPosition as number);
    expect(positions).toEqual([...positions].sort((x, y) => x - y));
    // A field made after a move comes last.
    const d = await newField(`${tag}-d`);
    expect((await list()).map((x) => x.label)).toEqual([a.label, c.label, b.label, d.label]);
    expectError(await A.post('/indexfields/MoveIndexFieldAfter', { sourceFieldId: a.id, destinationFieldId: a.id }), 400, /same/);
    expectError(await A.post('/indexfields/MoveIndexFieldAfter', { sourceFieldId: a.id, destinationFieldId: UNKNOWN_ID }), 404, /destinationFieldId/);
    expectError(await A.post('/indexfields/MoveIndexFieldAfter', { sourceFieldId: a.id }), 400, /destinationFieldId/);
  });

  test('moves at once: each waits for the other, and every field keeps exactly one place', async () => {
    const tag = uniq('Shuffle');
    const fields: Definition[] = [];
    for (let i = 0; i < 6; i++) fields.push(await newField(`${tag}-${i}`));
    // Rounds of moves at once in changing pairs: after the first, places and ids no longer agree in
    // order, which is when moves that locked the rows in the order of their places deadlocked (409).
    for (let round = 0; round < 5; round++) {
      const moves = await Promise.all(
        [...fields, ...fields].map((f, i) => A.post('/indexfields/MoveIndexFieldAfter', { sourceFieldId: f.id, destinationFieldId: fields[(i * (round + 2) + 1) % 6 === i % 6 ? (i + 1) % 6 : (i * (round + 2) + 1) % 6].id })),
      );
      expect([round, moves.map((m) => m.status)]).toEqual([round, Array(12).fill(200)]);
    }
    const all = (await A.get('/indexfields?limit=2000&fields=id,ordinalPosition')).body.data as Definition[];
    const positions = all.map((d) => d.ordinalPosition);
    expect(new Set(positions).size).toBe(all.length);
    expect(sorted(all.filter((d) => fields.some((f) => f.id === d.id)).map((d) => d.id))).toEqual(sorted(fields.map((f) => f.id)));
  });

  test('DELETE /indexfields/{id}: gone, and gone from its folders', async () => {
    const d = await newField();
    const folder = await newFolder();
    await A.put(`/indexfields/${d.id}/folders/${folder.id}`);
    const r = await A.del(`/indexfields/${d.id}`);
    expectEnvelope(r, 'DELETE', A.url(`/indexfields/${d.id}`));
    expect(r.body).not.toHaveProperty('data');
    expectError(await A.get(`/indexfields/${d.id}`), 404, /Index field/);
    expect((await A.get(`/folders/${folder.id}/indexfields`)).body.data).toEqual([]);
    expectError(await A.del(`/indexfields/${d.id}`), 404);
  });
});

describe("folders' index fields", () => {
  test('PUT /indexfields/{id}/folders/{folderId} racing a delete of the index field committed meanwhile: the 404 of an unknown field, not the foreign key\'s', async () => {
    const d = await newField();
    const folder = await newFolder();
    // The delete, committed while the add waits for the definition's row.
    const other = { text: 'delete from index_field where tenant_id = $1 and id = $2', values: [A.t.tenantId, d.id] };
    expectError(await whileHeld(h, other, () => A.put(`/indexfields/${d.id}/folders/${folder.id}`)), 404, `Index field '${d.id}' was not found.`);
    expect((await A.get(`/folders/${folder.id}/indexfields`)).body.data).toEqual([]);
  });

  test('PUT /indexfields/{id}/folders/{folderId} with no body: 200, a FolderIndexField; again: the same, nothing added', async () => {
    const d = await newField(uniq('Customer'), { defaultValue: 'ACME', fieldType: 'Text' });
    const folder = await newFolder();
    const r = await A.request('PUT', `/indexfields/${d.id}/folders/${folder.id}`);
    expectEnvelope(r, 'PUT', A.url(`/indexfields/${d.id}/folders/${folder.id}`));
    const f = r.body.data;
    expect(keysOf(f)).toEqual(sorted(FOLDER_FIELD_KEYS));
    expect(f).toMatchObject({
      dataType: 'FolderIndexField',
      href: `~/folders/${folder.id}/indexfields/${d.id}`,
      id: d.id,
      definitionPkey: d.pkey,
      folderId: folder.id,
      fieldType: 1,
      label: d.label,
      folderOrdinalPosition: 1,
      required: false,
      defaultValue: 'ACME',
      globalDefaultValue: 'ACME',
      globalRequired: false,
      globalQueryID: ZERO_GUID,
      dropDownListId: ZERO_GUID,
      createBy: admin.name,
    });
    const again = await A.put(`/indexfields/${d.id}/folders/${folder.id}`);
    expect(again.body.data).toEqual(f);
    // Its body is read though it names no argument: keys it does not know are ignored, a malformed one is a 400 (it was a 200, unread).
    expect((await A.put(`/indexfields/${d.id}/folders/${folder.id}`, { required: true })).body.data).toEqual(f);
    expectError(await A.request('PUT', `/indexfields/${d.id}/folders/${folder.id}`, { raw: '{"required":', headers: { 'content-type': 'application/json' } }), 400, 'The request body is not valid JSON');
    const list = await A.get(`/folders/${folder.id}/indexfields`);
    expectEnvelope(list, 'GET', A.url(`/folders/${folder.id}/indexfields`));
    expect(list.body).not.toHaveProperty('pagination');
    expect(list.body.data).toEqual([f]);
    const one = await A.get(`/folders/${folder.id}/indexfields/${d.id}`);
    expect(one.body.data).toEqual(f);
  });

  test("a folder's fields in the order they were added, also when added at once", async () => {
    const folder = await newFolder();
    const fields: Definition[] = [];
    for (let i = 0; i < 5; i++) fields.push(await newField());
    const replies = await Promise.all(fields.map((d) => A.put(`/indexfields/${d.id}/folders/${folder.id}`)));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const list = (await A.get(`/folders/${folder.id}/indexfields`)).body.data as Record<string, unknown>[];
    expect(list.map((f) => f.folderOrdinalPosition)).toEqual([1, 2, 3, 4, 5]);
    expect(sorted(list.map((f) => f.id as string))).toEqual(sorted(fields.map((f) => f.id)));
  });

  test('PUT /folders/{folderId}/indexfields/{id} overrides for this folder only; null gives the definition value back', async () => {
    const d = await newField(uniq('Region'), { defaultValue: 'North', required: false });
    const [one, two] = [await newFolder(), await newFolder()];
    for (const f of [one, two]) await A.put(`/indexfields/${d.id}/folders/${f.id}`);
    const body = { dropDownListId: ZERO_GUID, queryId: ZERO_GUID, queryValueField: 'code', queryDisplayField: 'name', required: true, defaultValue: 'South' };
    const r = await A.put(`/folders/${one.id}/indexfields/${d.id}`, body);
    expectEnvelope(r, 'PUT', A.url(`/folders/${one.id}/indexfields/${d.id}`));
    expect(r.body).not.toHaveProperty('data');
    const overridden = (await A.get(`/folders/${one.id}/indexfields/${d.id}`)).body.data;
    expect(overridden).toMatchObject({ required: true, defaultValue: 'South', queryValueField: 'code', globalRequired: false, globalDefaultValue: 'North', globalQueryValueField: '' });
    expect((await A.get(`/folders/${two.id}/indexfields/${d.id}`)).body.data).toMatchObject({ required: false, defaultValue: 'North' });
    // A change of the definition shows where the folder does not override it.
    await A.put(`/indexfields/${d.id}`, { description: 'new', defaultValue: 'East' });
    expect((await A.get(`/folders/${two.id}/indexfields/${d.id}`)).body.data).toMatchObject({ description: 'new', defaultValue: 'East', globalDefaultValue: 'East' });
    expect((await A.get(`/folders/${one.id}/indexfields/${d.id}`)).body.data).toMatchObject({ description: 'new', defaultValue: 'South', globalDefaultValue: 'East' });
    await A.put(`/folders/${one.id}/indexfields/${d.id}`, { defaultValue: null });
    expect((await A.get(`/folders/${one.id}/indexfields/${d.id}`)).body.data).toMatchObject({ defaultValue: 'East', required: true });
  });

  test("overriden false (the .NET client's UpdateFolderIndexFieldToNotOverride, a JSON string) gives every definition value back; keys beside it are then set", async () => {
    const list = (await A.post('/lists', { Name: uniq('Sizes'), Items: [{ itemName: 'S' }, { itemName: 'L' }] })).body.data;
    const d = await newField(uniq('Size'), { defaultValue: 'North', required: false });
    const folder = await newFolder();
    await A.put(`/folders/${folder.id}/indexfields/${d.id}`, { dropDownListId: list.listID, queryValueField: 'code', queryDisplayField: 'name', required: true, defaultValue: 'South' });
    const back = await A.put(`/folders/${folder.id}/indexfields/${d.id}`, { overriden: 'false' });
    expectEnvelope(back, 'PUT', A.url(`/folders/${folder.id}/indexfields/${d.id}`));
    const definition = { required: false, dropDownListId: ZERO_GUID, queryValueField: '', queryDisplayField: '', defaultValue: 'North' };
    expect((await A.get(`/folders/${folder.id}/indexfields/${d.id}`)).body.data).toMatchObject(definition);
    await A.put(`/folders/${folder.id}/indexfields/${d.id}`, { required: true, defaultValue: 'South' });
    expect((await A.put(`/folders/${folder.id}/indexfields/${d.id}`, { overriden: false, defaultValue: 'West' })).status).toBe(200);
    expect((await A.get(`/folders/${folder.id}/indexfields/${d.id}`)).body.data).toMatchObject({ ...definition, defaultValue: 'West' });
    // true asks for nothing by itself.
    expectError(await A.put(`/folders/${folder.id}/indexfields/${d.id}`, { overriden: true }), 400, 'Send at least one of: overriden,');
  });

  test('errors: unknown folder, field or list, a field not in the folder, ids of parts not built, an empty override', async () => {
    const d = await newField();
    const folder = await newFolder();
    expectError(await A.put(`/indexfields/${UNKNOWN_ID}/folders/${folder.id}`), 404, /Index field/);
    expectError(await A.put(`/indexfields/${d.id}/folders/${UNKNOWN_ID}`), 404, /Folder/);
    expectError(await A.get(`/folders/${folder.id}/indexfields/${d.id}`), 404, /not in folder/);
    expectError(await A.get(`/folders/${UNKNOWN_ID}/indexfields/${d.id}`), 404, /Folder/);
    expectError(await A.get(`/folders/${UNKNOWN_ID}/indexfields`), 404, /Folder/);
    expectError(await A.put(`/folders/${folder.id}/indexfields/${UNKNOWN_ID}`, { required: true }), 404, /Index field/);
    expectError(await A.put(`/folders/${UNKNOWN_ID}/indexfields/${d.id}`, { required: true }), 404, /Folder/);
    await A.put(`/indexfields/${d.id}/folders/${folder.id}`);
    expectError(await A.put(`/folders/${folder.id}/indexfields/${d.id}`, { dropDownListId: UNKNOWN_ID }), 404, /Drop-down list/);
    expectError(await A.put(`/folders/${folder.id}/indexfields/${d.id}`, { connectionId: UNKNOWN_ID }), 400, /connections/);
    expectError(await A.put(`/folders/${folder.id}/indexfields/${d.id}`, {}), 400, /at least one of: .*queryId, connectionId\./);
    expectError(await A.put(`/folders/${folder.id}/indexfields/${d.id}`, { defaultValue: 'x'.repeat(4001) }), 400, /defaultValue/);
    expect((await A.get(`/folders/${folder.id}/indexfields/${d.id}`)).body.data.required).toBe(false);
  });

  test('overriding a field the folder does not have adds it (as the Node client overrides one on a folder it just made)', async () => {
    const d = await newField(uniq('Added'), { defaultValue: 'global' });
    const folder = await newFolder();
    const r = await A.put(`/folders/${folder.id}/indexfields/${d.id}`, { queryId: ZERO_GUID, queryValueField: '', queryDisplayField: '', dropDownListId: ZERO_GUID, required: false, defaultValue: 'Test Default' });
    expectEnvelope(r, 'PUT', A.url(`/folders/${folder.id}/indexfields/${d.id}`));
    const list = (await A.get(`/folders/${folder.id}/indexfields`)).body.data;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: d.id, folderOrdinalPosition: 1, defaultValue: 'Test Default', globalDefaultValue: 'global' });
  });

  test('DELETE /folders/{folderId}/indexfields/{id} takes it out of that folder only; a deleted folder takes its fields with it', async () => {
    const d = await newField();
    const [one, two] = [await newFolder(), await newFolder()];
    for (const f of [one, two]) await A.put(`/indexfields/${d.id}/folders/${f.id}`);
    const r = await A.del(`/folders/${one.id}/indexfields/${d.id}`);
    expectEnvelope(r, 'DELETE', A.url(`/folders/${one.id}/indexfields/${d.id}`));
    expect((await A.get(`/folders/${one.id}/indexfields`)).body.data).toEqual([]);
    expect((await A.get(`/folders/${two.id}/indexfields`)).body.data).toHaveLength(1);
    expectError(await A.del(`/folders/${one.id}/indexfields/${d.id}`), 404);
    await A.del(`/folders/${two.id}`);
    expect((await A.get(`/indexfields/${d.id}`)).status).toBe(200);
  });
});

describe('a drop-down list dropDownListId names, deleted while the write waits for it', () => {
  test.each([
    ['POST indexfields', (d: Definition, _f: string, list: string) => A.post('/indexfields', nodeBody(d.label, { dropDownListId: list }))],
    ['PUT indexfields/{id}', (d: Definition, _f: string, list: string) => A.put(`/indexfields/${d.id}`, { dropDownListId: list })],
    ['PUT folders/{id}/indexfields/{id}', (d: Definition, f: string, list: string) => A.put(`/folders/${f}/indexfields/${d.id}`, { dropDownListId: list })],
  ])('%s: the 404 of an unknown list, not the foreign key\'s; nothing changed', async (what, send) => {
    const d = await newField();
    const folder = await newFolder();
    await A.put(`/indexfields/${d.id}/folders/${folder.id}`);
    const before = [(await A.get(`/indexfields/${d.id}`)).body.data, (await A.get(`/folders/${folder.id}/indexfields`)).body.data];
    // A new field's label is free again once the one made here is gone.
    const fresh = what === 'POST indexfields' ? { ...d, label: uniq('Late') } : d;
    const list = { id: (await A.post('/lists', { Name: uniq('Doomed'), Items: [{ itemName: 'a', itemValue: 'a' }] })).body.data.listID as string };
    // The delete, committed while the write waits for the list's row.
    const other = { text: 'delete from dropdown_list where tenant_id = $1 and id = $2', values: [A.t.tenantId, list.id] };
    const r = await whileHeld(h, other, () => send(fresh, folder.id, list.id));
    expectError(r, 404, `Drop-down list '${list.id}' was not found.`);
    expectAsUnknown(r, await send(fresh, folder.id, UNKNOWN_ID), list.id);
    expect([(await A.get(`/indexfields/${d.id}`)).body.data, (await A.get(`/folders/${folder.id}/indexfields`)).body.data]).toEqual(before);
    expect((await A.get(`/indexfields?${q(`label eq '${fresh.label}'`)}`)).body.data).toHaveLength(fresh === d ? 1 : 0);
  });
});

describe('who may', () => {
  test('an ordinary user reads definitions and folder fields but changes none', async () => {
    const d = await newField();
    const folder = await newFolder();
    await A.put(`/indexfields/${d.id}/folders/${folder.id}`);
    const U = A.as(plain.token);
    expect((await U.get(`/indexfields/${d.id}`)).status).toBe(200);
    expect((await U.get(`/folders/${folder.id}/indexfields`)).body.data).toHaveLength(1);
    expectError(await U.post('/indexfields', nodeBody(uniq('No'))), 403);
    expectError(await U.put(`/indexfields/${d.id}`, { description: 'no' }), 403);
    expectError(await U.put(`/folders/${folder.id}/indexfields/${d.id}`, { required: true }), 403);
    expectError(await U.del(`/indexfields/${d.id}`), 403);
    expect((await A.get(`/indexfields/${d.id}`)).body.data.description).toBe('Created by test');
  });

  test("another tenant's definitions and folders are not found", async () => {
    const d = await newField();
    const folder = await newFolder();
    expectError(await B.get(`/indexfields/${d.id}`), 404);
    expectError(await B.put(`/indexfields/${d.id}/folders/${folder.id}`), 404);
    expect((await B.get(`/indexfields?${q(`label eq '${d.label}'`)}`)).body.data).toEqual([]);
    // The same label is free in another database.
    expect((await B.post('/indexfields', nodeBody(d.label))).status).toBe(200);
  });
});

describe('GraphQL', () => {
  test('folders with their index fields and each field with its definition; statements constant as the page grows', async () => {
    const folder = await newFolder();
    for (let i = 0; i < 4; i++) await A.put(`/indexfields/${(await newField()).id}/folders/${folder.id}`);
    const query = (limit: number) =>
      A.gql(`query ($id: UUID!) { folder(id: $id) { indexFields(limit: ${limit}) { label folderOrdinalPosition definition { id pkey } folder { id } } } folderIndexFields(id: $id, limit: ${limit}) { totalRecords items { id } } }`, {
        id: folder.id,
      });
    const small = await h.countQueries(() => query(1));
    const big = await h.countQueries(() => query(4));
    expect(big.result.body.errors).toBeUndefined();
    const fields = big.result.body.data.folder.indexFields;
    expect(fields).toHaveLength(4);
    expect(fields[3]).toMatchObject({ folderOrdinalPosition: 4, folder: { id: folder.id }, definition: { id: expect.stringMatching(GUID) } });
    expect(big.result.body.data.folderIndexFields.totalRecords).toBe(4);
    expect(big.statements.length).toBe(small.statements.length);
  });

  test("the mutations: create with a type name, relate, override", async () => {
    const made = await A.gql('mutation ($l: String) { createIndexField(input: { label: $l, fieldType: "Numeric", defaultValue: "1" }) { id fieldType label } }', { l: uniq('Gql') });
    expect(made.body.errors).toBeUndefined();
    const id = made.body.data.createIndexField.id;
    expect(made.body.data.createIndexField.fieldType).toBe(5);
    const folder = await newFolder();
    const related = await A.gql('mutation ($id: UUID!, $f: UUID!) { relateIndexFieldToFolder(id: $id, folderId: $f) { folderOrdinalPosition } updateFolderIndexField(folderId: $f, id: $id, input: { defaultValue: "2" }) { defaultValue globalDefaultValue } }', {
      id,
      f: folder.id,
    });
    expect(related.body.data).toEqual({ relateIndexFieldToFolder: { folderOrdinalPosition: 1 }, updateFolderIndexField: { defaultValue: '2', globalDefaultValue: '1' } });
  });
});
