/**
 * Drop-down lists (client-compatibility.md: `R/lists` with `listID` and `listName`, an item's own
 * id under `listId`, bodies `{Name, Description, Items: [{itemName, itemValue}]}`,
 * `DELETE lists/{id}/items?itemIds=a,b`) and the options of drop-down index fields
 * (`GET folders/{folderId}/indexfields/{id}/selectoptions`).
 */
import { expectEnvelope, expectError, keysOf, q, sorted, uniq, UNKNOWN_ID, ZERO_GUID } from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

const LIST_KEYS = ['href', 'dataType', 'listID', 'listName', 'description', 'itemCount', 'createDate', 'modifyDate', 'createById', 'modifyById', 'createBy', 'modifyBy'];
const ITEM_KEYS = ['href', 'dataType', 'listId', 'dropDownListId', 'itemName', 'itemValue', 'ordinalPosition'];

setUpTwoTenants();

type List = Record<string, unknown> & { listID: string; listName: string };
const TWO = [
  { itemName: 'Item One', itemValue: 'One' },
  { itemName: 'Item Two', itemValue: 'Two' },
];

async function newList(name = uniq('List'), items: unknown = TWO): Promise<List> {
  const r = await A.post('/lists', { Name: name, Description: 'list created by test', Items: items });
  expect([r.status, r.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
  return r.body.data;
}
const itemsOf = async (id: string) => (await A.get(`/lists/${id}/items`)).body.data as Record<string, unknown>[];

describe('lists', () => {
  test('POST lists as the Node client sends it: 200, the list; GET lists finds it by listName; items in their order', async () => {
    const name = uniq('Test Dropdown List');
    const r = await A.post('/lists', { Name: name, Description: 'list created by test', Items: TWO });
    expectEnvelope(r, 'POST', A.url('/lists'));
    const list = r.body.data;
    expect(keysOf(list)).toEqual(sorted(LIST_KEYS));
    expect(list).toMatchObject({ dataType: 'DropDownList', href: `~/lists/${list.listID}`, listName: name, description: 'list created by test', itemCount: 2 });
    const all = await A.get('/lists');
    expectEnvelope(all, 'GET', A.url('/lists'));
    expect(all.body.data.find((l: List) => l.listName === name).listID).toBe(list.listID);
    expect((await A.get(`/lists/${list.listID}`)).body.data).toEqual(list);
    const items = await A.get(`/lists/${list.listID}/items`);
    expectEnvelope(items, 'GET', A.url(`/lists/${list.listID}/items`));
    expect(keysOf(items.body.data[0])).toEqual(sorted(ITEM_KEYS));
    expect(items.body.data.map((i: Record<string, unknown>) => [i.itemName, i.itemValue, i.ordinalPosition, i.dropDownListId])).toEqual([
      ['Item One', 'One', 1, list.listID],
      ['Item Two', 'Two', 2, list.listID],
    ]);
    expect(items.body.data[0].href).toBe(`~/lists/${list.listID}/items/${items.body.data[0].listId}`);
    expect((await A.get(`/lists?${q(`listName eq '${name}'`)}`)).body.data).toHaveLength(1);
    // An item's href reads it; under another list it is a 404.
    const second = items.body.data[1];
    expect((await A.get(second.href.slice(1))).body.data).toEqual(second);
    const other = (await A.post('/lists', { Name: uniq('other'), Items: TWO })).body.data;
    expectError(await A.get(`/lists/${other.listID}/items/${second.listId}`), 404, /was not found in/);
    expectError(await A.get(`/lists/${list.listID}/items/${UNKNOWN_ID}`), 404);
  });

  test('GET lists/{id}?expand=items: the list with its items, not its items in its place; fields= its own', async () => {
    const list = await newList();
    const expanded = (await A.get(`/lists/${list.listID}?expand=items`)).body.data;
    expect(expanded).toMatchObject({ dataType: 'DropDownList', listID: list.listID, listName: list.listName, itemCount: 2 });
    expect(expanded.items.map((i: Record<string, unknown>) => [keysOf(i), i.itemName])).toEqual([
      [sorted(ITEM_KEYS), 'Item One'],
      [sorted(ITEM_KEYS), 'Item Two'],
    ]);
    expect((await A.get(`/lists/${list.listID}?fields=listName,itemCount`)).body.data).toEqual({ href: list.href, dataType: 'DropDownList', listName: list.listName, itemCount: 2 });
  });

  test('PUT lists/{id}: name and description change, Items replace every item; keys left out stay', async () => {
    const list = await newList();
    const renamed = uniq('Updated Test List');
    const r = await A.put(`/lists/${list.listID}`, { Name: renamed, Description: 'updated', Items: [...TWO, { itemName: 'New Item Three', itemValue: 'Three' }] });
    expectEnvelope(r, 'PUT', A.url(`/lists/${list.listID}`));
    expect(r.body.data).toMatchObject({ listName: renamed, description: 'updated', itemCount: 3 });
    expect((await itemsOf(list.listID)).map((i) => i.itemValue)).toEqual(['One', 'Two', 'Three']);
    expect((await A.put(`/lists/${list.listID}`, { Description: 'only this' })).body.data).toMatchObject({ listName: renamed, itemCount: 3 });
    // An item's value is its name when left out.
    await A.put(`/lists/${list.listID}`, { Items: [{ itemName: 'Solo' }] });
    expect((await itemsOf(list.listID)).map((i) => [i.itemName, i.itemValue])).toEqual([['Solo', 'Solo']]);
  });

  test('DELETE lists/{id}/items?itemIds=a,b deletes those items, all or none; DELETE lists/{id} the list', async () => {
    const list = await newList(uniq('L'), [...TWO, { itemName: 'Three', itemValue: '3' }]);
    const items = await itemsOf(list.listID);
    const r = await A.del(`/lists/${list.listID}/items?itemIds=${items[0].listId},${items[2].listId}`);
    expectEnvelope(r, 'DELETE', A.url(`/lists/${list.listID}/items?itemIds=${items[0].listId},${items[2].listId}`));
    expect((await itemsOf(list.listID)).map((i) => i.itemValue)).toEqual(['Two']);
    expectError(await A.del(`/lists/${list.listID}/items?itemIds=${items[1].listId},${UNKNOWN_ID.toUpperCase()}`), 404, `Item '${UNKNOWN_ID.toUpperCase()}' is not an item of drop-down list '${list.listName}'; nothing was deleted.`);
    // Those already deleted and those of another list, named as sent.
    const other = await newList();
    const theirs = (await itemsOf(other.listID))[0].listId as string;
    expectError(
      await A.del(`/lists/${list.listID}/items?itemIds=${items[0].listId},${items[1].listId},${theirs}`),
      404,
      `Items '${items[0].listId}', '${theirs}' are not items of drop-down list '${list.listName}'; nothing was deleted.`,
    );
    expect(await itemsOf(list.listID)).toHaveLength(1);
    expectError(await A.del(`/lists/${list.listID}/items?itemIds=nope`), 400, /itemIds/);
    expectError(await A.del(`/lists/${list.listID}/items`), 400, /itemIds/);
    expectEnvelope(await A.del(`/lists/${list.listID}`), 'DELETE', A.url(`/lists/${list.listID}`));
    expectError(await A.get(`/lists/${list.listID}`), 404, /Drop-down list/);
    expectError(await A.get(`/lists/${list.listID}/items`), 404);
  });

  test('bad input: 400s and 409s that name the problem, and nothing is made', async () => {
    const before = (await A.get('/lists?limit=1')).body.pagination.totalRecords;
    const taken = await newList();
    const after = before + 1;
    expectError(await A.post('/lists', { Name: ' ', Items: TWO }), 400, "The field 'Name' must not be blank");
    expectError(await A.post('/lists', { Description: 'd', Items: TWO }), 400, "The mandatory field 'name' is missing.");
    expectError(await A.post('/lists', { Name: 'x'.repeat(257) }), 400, /256/);
    expectError(await A.post('/lists', { Name: uniq('x'), Items: 'One,Two' }), 400, `The field 'Items' takes objects with the keys itemName and itemValue, got "One,Two".`);
    expectError(await A.post('/lists', { Name: uniq('x'), Items: [{ itemValue: 'no name' }] }), 400, "The field 'Items[0].itemName' is missing.");
    // Blank, as every other name: not 'missing', which it is not.
    expectError(await A.post('/lists', { Name: uniq('x'), Items: [{ itemName: 'a' }, { itemName: '' }] }), 400, "The field 'Items[1].itemName' must not be blank.");
    expectError(await A.put(`/lists/${taken.listID}`, { Items: [{ itemName: '  ', itemValue: 'v' }] }), 400, "The field 'Items[0].itemName' must not be blank.");
    expectError(await A.post('/lists', { Name: uniq('x'), Items: [{ itemName: 'y'.repeat(1001) }] }), 400, /1000/);
    expectError(await A.post('/lists', { Name: taken.listName.toUpperCase() }), 409, /already exists/);
    expectError(await A.put(`/lists/${taken.listID}`, {}), 400, /at least one/);
    expectError(await A.put(`/lists/${UNKNOWN_ID}`, { Description: 'x' }), 404);
    expect((await A.get('/lists?limit=1')).body.pagination.totalRecords).toBe(after);
  });

  test('two creates of one name at once: one list; two item replacements at once: one whole set', async () => {
    const name = uniq('Race');
    const made = await Promise.all(Array.from({ length: 3 }, () => A.post('/lists', { Name: name, Items: TWO })));
    expect(made.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    const list = made.find((r) => r.status === 200)!.body.data as List;
    const sets = [['a', 'b', 'c'], ['d', 'e'], ['f']];
    const replies = await Promise.all(sets.map((s) => A.put(`/lists/${list.listID}`, { Items: s.map((v) => ({ itemName: v })) })));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    const values = (await itemsOf(list.listID)).map((i) => i.itemValue);
    expect(sets).toContainEqual(values);
  });

  test('two renames to one name at once, 20 rounds: one wins, the other a 409; one list of that name', async () => {
    for (let round = 0; round < 20; round++) {
      const name = uniq('Same');
      const [a, b] = [(await A.post('/lists', { Name: uniq('One'), Items: TWO })).body.data as List, (await A.post('/lists', { Name: uniq('Two'), Items: TWO })).body.data as List];
      const replies = await Promise.all([a, b].map((l) => A.put(`/lists/${l.listID}`, { Name: name })));
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
      expectError(replies.find((r) => r.status === 409)!, 409, /already exists/);
      const named = await Promise.all([a, b].map(async (l) => (await A.get(`/lists/${l.listID}`)).body.data.listName));
      expect(named.filter((n: string) => n === name)).toHaveLength(1);
    }
  });
});

describe('drop-down index fields', () => {
  test('/meta describes the options\' data type, which no table holds, from its GraphQL type; a type not served yet is still a 404', async () => {
    const described = { dataType: 'IndexFieldSelectOption', availableFields: ['display', 'value'], defaultFields: ['display', 'value'], idField: 'value' };
    expect((await A.get('/meta/indexfieldselectoption')).body.data).toEqual(described);
    const all = (await A.get('/meta?expand=true')).body;
    expect(all.data).toContainEqual(described);
    // Each data type once, described as /meta/{datatype} describes it (a document's revisions are Documents too).
    const names = all.data.map((d: { dataType: string }) => d.dataType);
    expect(names).toEqual([...new Set(names)]);
    expect(all.data.find((d: { dataType: string }) => d.dataType === 'Document')).toEqual((await A.get('/meta/Document')).body.data);
    // Paged as its pagination says: limit and offset cut the list, the total counts it whole.
    const page = (await A.get('/meta?expand=true&limit=2&offset=1')).body;
    expect(page.data).toEqual(all.data.slice(1, 3));
    expect(page.pagination).toMatchObject({ limit: 2, totalRecords: all.data.length });
    expectError(await A.get('/meta/ServerStatus'), 404, /not served by this version/);
  });

  test("/meta/{datatype} takes the route's plural, as the PHP client's getMetaData is told to send it ('documents')", async () => {
    for (const [plural, single] of [['documents', 'Document'], ['Users', 'User'], ['formtemplates', 'FormTemplate'], ['sites', 'Site']]) {
      const r = await A.get(`/meta/${plural}`);
      expectEnvelope(r, 'GET', A.url(`/meta/${plural}`));
      expect(r.body.data).toEqual((await A.get(`/meta/${single}`)).body.data);
    }
    expectError(await A.get('/meta/customers'), 404, /not served by this version/);
    expectError(await A.get('/meta/nothings'), 404, "Unknown data type 'nothings'. GET /meta lists the data types.");
  });

  test('a definition and a folder name lists; selectoptions answers the items, the users, or none', async () => {
    const colours = await newList(uniq('Colours'), [{ itemName: 'Red', itemValue: 'R' }, { itemName: 'Green', itemValue: 'G' }]);
    const sizes = await newList(uniq('Sizes'), [{ itemName: 'Small', itemValue: 'S' }]);
    const folder = (await A.post('/folders', { name: uniq('Options') })).body.data;
    const listField = (await A.post('/indexfields', { label: uniq('Colour'), fieldType: 'DropDownList', dropdownListId: colours.listID })).body.data;
    expect(listField.dropDownListId).toBe(colours.listID);
    const userField = (await A.post('/indexfields', { label: uniq('Owner'), fieldType: 7 })).body.data;
    const textField = (await A.post('/indexfields', { label: uniq('Text'), fieldType: 1 })).body.data;
    for (const f of [listField, userField, textField]) await A.put(`/indexfields/${f.id}/folders/${folder.id}`);

    const path = `/folders/${folder.id}/indexfields/${listField.id}/selectoptions`;
    const r = await A.get(path);
    expectEnvelope(r, 'GET', A.url(path));
    expect(r.body.data).toEqual([
      { href: expect.stringMatching(new RegExp(`^~/lists/${colours.listID}/items/`)), dataType: 'IndexFieldSelectOption', display: 'Red', value: 'R' },
      { href: expect.any(String), dataType: 'IndexFieldSelectOption', display: 'Green', value: 'G' },
    ]);
    // fields= keeps what it names, href and dataType staying, as on every record.
    expect((await A.get(`${path}?fields=Value`)).body.data).toEqual([
      { href: r.body.data[0].href, dataType: 'IndexFieldSelectOption', value: 'R' },
      { href: r.body.data[1].href, dataType: 'IndexFieldSelectOption', value: 'G' },
    ]);
    // q= filters the options over display and value, as other lists are filtered; a bad q is a 400.
    expect((await A.get(`${path}?${q("value eq 'G'")}`)).body.data.map((o: Record<string, unknown>) => o.display)).toEqual(['Green']);
    expect((await A.get(`${path}?${q("display like 'r%' or value in ('x', 'y')")}`)).body.data.map((o: Record<string, unknown>) => o.value)).toEqual(['R']);
    expect((await A.get(`${path}?q=`)).body.data).toHaveLength(2);
    const unknown = await A.get(`${path}?${q("itemName eq 'Red'")}`);
    expectError(unknown, 400, "unknown field 'itemName'");
    expect(unknown.body.meta.errors[0].developerMessage).toContain('Known fields: display, value.');
    // The folder's own list overrides the definition's; null gives it back.
    await A.put(`/folders/${folder.id}/indexfields/${listField.id}`, { dropDownListId: sizes.listID });
    expect((await A.get(path)).body.data.map((o: Record<string, unknown>) => o.value)).toEqual(['S']);
    expect((await A.get(`/folders/${folder.id}/indexfields/${listField.id}`)).body.data).toMatchObject({ dropDownListId: sizes.listID, globalDropDownListId: colours.listID });
    await A.put(`/folders/${folder.id}/indexfields/${listField.id}`, { dropDownListId: null });
    expect((await A.get(path)).body.data.map((o: Record<string, unknown>) => o.value)).toEqual(['R', 'G']);

    const users = (await A.get(`/folders/${folder.id}/indexfields/${userField.id}/selectoptions`)).body.data as Record<string, unknown>[];
    expect(users.map((u) => u.value)).toContain(plain.userid);
    const one = (await A.get(`/folders/${folder.id}/indexfields/${userField.id}/selectoptions?${q(`value eq '${plain.userid}'`)}`)).body.data as Record<string, unknown>[];
    expect(one).toEqual([users.find((u) => u.value === plain.userid)]);
    expectError(await A.get(`/folders/${folder.id}/indexfields/${textField.id}/selectoptions?${q('nosuch eq 1')}`), 400, /unknown field/);
    expect((await A.get(`/folders/${folder.id}/indexfields/${textField.id}/selectoptions`)).body.data).toEqual([]);
    expectError(await A.get(`/folders/${folder.id}/indexfields/${UNKNOWN_ID}/selectoptions`), 404, /not in folder/);

    // A list in use cannot go; a definition may be pointed elsewhere, or at none.
    expectError(await A.del(`/lists/${colours.listID}`), 409, `Drop-down list '${colours.listName}' is used by the index field '${listField.label}': point it at another list, or at none, first.`);
    expectError(await A.post('/indexfields', { label: uniq('Bad'), fieldType: 6, dropDownListId: UNKNOWN_ID }), 404, /Drop-down list/);
    expect((await A.put(`/indexfields/${listField.id}`, { dropDownListId: ZERO_GUID })).body.data.dropDownListId).toBe(ZERO_GUID);
    expect((await A.del(`/lists/${colours.listID}`)).status).toBe(200);
  });
});

describe('deleting a list in use', () => {
  test('a 409 names the index fields that use it, definitions and folder overrides (with the folder), at most 10 and then how many more; nothing is deleted', async () => {
    const list = await newList(uniq('Used'));
    const folder = (await A.post('/folders', { name: uniq('Uses') })).body.data;
    const own = (await A.post('/indexfields', { label: uniq('Own'), fieldType: 'DropDownList', dropdownListId: list.listID })).body.data;
    const other = (await A.post('/indexfields', { label: uniq('Overridden'), fieldType: 'DropDownList' })).body.data;
    await A.put(`/indexfields/${other.id}/folders/${folder.id}`);
    await A.put(`/folders/${folder.id}/indexfields/${other.id}`, { dropDownListId: list.listID });
    expectError(
      await A.del(`/lists/${list.listID}`),
      409,
      `Drop-down list '${list.listName}' is used by the index fields '${own.label}', '${other.label}' (in folder '${folder.folderPath}'): point them at another list, or at none, first.`,
    );
    const tag = uniq('Many');
    for (let i = 0; i < 11; i++) await A.post('/indexfields', { label: `${tag}-${String(i).padStart(2, '0')}`, fieldType: 'DropDownList', dropdownListId: list.listID });
    const many = await A.del(`/lists/${list.listID}`);
    expectError(many, 409, / and 3 more: point them at another list, or at none, first\.$/);
    expect(many.body.meta.errors[0].message.match(/'/g)).toHaveLength(2 * 11);
    expect((await A.get(`/lists/${list.listID}/items`)).body.data).toHaveLength(2);
  });
});

describe('who may', () => {
  test('anyone in the database reads lists; only administrators change them; other tenants find nothing', async () => {
    const list = await newList();
    const U = A.as(plain.token);
    expect((await U.get(`/lists/${list.listID}/items`)).body.data).toHaveLength(2);
    expectError(await U.post('/lists', { Name: uniq('No') }), 403);
    expectError(await U.put(`/lists/${list.listID}`, { Description: 'no' }), 403);
    expectError(await U.del(`/lists/${list.listID}`), 403);
    expectError(await B.get(`/lists/${list.listID}`), 404);
    expectError(await B.del(`/lists/${list.listID}`), 404);
    expect((await A.get(`/lists/${list.listID}`)).body.data.description).toBe('list created by test');
  });

  test('GraphQL: lists with their items, statements constant as the page grows', async () => {
    const tag = uniq('Gql');
    for (let i = 0; i < 4; i++) await newList(`${tag}-${i}`);
    const query = (limit: number) => A.gql(`query ($q: String) { dropDownLists(q: $q, limit: ${limit}) { totalRecords items { listName itemCount items(limit: 5) { itemName } } } }`, { q: `listName like '${tag}%'` });
    const small = await h.countQueries(() => query(1));
    const big = await h.countQueries(() => query(4));
    expect(big.result.body.errors).toBeUndefined();
    expect(big.result.body.data.dropDownLists.items[3]).toEqual({ listName: `${tag}-3`, itemCount: 2, items: [{ itemName: 'Item One' }, { itemName: 'Item Two' }] });
    expect(big.statements.length).toBe(small.statements.length);
  });
});
