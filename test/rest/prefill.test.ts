/**
 * Pre-population (issue 10 item 4): `GET formtemplates/{id}/forms/new?persistedDataId=` and
 * GraphQL `newForm` answer the template's fields with the dictionary's values, keys matched
 * case-insensitively; `prefillValues` gives the same values to form creation.
 */
import { buildContext } from '../../src/context.js';
import { prefillValues } from '../../src/domain/prefill.js';
import { type Api, expectEnvelope, expectError, ordinaryUser, uniq, UNKNOWN_ID } from './support.js';
import { A, B, h, setUpTwoTenants } from './two-tenants.js';

let U1: Api;
let U2: Api;

setUpTwoTenants();
beforeAll(async () => {
  [U1, U2] = [A.as((await ordinaryUser(A)).token), A.as((await ordinaryUser(A)).token)];
});


/** A released template with these fields (name and fieldType), and `Old` added and deleted before the release. */
async function template(fields: [string, number][], name = uniq('prefill')): Promise<{ id: string; name: string; revisionId: string }> {
  const t = (await A.post('/formtemplates', { name, description: '' })).body.data;
  const add = `mutation ($id: String!, $i: FormFieldInput!) { addFormTemplateField(id: $id, input: $i) { id } }`;
  for (const [field, fieldType] of [...fields, ['Old', 1] as [string, number]]) {
    expect((await A.gql(add, { id: t.id, i: { name: field, fieldType } })).body.errors).toBeUndefined();
  }
  await A.gql(`mutation ($id: String!) { deleteFormTemplateField(id: $id, key: "Old") { id } }`, { id: t.id });
  expect((await A.put(`/formtemplates/${t.id}/release`)).status).toBe(200);
  return { id: t.id, name, revisionId: (await A.get(`/formtemplates/${t.id}`)).body.data[0].revisionId };
}

async function dictionary(api: Api, data: unknown, scope = 1): Promise<string> {
  const r = await api.post('/persistedData', { name: uniq('dict'), scope, persistedData: JSON.stringify(data) });
  expect(r.status).toBe(200);
  return r.body.data.id;
}

const FIELDS: [string, number][] = [['FirstName', 1], ['Age', 6], ['Notes', 2], ['Flag', 4], ['Empty', 1]];

