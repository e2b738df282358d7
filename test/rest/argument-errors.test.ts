/**
 * Arguments GraphQL could not take, as a REST caller reads the refusal: the key they sent and
 * what it must be, never a GraphQL variable (which stays in the developer message).
 */
import { GraphQLBoolean, GraphQLInputObjectType, GraphQLList, GraphQLString } from 'graphql';
import { asSent, fitInput } from '../../src/rest/input.js';
import { forRestCaller } from '../../src/rest/variable-errors.js';
import { expectError, multipart, uniq, ZERO_GUID } from './support.js';
import { A, setUpTwoTenants } from './two-tenants.js';

setUpTwoTenants();

const error = (message: string) => ({ code: 'BAD_REQUEST', message, developerMessage: message });

test.each([
  ['Variable "$folderPath" of required type "String!" was not provided.', "The mandatory field 'folderPath' is missing."],
  ['Variable "$id" of non-null type "UUID!" must not be null.', "The mandatory field 'id' is missing."],
  ['Variable "$allowRevisions" got invalid value "yes"; Expected type Boolean; Boolean cannot represent a non boolean value: "yes"', `The field 'allowRevisions' must be true or false, got "yes".`],
  ['Variable "$input" got invalid value "x" at "input.scope"; Int cannot represent non-integer value: "x"', `The field 'scope' has a value that cannot be taken ("x"): Int cannot represent non-integer value: "x"`],
  ['Variable "$input" got invalid value 5 at "input.when"; Expected type "DateTime". Expected a date-time', "The field 'when' must be a date-time like 2024-01-31T13:45:00, from year 1 to 9999 in UTC, got 5."],
  // A required key missing in an object, in graphql-jit's words and in graphql-js's; a null in a list.
  ['Variable "$input" got invalid value { name: "a.txt" } at "input.fileUpload[0]"; Field value.fileUpload[0].base64 of required type String! was not provided.', "The mandatory field 'fileUpload[0].base64' is missing."],
  ['Variable "$input" got invalid value {} at "input.items[1]"; Field "itemName" of required type "String!" was not provided.', "The mandatory field 'items[1].itemName' is missing."],
  ['Variable "$input" got invalid value null at "input.recipients[1]"; Expected non-nullable type String! not to be null at value.recipients[1].', "The field 'recipients[1]' must be text, got null."],
])('%s', (graphql, rest) => {
  expect(forRestCaller(error(graphql))).toEqual({ ...error(graphql), message: rest });
});

test('a value of a type it does not know is named with GraphQL\'s reason', () => {
  const graphql = 'Variable "$input" got invalid value {} at "input.items"; Expected type "Item" to be an object.';
  expect(forRestCaller(error(graphql)).message).toBe(`The field 'items' has a value that cannot be taken ({}): Expected type "Item" to be an object.`);
});

test("an input object's refusal says what shape it takes, with the keys of its type, never the type's name", () => {
  const graphql = 'Variable "$items" got invalid value "a"; Expected type DropDownListItemInput to be an object.';
  const shapes = new Map([['DropDownListItemInput', ['itemName', 'itemValue']], ['Action', ['action', 'memberId', 'roleType']]]);
  expect(forRestCaller(error(graphql), shapes).message).toBe(`The field 'items' takes objects with the keys itemName and itemValue, got "a".`);
  const three = 'Variable "$input" got invalid value 5 at "input.actions[1]"; Expected type "Action" to be an object.';
  expect(forRestCaller(error(three), shapes).message).toBe(`The field 'actions[1]' takes objects with the keys action, memberId and roleType, got 5.`);
  const nulled = 'Variable "$input" got invalid value null at "input.actions[1]"; Expected non-nullable type Action! not to be null at value.actions[1].';
  expect(forRestCaller(error(nulled), shapes).message).toBe(`The field 'actions[1]' takes objects with the keys action, memberId and roleType, got null.`);
});

test("a field's path as the body spelled its keys, index by index; text that is no path stays as it is", () => {
  const sentAs = new Map([['items', 'Items'], ['items[1].itemName', 'ItemName']]);
  expect(asSent('items[1].itemName', sentAs)).toBe('Items[1].ItemName');
  expect(asSent('items[0].itemName', sentAs)).toBe('Items[0].itemName');
  expect(asSent('items', sentAs)).toBe('Items');
  expect(asSent('Colour [a].b', sentAs)).toBe('Colour [a].b');
});

