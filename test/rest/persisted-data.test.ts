/**
 * Persisted data (rest-api-v1.md "Persisted data", client-compatibility.md: `?scope=N`,
 * `{id}?expand=true`): shapes, default fields, scope visibility, expiry and the purge, bad input,
 * deletes racing reads, statements per page, and the GraphQL face.
 */
import { accessibleIds } from '../../src/permissions/row-checks.js';
import { buildContext } from '../../src/context.js';
import { purgeExpired } from '../../src/purge.js';
import { resource } from '../../src/read/registry.js';
import type { Reply } from '../harness.js';
import {
  type Api,
  expectEnvelope,
  expectError,
  GUID,
  keysOf,
  ordinaryUser,
  PAGINATION_KEYS,
  q,
  sorted,
  uniq,
  UNKNOWN_ID,
} from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

const DEFAULT = [
  'href', 'dataType', 'id', 'name', 'scope', 'dataLength', 'dataMimeType', 'expirationDateUtc', 'linkedObjectId', 'linkedObjectType',
  'createByUsId', 'modifiedByUsId', 'createDateUtc', 'modifiedDateUtc',
];
const ALL = [...DEFAULT, 'persistedData'];
const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;
const FUTURE = '2099-12-31T23:59:59';

/** Two ordinary users of tenant A besides `plain`. */
let U1: Api;
let U2: Api;
let u1Id: string;
let adminId: string;

setUpTwoTenants();
beforeAll(async () => {
  const [a, b] = [await ordinaryUser(A), await ordinaryUser(A)];
  [U1, U2, u1Id] = [A.as(a.token), A.as(b.token), a.id];
  adminId = (await A.get('/users/me')).body.data.id;
});

type Rec = Record<string, unknown> & { id: string };

async function create(api: Api, body: Record<string, unknown> = {}): Promise<Rec> {
  const r = await api.post('/persistedData', { name: uniq('dict'), persistedData: '{"a":1}', ...body });
  expectEnvelope(r, 'POST', api.url('/persistedData'));
  return r.body.data;
}

const ids = (r: Reply) => (r.body.data as Rec[]).map((d) => d.id);
const expire = (id: string) => h.orm.em.getConnection().execute(`update persisted_data set expires_at = now() - interval '1 second' where id = ?`, [id]);