describe('GET /formtemplates/{id}/forms/new?persistedDataId=', () => {
  test("the released revision's fields (deleted ones left out) in form order, valued from the dictionary's keys in any case", async () => {
    const t = await template(FIELDS);
    const pd = await dictionary(U1, { firstname: 'Ada', AGE: 36, notes: { a: 1 }, FLAG: true, unused: 'x', old: 'gone' });
    const path = `/formtemplates/${t.id}/forms/new?persistedDataId=${pd}`;
    const r = await U1.get(path);
    expectEnvelope(r, 'GET', U1.url(path));
    expect(r.body.data).toEqual({
      templateId: t.id,
      revisionId: t.revisionId,
      persistedDataId: pd,
      fields: [
        { id: expect.any(String), key: 'FirstName', label: 'FirstName', fieldType: 1, required: false, value: 'Ada' },
        { id: expect.any(String), key: 'Age', label: 'Age', fieldType: 6, required: false, value: '36' },
        { id: expect.any(String), key: 'Notes', label: 'Notes', fieldType: 2, required: false, value: '{"a":1}' },
        { id: expect.any(String), key: 'Flag', label: 'Flag', fieldType: 4, required: false, value: 'true' },
        { id: expect.any(String), key: 'Empty', label: 'Empty', fieldType: 1, required: false, value: null },
      ],
    });
  });

  test('an exact-case key wins over another spelling; a null value reads null; the template may be named', async () => {
    const t = await template([['FirstName', 1], ['Age', 6]]);
    const pd = await dictionary(U1, { firstname: 'lower', FirstName: 'exact', age: null });
    const r = await U1.get(`/formtemplates/${encodeURIComponent(t.name)}/forms/new?persistedDataId=${pd}`);
    expect(r.body.data.fields.map((f: { value: unknown }) => f.value)).toEqual(['exact', null]);
  });

  test('a draft started after the release changes nothing until it is released', async () => {
    const t = await template([['FirstName', 1]]);
    await A.gql(`mutation ($id: String!) { addFormTemplateField(id: $id, input: {name: "Later", fieldType: 1}) { id } }`, { id: t.id });
    const pd = await dictionary(U1, { later: 'x' });
    expect((await U1.get(`/formtemplates/${t.id}/forms/new?persistedDataId=${pd}`)).body.data).toMatchObject({ revisionId: t.revisionId, fields: [{ key: 'FirstName' }] });
  });

  test('without a dictionary: the fields, every value null', async () => {
    const t = await template([['FirstName', 1]]);
    const r = await U2.get(`/formtemplates/${t.id}/forms/new`);
    expect(r.body.data).toMatchObject({ persistedDataId: null, fields: [{ key: 'FirstName', value: null }] });
  });

  test("404 for a dictionary the caller cannot read: unknown, expired, another user's own; an administrator reads any", async () => {
    const t = await template([['FirstName', 1]]);
    const own = await dictionary(U1, { FirstName: 'mine' }, 0);
    const expired = await dictionary(U1, { FirstName: 'old' }, 1);
    await h.orm.em.getConnection().execute(`update persisted_data set expires_at = now() - interval '1 second' where id = ?`, [expired]);
    for (const [api, id] of [[U1, UNKNOWN_ID], [U1, expired], [A, expired], [U2, own]] as [Api, string][]) {
      expectError(await api.get(`/formtemplates/${t.id}/forms/new?persistedDataId=${id}`), 404, 'Persisted data');
    }
    expect((await A.get(`/formtemplates/${t.id}/forms/new?persistedDataId=${own}`)).body.data.fields[0].value).toBe('mine');
  });

  test('an unknown template is a 404, a malformed dictionary id a 400; another tenant sees neither', async () => {
    const t = await template([['FirstName', 1]]);
    const pd = await dictionary(A, { FirstName: 'x' });
    expectError(await A.get(`/formtemplates/${UNKNOWN_ID}/forms/new?persistedDataId=${pd}`), 404, 'Form template');
    expectError(await A.get(`/formtemplates/${t.id}/forms/new?persistedDataId=nope`), 400, "'persistedDataId' must be a GUID");
    const theirs = await B.post('/formtemplates', { name: uniq('b'), description: '' });
    expectError(await B.get(`/formtemplates/${theirs.body.data.id}/forms/new?persistedDataId=${pd}`), 404, 'Persisted data');
    expectError(await B.get(`/formtemplates/${t.id}/forms/new`), 404, 'Form template');
  });

  test('statements do not grow with the fields', async () => {
    const counts: number[] = [];
    for (const fields of [FIELDS.slice(0, 1), FIELDS]) {
      const t = await template(fields);
      const pd = await dictionary(A, { FirstName: 'x' });
      const { result, statements } = await h.countQueries(() => U1.get(`/formtemplates/${t.id}/forms/new?persistedDataId=${pd}`));
      expect(result.body.data.fields).toHaveLength(fields.length);
      counts.push(statements.length);
    }
    expect(counts[1]).toBe(counts[0]);
  });
});

test('GraphQL newForm answers the same', async () => {
  const t = await template([['FirstName', 1]]);
  const pd = await dictionary(U1, { FIRSTNAME: 'Grace' });
  const r = await U2.gql(`query ($id: String!, $pd: UUID) { newForm(id: $id, persistedDataId: $pd) { revisionId fields { key value } } }`, { id: t.name, pd });
  expect(r.body.data.newForm).toEqual({ revisionId: t.revisionId, fields: [{ key: 'FirstName', value: 'Grace' }] });
});