test('other messages pass unchanged', () => {
  const e = error("The mandatory field 'description' is missing.");
  expect(forRestCaller(e)).toBe(e);
});

test('through the REST face: a missing query parameter, wrong types in the body, a query parameter that is no date-time; the GraphQL wording stays the developer message', async () => {
  const missing = await A.get('/folders');
  expectError(missing, 400, /^The mandatory query parameter 'folderPath' is missing\.$/);
  expect(missing.body.meta.errors[0].developerMessage).toMatch(/Variable "\$folderPath"/);
  expectError(await A.get('/files'), 400, /^The mandatory query parameter 'q' is missing\.$/);
  // A route with no body argument reads its arguments from the body too, where a method carries one.
  expectError(await A.del('/lists/00000000-0000-0000-0000-000000000001/items'), 400, /^The mandatory parameter 'itemIds' is missing: send it in the query string or the request body\.$/);
  expectError(await A.del('/lists/00000000-0000-0000-0000-000000000001/items', { body: { itemIds: 'a' } }), 404);
  expectError(await A.post('/folders', { name: 'Typed', description: 'd', allowRevisions: 'yes' }), 400, `The field 'allowRevisions' must be true or false, got "yes".`);
  expectError(await A.post('/persisteddata', { name: 'p', scope: 'x' }), 400, /^The field 'scope' must be 0 \(the creator's own\) or 1 \(global\), got "x"\.$/);
  // Named as the caller spelled the key (keys match without regard to case).
  expectError(await A.put('/sites/changeusersite', { UserId: 5, NewSiteId: 'x' }), 400, "The field 'UserId' must be a GUID, got 5.");
  expectError(await A.put('/sites/changeusersite', { userId: 5, NewSiteId: 'x' }), 400, "The field 'userId' must be a GUID, got 5.");
  expectError(await A.post('/indexfields', { label: 'Spelled', fieldType: 'Text', dropdownListId: 'bad' }), 400, /^The field 'dropdownListId' must be a GUID/);
  // A scalar argument read from the body (no body argument on the row): a JSON number or boolean is shown as sent, not as text in quotes.
  expectError(await A.put(`/forminstance/${ZERO_GUID}/relateDocument`, { relateToId: 12345 }), 400, "The field 'relateToId' must be a GUID, got 12345.");
  expectError(await A.put(`/forminstance/${ZERO_GUID}/relateDocument`, { relateToId: true }), 400, "The field 'relateToId' must be a GUID, got true.");
  // A drop-down list's items as plain text: the shape an item takes, not the input type's name.
  const items = await A.post('/lists', { Name: 'Shaped', Items: ['Red'] });
  expectError(items, 400, `The field 'Items[0]' takes objects with the keys itemName and itemValue, got "Red".`);
  expect(items.body.meta.errors.map((e: { message: string }) => e.message).join(' ')).not.toMatch(/DropDownListItemInput/);
  // An array where an item belongs is no item with its keys missing.
  expectError(await A.post('/lists', { Name: 'Nested', Items: [[{ itemName: 'a', itemValue: 'a' }]] }), 400, /^The field 'Items\[0\]' takes objects with the keys itemName and itemValue, got \[/);
  // A DateTime query parameter (SOFA gives it to the scalar's serialize, which named none).
  expectError(await A.get(`/users/${ZERO_GUID}/webtoken?expiration=junk`), 400, "The query parameter 'expiration' must be a date-time like 2024-01-31T13:45:00, from year 1 to 9999 in UTC, got 'junk'.");
  expect((await A.get(`/users/${ZERO_GUID}/webtoken?expiration=${new Date(Date.now() + 60_000).toISOString()}`)).status).toBe(200);
});

test('a GUID is read in its 36-character form only (decided): braced, parenthesized or bare 32 digits, as .NET parses them, are 400s naming what was sent, in the path, the query and the body', async () => {
  const id = ZERO_GUID.replace(/^0/, '1');
  for (const other of [`{${id}}`, `(${id})`, id.replace(/-/g, '')]) {
    expectError(await A.get(`/sites/${encodeURIComponent(other)}`), 400, `The path segment 'id' must be a GUID, got '${other}'.`);
    expectError(await A.put(`/forminstance/${ZERO_GUID}/relateDocument?relateToId=${encodeURIComponent(other)}`), 400, /^The query parameter 'relateToId' must be a GUID/);
    expectError(await A.put(`/forminstance/${ZERO_GUID}/relateDocument`, { relateToId: other }), 400, `The field 'relateToId' must be a GUID, got '${other}'.`);
  }
  expectError(await A.get(`/sites/${id.toUpperCase()}`), 404);
});

test('a refused value inside a list or an object is named by its path, with the keys as the body spelled them', async () => {
  const item = await A.post('/lists', { Name: 'Placed', Items: [{ itemName: 'a' }, { ItemName: {} }] });
  expectError(item, 400, "The field 'Items[1].ItemName' must be text, got {}.");
  expect(item.body.meta.errors[0].developerMessage).toBe('Variable "$input" got invalid value {} at "input.items[1].itemName"; Expected type String; String cannot represent a non string value: {}');
  const list = (await A.post('/lists', { Name: 'Placed' })).body.data.listID as string;
  expectError(await A.put(`/lists/${list}`, { items: [{ itemName: 'a', itemValue: ['x'] }] }), 400, `The field 'items[0].itemValue' must be text, got ["x"].`);
  // One object where a list is wanted: no index, since none was sent.
  expectError(await A.post('/lists', { Name: 'Placed', Items: { ItemName: {} } }), 400, "The field 'Items.ItemName' must be text, got {}.");
  expectError(await A.put(`/folders/${ZERO_GUID}/securitymembers`, { SecurityActions: [{ MemberId: 'x' }] }), 400, `The field 'SecurityActions[0].MemberId' must be a GUID, got "x".`);
  // POST emails answers its refusals with HTTP 200 and the status in meta.
  const email = await A.post('/emails', { recipients: ['a@example.com'], subject: 's', body: 'b', FileUpload: [{ name: 'a.txt', base64: '' }, { Name: {}, base64: '' }] });
  expect([email.body.meta.status, email.body.meta.errors[0].message]).toEqual([400, "The field 'FileUpload[1].Name' must be text, got {}."]);
  const missing = await A.post('/emails', { recipients: 'a@example.com', FileUpload: [{ name: 'a.txt' }] });
  expect([missing.body.meta.status, missing.body.meta.errors[0].message]).toEqual([400, "The mandatory field 'FileUpload[0].base64' is missing."]);
  const nulled = await A.post('/emails', { recipients: ['a@example.com', null] });
  expect([nulled.body.meta.status, nulled.body.meta.errors[0].message]).toEqual([400, "The field 'recipients[1]' must be text, got null."]);
});

test('a refused object or list is quoted as the JSON that was sent, not as GraphQL prints it; a long one cut at 80 characters', async () => {
  const refused = await A.post('/lists', { Name: 'Quoted', Items: [{ itemName: 'a', itemValue: { a: 1, b: [1, 'x'], c: null } }] });
  expectError(refused, 400, `The field 'Items[0].itemValue' must be text, got {"a":1,"b":[1,"x"],"c":null}.`);
  // GraphQL's own words stay in the developer message.
  expect(refused.body.meta.errors[0].developerMessage).toMatch(/got invalid value \{ a: 1, b: \[1, "x"\], c: null \}/);
  const long = { words: 'w'.repeat(100) };
  expectError(await A.post('/sites', { name: long }), 400, `The field 'name' must be text, got ${JSON.stringify(long).slice(0, 80)}….`);
});

test('more than 50 refused values: the first 50 and a word that the rest went unchecked, on both faces, at once; nothing made', async () => {
  // 60,000 numbers where items belong (a 120 KB body): each was worded and then placed one by
  // one, which held the server for 6 s (100,000: 15 s; 3,000,000 ran it out of memory); the answer listed all.
  const name = uniq('Many');
  const items = Array<number>(60_000).fill(1);
  const r = await A.post('/lists', { Name: name, Items: items });
  expectError(r, 400);
  const messages = r.body.meta.errors.map((e: { message: string }) => e.message);
  expect(messages).toHaveLength(51);
  expect(messages[0]).toBe("The field 'Items[0]' takes objects with the keys itemName and itemValue, got 1.");
  expect(messages[49]).toBe("The field 'Items[49]' takes objects with the keys itemName and itemValue, got 1.");
  expect(messages[50]).toBe('More than 50 values of the request cannot be taken: the first 50 are listed above, and the values after them were not checked.');
  const g = await A.gql('mutation ($i: DropDownListInput!) { createDropDownList(input: $i) { listID } }', { i: { name, items } });
  expect(g.body.data).toBeUndefined();
  expect(g.body.errors).toHaveLength(51);
  expect(g.body.errors[1]).toEqual({
    message: 'Variable "$i" got invalid value 1 at "i.items[1]"; Expected type "DropDownListItemInput" to be an object.',
    // At the variable's definition, as graphql-js and the refusals under the limit place it.
    locations: [{ line: 1, column: 11 }],
    extensions: { code: 'BAD_REQUEST', field: 'input.items[1]' },
  });
  expect(g.body.errors[50].message).toBe(messages[50]);
  expect((await A.get(`/lists?q=${encodeURIComponent(`listName eq '${name}'`)}`)).body.data).toEqual([]);
  // Up to 50 are still each worded as before, every one listed.
  const fifty = await A.post('/lists', { Name: name, Items: items.slice(0, 50) });
  expectError(fifty, 400, "The field 'Items[49]' takes objects with the keys itemName and itemValue, got 1.");
  expect(fifty.body.meta.errors).toHaveLength(50);
});

test('a body of more than 100,000 values (keys and list elements) is refused before it is parsed, on both faces; one of 100,000 is taken', async () => {
  // 800,000 keys (9.5 MB) or 3,000,000 numbers (6 MB) were parsed, checked and fitted: 4 to 7 s
  // during which the server answered no one, on any route, before the route looked at a key.
  const refusal = 'The request body holds more than 100000 values (keys and list elements): send fewer in one request.';
  const name = uniq('Valued');
  const keys = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, 1]));
  expectError(await A.post('/documenttypes', { name, ...keys }), 400, refusal);
  expectError(await A.post('/documenttypes', { name, list: Array<number>(100_001).fill(1) }), 400, refusal);
  const form = new URLSearchParams({ name, ...Object.fromEntries(Object.keys(keys).map((k) => [k, 'v'])) }).toString();
  expectError(await A.post('/documenttypes', undefined, { raw: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, 'The form-encoded request body holds more than 100000 values');
  const g = await A.gql('mutation ($n: String) { createDocumentType(input: { name: $n }) { id } }', { n: name, ...keys });
  expect([g.status, g.body.errors?.[0]?.message]).toEqual([400, refusal]);
  expect((await A.get(`/documenttypes?q=${encodeURIComponent(`name eq '${name}'`)}`)).body.data).toEqual([]);
  // Keys the route does not know are ignored, as ever, up to the limit: the root object, name, list and its 99,997 elements.
  expect((await A.post('/documenttypes', { name, list: Array<number>(99_997).fill(1) })).status).toBe(200);
  // Commas, brackets and escaped quotes inside a string are text, not values.
  expect((await A.post('/documenttypes', { name: uniq('Text'), description: `,[{\\"`.repeat(500) })).status).toBe(200);
});

test('a value refused while the body is fitted is named by its path as sent', async () => {
  expectError(await A.post('/lists', { Name: 'Placed', Items: [{ itemName: 'a' }, { ItemName: 1e21 }] }), 400, /^The field 'Items\[1\]\.ItemName' takes text: send this value as a string in quotes\./);
});

describe('a body key sent in two spellings (keys match without regard to case)', () => {
  const Item = new GraphQLInputObjectType({ name: 'Item', fields: { itemName: { type: GraphQLString } } });
  const Input = new GraphQLInputObjectType({
    name: 'Input',
    fields: { dropDownListId: { type: GraphQLString }, required: { type: GraphQLBoolean }, items: { type: new GraphQLList(Item) } },
  });

  test('with different values is a 400 naming the field and both spellings, worded as the query string\'s rule, whichever comes first', () => {
    expect(() => fitInput(Input, { dropdownListId: 'a', dropDownListId: 'b' })).toThrow(
      "The field 'dropDownListId' was sent 2 times with different values ('a' as 'dropdownListId' and 'b' as 'dropDownListId'): send it once.",
    );
    expect(() => fitInput(Input, { dropDownListId: 'b', dropdownListId: 'a' })).toThrow("('b' as 'dropDownListId' and 'a' as 'dropdownListId')");
    expect(() => fitInput(Input, { DropDownListId: 'a', dropdownlistid: 'a', dropDownListId: null })).toThrow(
      "The field 'dropDownListId' was sent 3 times with different values ('a' as 'DropDownListId' and null as 'dropDownListId')",
    );
    // Inside a list's objects, named by the path as sent.
    expect(() => fitInput(Input, { Items: [{ itemName: 'x' }, { itemName: 'a', ItemName: 'b' }] })).toThrow(
      "The field 'items[1].itemName' was sent 2 times with different values ('a' as 'Items[1].itemName' and 'b' as 'Items[1].ItemName')",
    );
  });

  test('with the same value (once fitted: a form\'s "True" is true) is taken once', () => {
    const sentAs = new Map<string, string>();
    expect(fitInput(Input, { dropdownListId: 'a', dropDownListId: 'a', required: true, Required: 'True' }, sentAs)).toEqual({ dropDownListId: 'a', required: true });
    expect(sentAs.get('dropDownListId')).toBe('dropdownListId');
    expect(fitInput(Input, { items: [{ itemName: 'a' }], Items: [{ ItemName: 'a' }] })).toEqual({ items: [{ itemName: 'a' }] });
  });

  test("a later refusal inside the value names the kept copy's spelling, not another copy's", () => {
    const sentAs = new Map<string, string>();
    expect(fitInput(Input, { items: [{ itemName: 'a' }], Items: [{ ItemName: 'a' }] }, sentAs)).toEqual({ items: [{ itemName: 'a' }] });
    expect(asSent('items[0].itemName', sentAs)).toBe('items[0].itemName');
  });

  test('POST indexfields: in a JSON, form-encoded or multipart body, either order, nothing made; the same id twice is taken', async () => {
    const listId = (await A.post('/lists', { Name: uniq('Spelled twice'), Items: [{ itemName: 'a', itemValue: 'a' }] })).body.data.listID as string;
    const before = (await A.get('/indexfields?limit=1')).body.pagination.totalRecords;
    const label = uniq('Both');
    const refused = (first: [string, string], second: [string, string]) =>
      `The field 'dropDownListId' was sent 2 times with different values ('${first[1]}' as '${first[0]}' and '${second[1]}' as '${second[0]}'): send it once.`;
    const list: [string, string] = ['dropdownListId', listId];
    const none: [string, string] = ['dropDownListId', ZERO_GUID];
    expectError(await A.post('/indexfields', { label, fieldType: 6, dropdownListId: listId, dropDownListId: ZERO_GUID }), 400, refused(list, none));
    expectError(await A.post('/indexfields', { label, fieldType: 6, dropDownListId: ZERO_GUID, dropdownListId: listId }), 400, refused(none, list));
    const form = `label=${label}&fieldType=6&dropdownListId=${listId}&dropDownListId=${ZERO_GUID}`;
    expectError(await A.post('/indexfields', undefined, { raw: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, refused(list, none));
    const parts = await multipart({ label, fieldType: '6', dropDownListId: ZERO_GUID, dropdownListId: listId }, null);
    expectError(await A.post('/indexfields', undefined, parts), 400, refused(none, list));
    expect((await A.get('/indexfields?limit=1')).body.pagination.totalRecords).toBe(before);
    const made = await A.post('/indexfields', { label, fieldType: 6, dropdownListId: listId, DropDownListId: listId });
    expect([made.status, made.body.data?.dropDownListId]).toEqual([200, listId]);
  });
});