describe('POST /persistedData', () => {
  test('200 and the whole record with a generated id; dataLength counted; the caller is its creator', async () => {
    const text = '{"FirstName":"Ada","Age":36,"héllo":"wörld"}';
    const r = await A.post('/persistedData', {
      name: 'intake', scope: 1, persistedData: text, dataMimeType: 'application/json', linkedObjectId: 'abc', linkedObjectType: 3, expirationDateUtc: FUTURE,
    });
    expectEnvelope(r, 'POST', A.url('/persistedData'));
    const d = r.body.data;
    expect(keysOf(d)).toEqual(sorted(ALL));
    expect(d).toMatchObject({
      dataType: 'PersistedData', href: `~/persisteddata/${d.id}`, name: 'intake', scope: 1, persistedData: text, dataLength: text.length,
      dataMimeType: 'application/json', linkedObjectId: 'abc', linkedObjectType: 3, expirationDateUtc: '2099-12-31T23:59:59.000',
      createByUsId: adminId, modifiedByUsId: adminId,
    });
    expect(d.id).toMatch(GUID);
    expect(d.createDateUtc).toMatch(DATE);
  });

  test('defaults: scope 0, application/json, no link, never expires; the dictionary may come as an object', async () => {
    const d = await create(U1, { persistedData: { k: 'v' } });
    expect(d).toMatchObject({ scope: 0, persistedData: '{"k":"v"}', dataMimeType: 'application/json', linkedObjectId: '', linkedObjectType: 0, expirationDateUtc: null });
  });

  test('a dictionary sent as an object keeps its numbers as written, or is a 400 naming the one parsing may have changed; as text it is kept as written', async () => {
    // Parsed with the body, then stored as its JSON text: {"big": 12345678901234567890} was stored
    // as {"big":12345678901234567000}, answered 200.
    const raw = (dictionary: string, name: string) => A.post('/persistedData', undefined, { raw: `{"name": "${name}", "persistedData": ${dictionary}}`, headers: { 'content-type': 'application/json' } });
    for (const [dictionary, path, shown] of [
      ['{"big": 12345678901234567890}', 'big', '12345678901234567000'],
      ['{"inner": {"long": 1234567890.123456789}}', 'inner.long', '1234567890.1234567'],
      ['{"list": [1, 0.1234567890123456789]}', 'list.1', '0.12345678901234568'],
    ]) {
      const name = uniq('refused');
      expectError(
        await raw(dictionary, name),
        400,
        `The field 'persistedData' holds a number in the value of '${path}' (${shown}) that JSON parsing may already have rounded or rewritten, so it cannot be kept as written: send the dictionary as JSON text, or that number as a string.`,
      );
      expect((await A.get(`/persistedData?${q(`name eq '${name}'`)}`)).body.data).toEqual([]);
      // The same dictionary as text is kept as written.
      const kept = await create(A, { name, persistedData: dictionary });
      expect((await A.get(`/persistedData/${kept.id}?expand=data`)).body.data.persistedData).toBe(dictionary);
    }
    const taken = await raw('{"n": 42, "x": 1.5, "e": 1e2}', uniq('taken'));
    expect([taken.status, taken.body.data?.persistedData]).toEqual([200, '{"n":42,"x":1.5,"e":100}']);
  });

  test('a form-encoded body works as the Python client sends it', async () => {
    const raw = new URLSearchParams({ name: 'form', scope: '1', persistedData: '{"x":"y"}', linkedObjectType: '99', expirationDateUtc: '' }).toString();
    const r = await A.post('/persistedData', undefined, { raw, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ scope: 1, linkedObjectType: 99, expirationDateUtc: null });
  });

  test('a form-encoded body as the PHP client sends it: the text null for no expiration date, an empty link', async () => {
    const raw = new URLSearchParams({
      name: 'php', scope: '0', persistedData: '{"DataField2":"claro que si"}', dataMimeType: 'text/JSON',
      linkedObjectId: '', linkedObjectType: '0', expirationDateUtc: 'null',
    }).toString();
    const r = await A.post('/persistedData', undefined, { raw, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectEnvelope(r, 'POST', A.url('/persistedData'));
    expect(r.body.data).toMatchObject({ name: 'php', scope: 0, linkedObjectId: '', linkedObjectType: 0, expirationDateUtc: null });
  });

  test('a JSON body that repeats a key is a 400 naming it and nothing is made (the last one was kept); a repeat inside the persistedData text is that text\'s, kept as sent', async () => {
    const name = uniq('twice');
    const post = (raw: string) => A.post('/persistedData', undefined, { raw, headers: { 'content-type': 'application/json' } });
    expectError(await post(`{"name":"${name}-first","name":"${name}","persistedData":"{}"}`), 400, /^The key 'name' was sent 2 times in the request body: send it once, with one value\.$/);
    expectError(await post(`{"name":"${name}","persistedData":{"a":1,"b":{"a":1},"a":2}}`), 400, /^The key 'persistedData\.a' was sent 2 times in the request body/);
    expect((await A.get(`/persistedData?${q(`name like '${name}%'`)}`)).body.data).toEqual([]);
    const r = await post(`{"name":"${name}","persistedData":"{\\"a\\":1,\\"a\\":2}"}`);
    expectEnvelope(r, 'POST', A.url('/persistedData'));
    expect(r.body.data.persistedData).toBe('{"a":1,"a":2}');
  });

  test('dates without a zone are UTC; with one, converted', async () => {
    expect((await create(A, { expirationDateUtc: '2099-01-31T12:00:00+02:00' })).expirationDateUtc).toBe('2099-01-31T10:00:00.000');
    expect((await create(A, { expirationDateUtc: '2099-01-31' })).expirationDateUtc).toBe('2099-01-31T00:00:00.000');
  });

  test('dates as the .NET client writes them: Json.NET\'s seven fraction digits with Z, an offset or no zone (by the value\'s kind), and ToString("s")', async () => {
    expect((await create(A, { expirationDateUtc: '2099-01-31T12:00:00.1234567Z' })).expirationDateUtc).toBe('2099-01-31T12:00:00.123');
    expect((await create(A, { expirationDateUtc: '2099-01-31T12:00:00.1234567-05:30' })).expirationDateUtc).toBe('2099-01-31T17:30:00.123');
    expect((await create(A, { expirationDateUtc: '2099-01-31T12:00:00.1234567' })).expirationDateUtc).toBe('2099-01-31T12:00:00.123');
    expect((await create(A, { expirationDateUtc: '2099-01-31T12:00:00' })).expirationDateUtc).toBe('2099-01-31T12:00:00.000');
  });

  test.each([
    [{ persistedData: undefined }, "mandatory field 'persistedData'"],
    [{ persistedData: 'not json' }, 'not valid JSON'],
    [{ persistedData: '' }, "The field 'persistedData' must not be blank: send JSON text of an object, '{}' for an empty dictionary."],
    [{ persistedData: '  ' }, "The field 'persistedData' must not be blank"],
    [{ persistedData: '[1,2]' }, 'JSON text of an object'],
    [{ persistedData: '42' }, 'JSON text of an object'],
    [{ persistedData: '"text"' }, 'JSON text of an object'],
    [{ persistedData: 'null' }, 'JSON text of an object'],
    // Deep enough to overflow JSON.stringify when a form is pre-filled from it (a 500 there, before).
    [{ persistedData: `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}` }, "'persistedData' nests more than 64 levels deep"],
    [{ persistedData: `{"a":"${'x'.repeat(1_000_000)}"}` }, "'persistedData' is longer than 1000000"],
    [{ name: '' }, "The field 'name' must not be blank."],
    [{ name: 'n'.repeat(257) }, "'name' is longer than 256"],
    [{ name: 'two\nlines' }, "'name' may not contain control characters"],
    [{ name: 'esc\u001b[31m' }, "'name' may not contain control characters"],
    [{ scope: 2 }, "'scope' must be 0"],
    [{ scope: -1 }, "'scope' must be 0"],
    // The names a person might try: the 400 says which values scope takes.
    [{ scope: 'global' }, `The field 'scope' must be 0 (the creator's own) or 1 (global), got "global".`],
    [{ scope: 1.5 }, "'scope' must be 0 (the creator's own) or 1 (global), got 1.5"],
    [{ linkedObjectType: 17 }, "The field 'linkedObjectType' must be a whole number from 0 to 16, or 99, got 17."],
    // Past an Int, or not a number: the field's own codes, not the range of an Int.
    [{ linkedObjectType: 99999999999 }, "The field 'linkedObjectType' must be a whole number from 0 to 16, or 99, got 99999999999."],
    [{ linkedObjectType: 'abc' }, `The field 'linkedObjectType' must be a whole number from 0 to 16, or 99, got "abc".`],
    [{ linkedObjectType: 1.5 }, "The field 'linkedObjectType' must be a whole number from 0 to 16, or 99, got 1.5."],
    [{ linkedObjectId: 'i'.repeat(257) }, "'linkedObjectId' is longer than 256"],
    [{ dataMimeType: 'm'.repeat(101) }, "'dataMimeType' is longer than 100"],
    [{ expirationDateUtc: 'tomorrow' }, "'expirationDateUtc' must be an ISO 8601 date-time"],
    [{ expirationDateUtc: '2099-02-30T00:00:00' }, "'expirationDateUtc' must be an ISO 8601 date-time"],
    [{ expirationDateUtc: '2099-01-01T25:00:00' }, "'expirationDateUtc' must be an ISO 8601 date-time"],
    [{ expirationDateUtc: '2001-01-01T00:00:00' }, "'expirationDateUtc' must lie in the future"],
  ])('bad input (%#): 400 naming it, nothing stored', async (body, message) => {
    const name = uniq('refused');
    const r = await A.post('/persistedData', { name, persistedData: '{}', ...body });
    expectError(r, 400, message);
    expect((await A.get(`/persistedData?${q(`name eq '${name}'`)}`)).body.data).toEqual([]);
  });

  test('GraphQL: a JSON variable nested thousands deep is refused, never a 500', async () => {
    // Written out by hand: JSON.stringify itself cannot write a value this deep.
    const deep = `${'{"a":'.repeat(10_000)}{}${'}'.repeat(10_000)}`;
    const query = JSON.stringify('mutation ($d: JSON) { createPersistedData(input: { name: "deep", persistedData: $d }) { id } }');
    const r = await h.request('POST', '/graphql', { token: A.token, raw: `{"query":${query},"variables":{"d":${deep}}}`, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBeLessThan(500);
    expect(r.body.errors[0].message).toMatch(/JSON nests more than 64 levels deep/);
  });

  test('concurrent creates: each stored once under its own id', async () => {
    const tag = uniq('burst');
    const made = await Promise.all(Array.from({ length: 10 }, (_, i) => create(U2, { name: `${tag}-${i}` })));
    expect(new Set(made.map((m) => m.id)).size).toBe(10);
    expect((await U2.get(`/persistedData?${q(`name like '${tag}%'`)}`)).body.pagination.totalRecords).toBe(10);
  });
});

test('/meta/PersistedData lists the fields and the default set (all but the dictionary)', async () => {
  const r = await A.get('/meta/persisteddata');
  expect(r.body.data).toMatchObject({ dataType: 'PersistedData', idField: 'id' });
  expect(sorted(r.body.data.availableFields)).toEqual(sorted(ALL.filter((f) => f !== 'href' && f !== 'dataType')));
  expect(sorted(r.body.data.defaultFields)).toEqual(sorted(DEFAULT.filter((f) => f !== 'href' && f !== 'dataType')));
});

describe('GET /persistedData/{id}', () => {
  test('the record as an object with the default fields: everything but the dictionary', async () => {
    const d = await create(A, { scope: 1 });
    const r = await A.get(`/persistedData/${d.id}`);
    expectEnvelope(r, 'GET', A.url(`/persistedData/${d.id}`));
    expect(keysOf(r.body.data)).toEqual(sorted(DEFAULT));
    expect(r.body.data).toMatchObject({ id: d.id, dataLength: 7 });
  });

  test('expand=true and expand=data return every field; fields= picks (any case)', async () => {
    const d = await create(A);
    for (const e of ['true', 'data']) expect((await A.get(`/persisteddata/${d.id}?expand=${e}`)).body.data.persistedData).toBe('{"a":1}');
    expect(keysOf((await A.get(`/PersistedData/${d.id}/?fields=PersistedData,name`)).body.data)).toEqual(sorted(['href', 'dataType', 'persistedData', 'name']));
  });

  test('dataLength counts UTF-16 code units as the .NET and JavaScript clients do: shown and filtered by q alike', async () => {
    const tag = uniq('utf16');
    // 9 code points, 10 code units; and BMP (é, 中) beside astral (😀, 𝄞) characters: 12 code points, 14 code units.
    const [emoji, mixed] = ['{"a":"😀"}', '{"é":"中😀𝄞x"}'];
    expect([emoji.length, mixed.length]).toEqual([10, 14]);
    const e = await create(A, { name: `${tag}-emoji`, persistedData: emoji });
    const m = await create(A, { name: `${tag}-mixed`, persistedData: mixed });
    expect([e.dataLength, m.dataLength]).toEqual([10, 14]);
    expect((await A.get(`/persistedData/${e.id}`)).body.data.dataLength).toBe(10);
    expect((await A.get(`/persistedData/${m.id}`)).body.data.dataLength).toBe(14);
    const found = async (cond: string) => ids(await A.get(`/persistedData?${q(`name like '${tag}%' and ${cond}`)}`)).sort();
    expect(await found('dataLength gt 9')).toEqual([e.id, m.id].sort());
    expect(await found('dataLength eq 10')).toEqual([e.id]);
    expect(await found('dataLength eq 14')).toEqual([m.id]);
    expect(await found('dataLength lt 14')).toEqual([e.id]);
  });

  test('unknown id: 404; malformed id: 400 naming the segment', async () => {
    expectError(await A.get(`/persistedData/${UNKNOWN_ID}`), 404, 'Persisted data');
    expectError(await A.get('/persistedData/nope'), 400, "'id' must be a GUID");
  });

  test("another tenant's dictionary: 404 on its own paths, 403 on the other tenant's", async () => {
    const d = await create(A, { scope: 1 });
    expectError(await B.get(`/persistedData/${d.id}`), 404);
    expectError(await B.del(`/persistedData/${d.id}`), 404);
    expectError(await B.on(A.t).get(`/persistedData/${d.id}`), 403);
    expect((await B.get('/persistedData')).body.data.map((x: Rec) => x.id)).not.toContain(d.id);
  });
});

describe('scope: a user sees their own and the global ones, an administrator all', () => {
  let adminOwn: Rec, adminGlobal: Rec, u1Own: Rec, u1Global: Rec, u2Own: Rec, tag: string;

  beforeAll(async () => {
    tag = uniq('scoped');
    adminOwn = await create(A, { name: `${tag}-admin-own`, scope: 0 });
    adminGlobal = await create(A, { name: `${tag}-admin-global`, scope: 1 });
    u1Own = await create(U1, { name: `${tag}-u1-own`, scope: 0 });
    u1Global = await create(U1, { name: `${tag}-u1-global`, scope: 1 });
    u2Own = await create(U2, { name: `${tag}-u2-own`, scope: 0 });
  });

  const visible = async (api: Api, extra = '') => ids(await api.get(`/persistedData?${q(`name like '${tag}%'`)}${extra}`)).sort();

  test('lists', async () => {
    expect(await visible(U1)).toEqual([adminGlobal.id, u1Own.id, u1Global.id].sort());
    expect(await visible(U2)).toEqual([adminGlobal.id, u1Global.id, u2Own.id].sort());
    expect(await visible(A)).toEqual([adminOwn.id, adminGlobal.id, u1Own.id, u1Global.id, u2Own.id].sort());
  });

  test('?scope=N keeps one scope of what the caller sees; any other scope is a 400', async () => {
    expect(await visible(U2, '&scope=0')).toEqual([u2Own.id]);
    expect(await visible(U2, '&scope=1')).toEqual([adminGlobal.id, u1Global.id].sort());
    expect(await visible(A, '&scope=0')).toEqual([adminOwn.id, u1Own.id, u2Own.id].sort());
    expectError(await U2.get('/persistedData?scope=5'), 400, "'scope' must be 0");
    expectError(await U2.get('/persistedData?scope=user'), 400, "The query parameter 'scope' must be 0 (the creator's own) or 1 (global), got 'user'.");
  });

  test('gets: another user\'s own dictionary is a 404, as if it did not exist', async () => {
    expect((await U2.get(`/persistedData/${u1Global.id}`)).status).toBe(200);
    expectError(await U2.get(`/persistedData/${u1Own.id}`), 404);
    expectError(await U2.get(`/persistedData/${adminOwn.id}`), 404);
    expect((await A.get(`/persistedData/${u1Own.id}`)).body.data.createByUsId).toBe(u1Id);
  });

  test('the list is paged with pagination; totalRecords counts only what the caller sees', async () => {
    const r = await U1.get(`/persistedData?${q(`name like '${tag}%'`)}&limit=2&offset=1`);
    expectEnvelope(r, 'GET', U1.url(`/persistedData?${q(`name like '${tag}%'`)}&limit=2&offset=1`));
    expect(keysOf(r.body.pagination)).toEqual(sorted(PAGINATION_KEYS));
    expect(r.body.pagination).toMatchObject({ dataType: 'PagedData', limit: 2, totalRecords: 3 });
    expect(r.body.data).toHaveLength(2);
    for (const d of r.body.data) expect(keysOf(d)).toEqual(sorted(DEFAULT));
    expect(keysOf((await U1.get(`/persistedData?${q(`name like '${tag}%'`)}&expand=data`)).body.data[0])).toEqual(sorted(ALL));
  });

  test('q over any field; a bad q is a 400', async () => {
    const r = await A.get(`/persistedData?${q(`name like '${tag}%' and scope eq 1 and linkedObjectType eq 0 and dataLength eq 7`)}`);
    expect(ids(r).sort()).toEqual([adminGlobal.id, u1Global.id].sort());
    expectError(await A.get(`/persistedData?${q('nosuchfield eq 1')}`), 400);
  });
});

test('the bulk access check answers by the row rule, in one statement for a page of ids', async () => {
  const [own, global, other, otherGlobal] = [await create(U1), await create(U1, { scope: 1 }), await create(U2), await create(U2, { scope: 1 })];
  const all = [own.id, global.id, other.id, otherGlobal.id];
  const ctxOf = (api: Api) => buildContext(h.services, new Request('http://quire.test/', { headers: { authorization: `Bearer ${api.token}` } }), 'access-test', undefined);
  const def = resource('PersistedData');
  const u1 = await ctxOf(U1);
  const { result: seen, statements } = await h.countQueries(() => accessibleIds(u1, def, all, 'see'));
  expect(statements).toHaveLength(1);
  expect([...seen].sort()).toEqual([own.id, global.id, otherGlobal.id].sort());
  expect([...(await accessibleIds(u1, def, all, 'change'))].sort()).toEqual([own.id, global.id].sort());
  const admin = await ctxOf(A);
  expect((await accessibleIds(admin, def, all, 'change')).size).toBe(4);
});

describe('PUT /persistedData/{id}', () => {
  test('the .NET client\'s PersistedClientData.Update: the whole record sent back (its read-only keys, meta and its secrets ignored), the keys sent changed, 200 and the record', async () => {
    const d = await create(U1, { scope: 1, linkedObjectId: 'abc', linkedObjectType: 3 });
    // As Json.NET writes the object (camelCase, defaults left out): every property, read-only ones too.
    const body = {
      createByUsId: d.createByUsId, createDateUtc: d.createDateUtc, persistedData: '{"b":"😀"}', dataLength: 999, dataMimeType: 'text/json',
      id: d.id, linkedObjectId: 'xyz', modifiedByUsId: UNKNOWN_ID, modifiedDateUtc: '2001-01-01T00:00:00', scope: 1, name: 'renamed',
      href: d.href, meta: { status: 200, statusMsg: 'OK', method: 'GET' }, clientSecrets: { apiKey: 'k', apiSecret: 's' }, apiTokens: { accessToken: 't' },
    };
    const r = await U1.put(`/persistedData/${d.id}/`, body);
    expectEnvelope(r, 'PUT', U1.url(`/persistedData/${d.id}/`));
    expect(keysOf(r.body.data)).toEqual(sorted(ALL));
    expect(r.body.data).toMatchObject({
      id: d.id, name: 'renamed', scope: 1, persistedData: '{"b":"😀"}', dataLength: 10, dataMimeType: 'text/json', linkedObjectId: 'xyz',
      linkedObjectType: 3, createByUsId: u1Id, modifiedByUsId: u1Id, createDateUtc: d.createDateUtc,
    });
    expect(r.body.data.modifiedDateUtc > (d.modifiedDateUtc as string)).toBe(true);
    expect((await U1.get(`/persistedData/${d.id}?expand=true`)).body.data).toEqual(r.body.data);
    // Keys not sent stay; each sent is checked as on create.
    expect((await U1.put(`/persistedData/${d.id}`, { expirationDateUtc: FUTURE })).body.data).toMatchObject({ name: 'renamed', expirationDateUtc: '2099-12-31T23:59:59.000' });
    expectError(await U1.put(`/persistedData/${d.id}`, { persistedData: '[1]' }), 400, "'persistedData'");
    expectError(await U1.put(`/persistedData/${d.id}`, { name: '' }), 400, "'name'");
    expectError(await U1.put(`/persistedData/${d.id}`, { scope: 7 }), 400, "'scope'");
    expectError(await U1.put(`/persistedData/${d.id}`, { expirationDateUtc: '2001-01-01' }), 400, "'expirationDateUtc'");
    expectError(await U1.put(`/persistedData/${d.id}`, { id: d.id }), 400, 'Send at least one of: name, scope, persistedData');
    expect((await U1.get(`/persistedData/${d.id}?expand=true`)).body.data).toMatchObject({ name: 'renamed', persistedData: '{"b":"😀"}' });
  });

  test('who may: its creator or an administrator (another user: 403 on a global one, 404 on an own one); an unknown id is a 404', async () => {
    const global = await create(U1, { scope: 1 });
    const own = await create(U1, { scope: 0 });
    expectError(await U2.put(`/persistedData/${global.id}`, { name: 'mine' }), 403, 'creator');
    expectError(await U2.put(`/persistedData/${own.id}`, { name: 'mine' }), 404);
    expect((await A.put(`/persistedData/${own.id}`, { name: 'by admin' })).body.data).toMatchObject({ name: 'by admin', createByUsId: u1Id, modifiedByUsId: adminId });
    expectError(await U1.put(`/persistedData/${UNKNOWN_ID}`, { name: 'x' }), 404);
    const g = await U1.gql('mutation ($id: UUID!) { updatePersistedData(id: $id, input: { scope: 0 }) { scope name } }', { id: global.id });
    expect(g.body.data.updatePersistedData).toEqual({ scope: 0, name: global.name });
  });
});

describe('DELETE /persistedData/{id}', () => {
  test('its creator: 200 with data {success: true}; then it is gone', async () => {
    const d = await create(U1);
    const r = await U1.del(`/persistedData/${d.id}`);
    expectEnvelope(r, 'DELETE', U1.url(`/persistedData/${d.id}`));
    expect(r.body.data).toEqual({ success: true });
    expectError(await U1.get(`/persistedData/${d.id}`), 404);
    expectError(await U1.del(`/persistedData/${d.id}`), 404);
  });

  test('another user: 403 on a global one (it stays), 404 on an own one; an administrator deletes any', async () => {
    const global = await create(U1, { scope: 1 });
    const own = await create(U1, { scope: 0 });
    expectError(await U2.del(`/persistedData/${global.id}`), 403, 'creator');
    expectError(await U2.del(`/persistedData/${own.id}`), 404);
    expect((await U1.get(`/persistedData/${global.id}`)).status).toBe(200);
    for (const d of [global, own]) expect((await A.del(`/persistedData/${d.id}`)).body.data).toEqual({ success: true });
  });

  test('deletes racing each other and reads: exactly one delete wins, the rest are 404s; reads see it whole or not at all', async () => {
    const d = await create(U1, { scope: 1 });
    const calls = await Promise.all([
      ...Array.from({ length: 6 }, () => U1.del(`/persistedData/${d.id}`)),
      ...Array.from({ length: 6 }, () => U2.get(`/persistedData/${d.id}?expand=data`)),
    ]);
    const deletes = calls.slice(0, 6).map((r) => r.status);
    expect(deletes.filter((s) => s === 200)).toHaveLength(1);
    expect(deletes.filter((s) => s === 404)).toHaveLength(5);
    for (const r of calls.slice(6)) {
      expect([200, 404]).toContain(r.status);
      if (r.status === 200) expect(r.body.data.persistedData).toBe('{"a":1}');
    }
    expectError(await A.get(`/persistedData/${d.id}`), 404);
  });
});

describe('expiry', () => {
  test('an expired dictionary is neither listed nor returned, nor deletable, to anyone; the purge deletes it and only it', async () => {
    const tag = uniq('expiring');
    const gone = await create(U1, { name: `${tag}-gone`, scope: 1, expirationDateUtc: FUTURE });
    const kept = await create(U1, { name: `${tag}-kept`, scope: 1, expirationDateUtc: FUTURE });
    await expire(gone.id);
    for (const api of [U1, U2, A]) {
      expect(ids(await api.get(`/persistedData?${q(`name like '${tag}%'`)}`))).toEqual([kept.id]);
      expectError(await api.get(`/persistedData/${gone.id}`), 404);
    }
    expectError(await A.del(`/persistedData/${gone.id}`), 404);
    await purgeExpired(h.orm.em.fork(), h.services.config, h.services.files);
    const left = await h.orm.em.getConnection().execute<{ id: string }[]>(`select id from persisted_data where id in (?, ?)`, [gone.id, kept.id]);
    expect(left.map((r) => r.id)).toEqual([kept.id]);
  });
});

describe('statements per page', () => {
  test('a list costs the same statements at limit 1 and limit 5, for a user (row rule) and an administrator', async () => {
    const tag = uniq('paged');
    for (let i = 0; i < 5; i++) await create(U2, { name: `${tag}-${i}`, scope: i % 2 });
    for (const api of [U2, A]) {
      const counts: number[] = [];
      for (const limit of [1, 5]) {
        const { result, statements } = await h.countQueries(() => api.get(`/persistedData?${q(`name like '${tag}%'`)}&limit=${limit}`));
        expect(result.body.data).toHaveLength(limit);
        counts.push(statements.length);
      }
      expect(counts[1]).toBe(counts[0]);
    }
  });
});

describe('GraphQL', () => {
  test('create, list with scope, get and delete; a page costs constant statements', async () => {
    const created = await U1.gql(`mutation ($i: PersistedDataInput!) { createPersistedData(input: $i) { id scope dataLength persistedData createByUsId } }`, {
      i: { name: uniq('gql'), scope: 1, persistedData: '{"q":true}' },
    });
    expect(created.body.errors).toBeUndefined();
    const d = created.body.data.createPersistedData;
    expect(d).toMatchObject({ scope: 1, dataLength: 10, persistedData: '{"q":true}', createByUsId: u1Id });
    const list = (limit: number) => U2.gql(`{ persistedDataList(scope: 1, limit: ${limit}) { totalRecords items { id scope name } } }`);
    const one = await h.countQueries(() => list(1));
    const five = await h.countQueries(() => list(5));
    expect(five.result.body.data.persistedDataList.items.length).toBeGreaterThan(1);
    expect(five.statements.length).toBe(one.statements.length);
    expect(five.result.body.data.persistedDataList.items.every((x: Rec) => x.scope === 1)).toBe(true);
    expect((await U2.gql(`query ($id: UUID!) { persistedData(id: $id) { name } }`, { id: d.id })).body.data.persistedData.name).toMatch(/^gql-/);
    const refused = await U2.gql(`mutation ($id: UUID!) { deletePersistedData(id: $id) { success } }`, { id: d.id });
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const deleted = await U1.gql(`mutation ($id: UUID!) { deletePersistedData(id: $id) { success } }`, { id: d.id });
    expect(deleted.body.data.deletePersistedData).toEqual({ success: true });
  });

  test('a bad dictionary is refused with the same message; a dictionary written inline works, and nothing goes to stderr', async () => {
    const written: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => written.push(args);
    try {
      const r = await U1.gql(`mutation { createPersistedData(input: {name: "x", persistedData: "[1]"}) { id } }`);
      expect(r.body.errors[0].message).toContain('JSON text of an object');
      const ok = await U1.gql(`mutation { createPersistedData(input: {name: "y", persistedData: {k: "v", n: [1, 2]}}) { persistedData } }`);
      expect(ok.body.data.createPersistedData.persistedData).toBe('{"k":"v","n":[1,2]}');
      expect(written).toEqual([]);
    } finally {
      console.error = original;
    }
  });
});

test('an ordinary user of the tenant may create (plain from the shared fixture)', async () => {
  expect((await create(A.as(plain.token))).createByUsId).toBe(plain.id);
});