test('prefillValues: field key to value, only for the fields the dictionary fills', async () => {
  const t = await template(FIELDS);
  const pd = await dictionary(U1, { firstname: 'Ada', age: 36 });
  const request = new Request('http://quire.test/', { headers: { authorization: `Bearer ${U1.token}` } });
  const ctx = await buildContext(h.services, request, 'prefill-test', undefined);
  expect(await prefillValues(ctx, t.id, pd)).toEqual({ FirstName: 'Ada', Age: '36' });
});

describe('POST /formtemplates/{id}/forms?persistedDataId=', () => {
  test('creates the form from the dictionary, posted values winning for their field in any case', async () => {
    const t = await template(FIELDS);
    const pd = await dictionary(U1, { firstname: 'Ada', age: 36, notes: 'from the dictionary' });
    const r = await U1.post(`/formtemplates/${t.name}/forms?persistedDataId=${pd}`, { NOTES: 'posted', Empty: 'x' });
    expect(r.status).toBe(201);
    const form = (await U1.get(`/formtemplates/${t.id}/forms/${r.body.data.revisionId}`)).body.data[0];
    expect(form).toMatchObject({ firstname: 'Ada', age: '36', notes: 'posted', empty: 'x' });
    expect(form.flag).toBeUndefined();
  });

  test('a value posted under the field\'s id wins over the dictionary\'s too', async () => {
    const t = await template(FIELDS);
    const pd = await dictionary(U1, { notes: 'from the dictionary' });
    const g = await A.gql('query ($id: String!) { formTemplate(id: $id) { revisions { fields { id key } } } }', { id: t.id });
    const notes = g.body.data.formTemplate.revisions.at(-1).fields.find((f: { key: string }) => f.key === 'Notes').id;
    const r = await U1.post(`/formtemplates/${t.id}/forms?persistedDataId=${pd}`, { [notes]: 'posted' });
    expect(r.status).toBe(201);
    expect((await U1.get(`/formtemplates/${t.id}/forms/${r.body.data.revisionId}`)).body.data[0]).toMatchObject({ notes: 'posted' });
  });

  test("a dictionary the caller cannot read is a 404 and creates nothing", async () => {
    const t = await template(FIELDS);
    const mine = await dictionary(U2, { firstname: 'private' }, 0);
    const before = (await A.get(`/formtemplates/${t.id}/forms`)).body.data.length;
    expectError(await U1.post(`/formtemplates/${t.id}/forms?persistedDataId=${mine}`, {}), 404);
    expectError(await U1.post(`/formtemplates/${t.id}/forms?persistedDataId=${UNKNOWN_ID}`, {}), 404);
    expect((await A.get(`/formtemplates/${t.id}/forms`)).body.data).toHaveLength(before);
  });
});

describe('text no form can store: NUL and lone surrogates in a dictionary', () => {
  const sent = (data: string) => U1.post('/persistedData', { name: uniq('nul'), persistedData: data });

  test('POST persistedData refuses them in values and keys, nested too, with a 400 naming the key; nothing is stored', async () => {
    const before = (await U1.get('/persistedData')).body.pagination.totalRecords;
    expectError(await sent('{"plain":"a\\u0000b"}'), 400, "The field 'persistedData' holds NUL (U+0000) in the value of 'plain', which cannot be stored as sent.");
    expectError(await sent('{"plain":"\\ud800"}'), 400, "holds a lone UTF-16 surrogate (U+D800) in the value of 'plain'");
    expectError(await sent('{"plain":"x\\udfff"}'), 400, "holds a lone UTF-16 surrogate (U+DFFF) in the value of 'plain'");
    expectError(await sent('{"outer":{"list":["ok","\\u0000"]}}'), 400, "holds NUL (U+0000) in the value of 'outer.list.1'");
    expectError(await sent('{"outer":{"a\\u0000b":1}}'), 400, "holds NUL (U+0000) in the key 'outer.a\\u0000b'");
    expect((await U1.get('/persistedData')).body.pagination.totalRecords).toBe(before);
    // A pair of surrogates is one character, and is kept.
    expect((await sent('{"plain":"\\ud83d\\ude00"}')).status).toBe(200);
  });

  test('a dictionary stored before they were refused: GET .../forms/new shows it, creating a form from it is a 400 naming the field, posting that field a value works', async () => {
    const t = await template([['plain', 1], ['other', 1]]);
    for (const text of ['a\\u0000b', '\\ud800', '\\udfff']) {
      const pd = await dictionary(U1, { plain: 'x', other: 'fine' });
      await h.orm.em.getConnection().execute('update persisted_data set data = ? where id = ?', [`{"plain":"${text}","other":"fine"}`, pd]);
      const shown = await U1.get(`/formtemplates/${t.id}/forms/new?persistedDataId=${pd}`);
      expect(shown.status).toBe(200);
      expect(shown.body.data.fields[0].value).toBe(JSON.parse(`"${text}"`));
      const refusal = /^The persisted data's value for the form field 'plain' holds (NUL \(U\+0000\)|a lone UTF-16 surrogate \(U\+D(800|FFF)\)), which a form cannot store: post a value for 'plain' instead\.$/;
      expectError(await U1.post(`/formtemplates/${t.id}/forms?persistedDataId=${pd}`, {}), 400, refusal);
      const g = await U1.gql('mutation ($t: String!, $pd: UUID) { createFormInstance(templateId: $t, persistedDataId: $pd) { revisionId } }', { t: t.id, pd });
      expect(g.body.errors?.[0]?.message).toMatch(refusal);
      const made = await U1.post(`/formtemplates/${t.id}/forms?persistedDataId=${pd}`, { plain: 'posted' });
      expect(made.status).toBe(201);
      expect(made.body.data).toMatchObject({ plain: 'posted', other: 'fine' });
    }
  });
});

describe('numbers JSON parsing may rewrite, in a dictionary', () => {
  test("POST persistedData refuses one past a double's range (1e400, read as Infinity), nested too; nothing is stored", async () => {
    const before = (await U1.get('/persistedData')).body.pagination.totalRecords;
    const sent = (data: string) => U1.post('/persistedData', { name: uniq('big'), persistedData: data });
    expectError(await sent('{"n":1e400}'), 400, "The field 'persistedData' holds a number too large to keep in the value of 'n': send it as a string.");
    expectError(await sent('{"o":{"l":[1,-1e999]}}'), 400, "in the value of 'o.l.1'");
    expect((await U1.get('/persistedData')).body.pagination.totalRecords).toBe(before);
  });

  test('a long number is kept as written; a form from it is a 400 naming the field (its digits would change), unless that field is posted', async () => {
    const t = await template([['big', 1], ['other', 1]]);
    const text = '{"big":12345678901234567890,"other":1.5}';
    const r = await U1.post('/persistedData', { name: uniq('long'), persistedData: text });
    expect(r.status).toBe(200);
    const pd = r.body.data.id;
    expect(r.body.data.persistedData).toBe(text);
    const refusal =
      "The persisted data's value for the form field 'big' is a JSON number (read as 12345678901234567000) whose digits may have been rounded or rewritten when read: a form keeps only text as written, so store it in the dictionary as a string, or post a value for 'big'.";
    expectError(await U1.get(`/formtemplates/${t.id}/forms/new?persistedDataId=${pd}`), 400, refusal);
    const before = (await A.get(`/formtemplates/${t.id}/forms`)).body.data.length;
    expectError(await U1.post(`/formtemplates/${t.id}/forms?persistedDataId=${pd}`, {}), 400, refusal);
    expect((await A.get(`/formtemplates/${t.id}/forms`)).body.data).toHaveLength(before);
    const made = await U1.post(`/formtemplates/${t.id}/forms?persistedDataId=${pd}`, { BIG: '12345678901234567890' });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ big: '12345678901234567890', other: '1.5' });
  });
});
