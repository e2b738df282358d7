/**
 * HTTP-level tests of the form instance routes (rest-api-v1.md "FormInstance", "Form templates
 * and forms"; client-compatibility.md: 201 on creates and revisions, one-element arrays, the
 * forminstance routes) and the instance fields of /graphql.
 */
import { createHash } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { PDFParse } from 'pdf-parse';
import { MAX_PDF_PAGES } from '../../src/domain/form-pdf.js';
import { MAX_LISTED_FIELDS, MAX_Q_LENGTH } from '../../src/query/index.js';
import {
  type Api,
  expectEnvelope,
  expectError,
  formTemplateWith,
  GUID,
  keysOf,
  q,
  sorted,
  UNKNOWN_ID,
  uniq,
  whileHeld,
} from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

const AUDIT = ['createDate', 'modifyDate', 'createById', 'modifyById', 'createBy', 'modifyBy'];
const BASE = ['href', 'dataType', 'revisionId', 'instanceName'];
const FULL = [...BASE, 'formId', 'templateId', 'revision', ...AUDIT];
/** The new-revision answer, in the spec's order (rest-api-v1.md, POST formtemplates/{id}/forms/{revisionId}). */
const NEW_REVISION = ['href', 'dataType', 'instanceName', 'revisionId'];

setUpTwoTenants();

type Instance = Record<string, unknown> & { revisionId: string; formId: string; instanceName: string };

/** The ids of the released revision's fields, by lower-case key. */
async function fieldIds(templateId: string): Promise<Record<string, string>> {
  const g = await A.gql('query ($id: String!) { formTemplate(id: $id) { revisions { fields { id key } } } }', { id: templateId });
  const fields: { id: string; key: string }[] = g.body.data.formTemplate.revisions.at(-1).fields;
  return Object.fromEntries(fields.map((f) => [f.key.toLowerCase(), f.id]));
}

async function create(api: Api, templateId: string, body: unknown): Promise<Instance> {
  const r = await api.post(`/formtemplates/${templateId}/forms`, body);
  expectEnvelope(r, 'POST', api.url(`/formtemplates/${templateId}/forms`), 201);
  return r.body.data;
}

describe('POST /formtemplates/{id}/forms', () => {
  test('201: the instance with its audit fields and values, keys lower-cased; the name is the prefix and the sequence', async () => {
    const t = await formTemplateWith(A, ['Color', 'size']);
    const d = await create(A, t.id, { COLOR: 'Red', size: 3 });
    expect(keysOf(d)).toEqual(sorted([...FULL, 'color', 'size']));
    // The FormInstance table's order (the create's answer names no keys of its own); values after the base fields.
    expect(Object.keys(d).slice(0, FULL.length)).toEqual(FULL);
    expect(d).toMatchObject({
      dataType: 'FormInstance', href: `~/formtemplates/${t.id}/forms/${d.revisionId}`, instanceName: `${t.name}-000001`,
      color: 'Red', size: '3', revision: 1, templateId: t.id, createById: A.t.adminId, createBy: A.t.adminUserId,
    });
    expect(d.revisionId).toMatch(GUID);
    expect(d.formId).toMatch(GUID);
    expect(d.createDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/);
    expect((await create(A, t.id, {})).instanceName).toBe(`${t.name}-000002`);
  });

  test('names by template name too; an empty body is valid when nothing is required', async () => {
    const t = await formTemplateWith(A, ['a']);
    expect((await create(A, encodeURIComponent(t.name), {})).instanceName).toBe(`${t.name}-000001`);
  });

  test('no body at all is a form of no values (the Node client posts none); a raw null or array body is a 400 as on every route, and nothing is made', async () => {
    const t = await formTemplateWith(A, ['a']);
    const JSON_TYPE = { 'content-type': 'application/json' };
    const empty = await A.post(`/formtemplates/${t.id}/forms`, undefined, { headers: JSON_TYPE });
    expect(empty.status).toBe(201);
    const { formId, revisionId } = empty.body.data;
    for (const path of [`/formtemplates/${t.id}/forms`, `/formtemplates/${t.id}/forms/${revisionId}`, `/forms/${formId}`]) {
      for (const raw of ['null', ' null ', '[]', '[{"a":"x"}]']) {
        expectError(await A.post(path, undefined, { raw, headers: JSON_TYPE }), 400, 'The request body must be a JSON object.');
      }
    }
    const forms = (await A.get(`/formtemplates/${t.id}/forms`)).body.data;
    expect(forms).toHaveLength(1);
    expect((await A.get(`/formtemplates/${t.id}/forms/${formId}`)).body.data[0].revision).toBe(1);
    // Both revision routes take no body too: a new revision with the values it had.
    expect((await A.post(`/forms/${formId}`, undefined, { headers: JSON_TYPE })).status).toBe(201);
    expect((await A.post(`/formtemplates/${t.id}/forms/${formId}`, undefined, { raw: '', headers: JSON_TYPE })).status).toBe(201);
  });

  test('unknown keys are a 400 naming each; required fields must have a value; nothing is made', async () => {
    const t = await formTemplateWith(A, ['a', 'Must'], ['Must']);
    expectError(await A.post(`/formtemplates/${t.id}/forms`, { a: 'x', nosuch: '1', other: '2', must: 'y' }), 400, /'nosuch', 'other'/);
    expectError(await A.post(`/formtemplates/${t.id}/forms`, { a: 'x' }), 400, /'Must' must have a value/);
    expectError(await A.post(`/formtemplates/${t.id}/forms`, { must: '  ' }), 400, /'Must'/);
    expectError(await A.post(`/formtemplates/${t.id}/forms`, { must: { x: 1 } }), 400, /'must' must be a string/);
    expectError(await A.post(`/formtemplates/${t.id}/forms`, ['must']), 400);
    // A number JSON cannot hold (1e400 parses as Infinity) is refused, not kept as something else.
    expectError(await A.post(`/formtemplates/${t.id}/forms`, undefined, { raw: '{"must": 1e400}', headers: { 'content-type': 'application/json' } }), 400, /holds a number too large to keep/);
    // Thousands of unknown keys: the first ten named, the rest counted, in a message of a line.
    const many = await A.post(`/formtemplates/${t.id}/forms`, Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 'v'])));
    expectError(many, 400, /^The template has no form field named 'k0', .*'k9' and 4990 more\.$/);
    expect(many.text.length).toBeLessThan(2000);
    expect((await A.get(`/formtemplates/${t.id}/forms`)).body.data).toEqual([]);
    expect((await create(A, t.id, { MUST: 'ok' })).instanceName).toBe(`${t.name}-000001`);
  });

  test('a key sent more than once (form-encoded, multipart or JSON) is a 400 saying so, on creates and revisions; nothing is made', async () => {
    const t = await formTemplateWith(A, ['FirstName']);
    const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
    const twice = /^The key 'FirstName' was sent 2 times in the request body: send it once, with one value\.$/;
    expectError(await A.post(`/formtemplates/${t.id}/forms`, undefined, { raw: 'FirstName=a&FirstName=b', headers: FORM }), 400, twice);
    const parts = new FormData();
    for (const v of ['a', 'b']) parts.append('FirstName', v);
    const req = new Request('http://x/', { method: 'POST', body: parts });
    const multipart = { raw: new Uint8Array(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
    expectError(await A.post(`/formtemplates/${t.id}/forms`, undefined, multipart), 400, twice);
    expect((await A.get(`/formtemplates/${t.id}/forms`)).body.data).toEqual([]);
    const x = await create(A, t.id, { FirstName: 'a' });
    expectError(await A.post(`/forms/${x.formId}`, undefined, { raw: 'FirstName=b&FirstName=c', headers: FORM }), 400, twice);
    expect((await A.post(`/forms/${x.formId}`, undefined, { raw: 'FirstName=b', headers: FORM })).status).toBe(201);
    // In JSON too: JSON.parse kept the last.
    const JSON_TYPE = { 'content-type': 'application/json' };
    expectError(await A.post(`/formtemplates/${t.id}/forms`, undefined, { raw: '{"FirstName":"x","FirstName":"y"}', headers: JSON_TYPE }), 400, twice);
    expectError(await A.post(`/forms/${x.formId}`, undefined, { raw: '{"FirstName":"c","FirstName":"d"}', headers: JSON_TYPE }), 400, twice);
    expect((await A.get(`/formtemplates/${t.id}/forms`)).body.data).toHaveLength(1);
  });

  test('a multipart body with a file part is a 400 naming the part as sent, on creates and revisions; nothing is made', async () => {
    const t = await formTemplateWith(A, ['Req', 'Notes']);
    const multipart = async (file: string) => {
      const parts = new FormData();
      parts.append('Req', 'a');
      parts.append(file, new Blob(['some text'], { type: 'text/plain' }), 'att.txt');
      const req = new Request('http://x/', { method: 'POST', body: parts });
      return { raw: new Uint8Array(await req.arrayBuffer()), headers: { 'content-type': req.headers.get('content-type')! } };
    };
    const refused = (path: string) =>
      `POST ${path} takes text parts only: the part 'Notes' is a file ('att.txt'). Send its value as a text part, without a filename.`;
    const r = await A.post(`/formtemplates/${t.id}/forms`, undefined, await multipart('Notes'));
    expectError(r, 400, refused('formtemplates/{templateId}/forms'));
    expect((await A.get(`/formtemplates/${t.id}/forms`)).body.data).toEqual([]);
    const x = await create(A, t.id, { Req: 'a' });
    expectError(await A.post(`/forms/${x.formId}`, undefined, await multipart('Notes')), 400, refused('forms/{formId}'));
    expect((await A.get(`/formtemplates/${t.id}/forms?${q(`revisionId eq '${x.revisionId}'`)}&expand=true`)).body.data[0]).toMatchObject({ revision: 1 });
  });

  test('fields named as Object.prototype\'s keys: a required one without a value is a 400 naming it; form-encoded, each is sent once and __proto__ is a key', async () => {
    const t = await formTemplateWith(A, ['constructor', 'toString'], ['constructor', 'toString']);
    expectError(await A.post(`/formtemplates/${t.id}/forms`, {}), 400, "The required form fields 'constructor', 'toString' must have a value.");
    const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
    const made = await A.post(`/formtemplates/${t.id}/forms`, undefined, { raw: 'constructor=c&toString=t', headers: FORM });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ constructor: 'c', tostring: 't' });
    expectError(await A.post(`/forms/${made.body.data.formId}`, undefined, { raw: '__proto__=x', headers: FORM }), 400, "The template has no form field named '__proto__'.");
  });

  test('a key may name a field by its id (any case), on creates and on both revision routes', async () => {
    const t = await formTemplateWith(A, ['Applicant', 'Note']);
    const id = await fieldIds(t.id);
    const d = await create(A, t.id, { [id.applicant]: 'Ada', [id.note.toUpperCase()]: 'first' });
    expect(d).toMatchObject({ applicant: 'Ada', note: 'first' });
    expect(d).not.toHaveProperty(id.applicant);
    const r = await A.post(`/formtemplates/${t.id}/forms/${d.revisionId}`, { [id.note]: 'second' });
    expect(r.status).toBe(201);
    expect((await A.post(`/forms/${d.formId}`, { [id.applicant]: 'Grace' })).status).toBe(201);
    expect((await A.get(`/formtemplates/${t.id}/forms/${d.formId}`)).body.data[0]).toMatchObject({ applicant: 'Grace', note: 'second', revision: 3 });
  });

  test('a field named twice (by key and id, or in two cases) with different values is a 400 naming it and both names, as any argument sent twice; nothing is saved', async () => {
    const t = await formTemplateWith(A, ['Applicant', 'Note']);
    const id = await fieldIds(t.id);
    expectError(await A.post(`/formtemplates/${t.id}/forms`, { Applicant: 'x', [id.applicant]: 'y' }), 400, `The form field 'Applicant' was sent 2 times with different values ('x' as 'Applicant' and 'y' as '${id.applicant}'): send it once.`);
    expectError(await A.post(`/formtemplates/${t.id}/forms`, { Applicant: 'x', applicant: 'y' }), 400, "The form field 'Applicant' was sent 2 times with different values ('x' as 'Applicant' and 'y' as 'applicant')");
    expect((await A.get(`/formtemplates/${t.id}/forms`)).body.data).toEqual([]);
    const d = await create(A, t.id, { note: 'kept' });
    expectError(await A.post(`/formtemplates/${t.id}/forms/${d.revisionId}`, { NOTE: 'a', note: 'b' }), 400, /'Note' was sent 2 times with different values/);
    expectError(await A.post(`/forms/${d.formId}`, { [id.note]: 'a', Note: 'b' }), 400, /'Note' was sent 2 times with different values/);
    expect((await A.get(`/formtemplates/${t.id}/forms/${d.formId}`)).body.data[0]).toMatchObject({ note: 'kept', revision: 1 });
  });

  test('a field named twice with the same text (a number beside its digits) is taken once', async () => {
    const t = await formTemplateWith(A, ['Applicant', 'Note']);
    const id = await fieldIds(t.id);
    const d = await create(A, t.id, { Applicant: 'x', [id.applicant]: 'x', note: 7, NOTE: '7' });
    expect((await A.get(`/formtemplates/${t.id}/forms/${d.formId}`)).body.data[0]).toMatchObject({ applicant: 'x', note: '7', revision: 1 });
  });

  test('an unknown template is a 404', async () => {
    expectError(await A.post(`/formtemplates/${UNKNOWN_ID}/forms`, {}), 404, /Form template/);
    expectError(await A.post('/formtemplates/no%20such%20template/forms', {}), 404);
  });

  test('concurrent creates take distinct numbers, none repeats after a delete', async () => {
    const t = await formTemplateWith(A, ['a']);
    const made = await Promise.all(Array.from({ length: 12 }, (_, i) => A.post(`/formtemplates/${t.id}/forms`, { a: String(i) })));
    expect(made.map((r) => r.status)).toEqual(Array(12).fill(201));
    const names = made.map((r) => r.body.data.instanceName as string).sort();
    expect(names).toEqual(Array.from({ length: 12 }, (_, i) => `${t.name}-${String(i + 1).padStart(6, '0')}`));
    const last = made.find((r) => r.body.data.instanceName.endsWith('000012'))!.body.data;
    expect((await A.del(`/forminstance/${last.revisionId}`)).status).toBe(200);
    expect((await create(A, t.id, {})).instanceName).toBe(`${t.name}-000013`);
  });
});

describe('GET /formtemplates/{id}/forms', () => {
  let t: { id: string; name: string };
  let made: Instance[];
  beforeAll(async () => {
    t = await formTemplateWith(A, ['city', 'zip', 'note', 'x4', 'x5']);
    made = [];
    for (const [city, zip] of [['Paris', '75001'], ['paris', '75002'], ['Lyon', '69001']]) made.push(await create(A, t.id, { city, zip }));
  });

  test('lists revisionId and instanceName in creation order; `fields` adds form fields (any case)', async () => {
    const r = await A.get(`/formtemplates/${t.id}/forms`);
    expectEnvelope(r, 'GET', A.url(`/formtemplates/${t.id}/forms`));
    // In the spec's order: "href, dataType, revisionId, instanceName, plus requested fields".
    expect(r.body.data.map(Object.keys)).toEqual(Array(3).fill(BASE));
    expect(r.body.data.map((d: Instance) => d.revisionId)).toEqual(made.map((m) => m.revisionId));
    const f = await A.get(`/formtemplates/${t.id}/forms?fields=${encodeURIComponent('City, ZIP')}`);
    // Added to the base keys, as the spec lists them: "revisionId, instanceName, plus requested fields".
    expect(f.body.data[0]).toEqual({ href: made[0].href, dataType: 'FormInstance', revisionId: made[0].revisionId, instanceName: made[0].instanceName, city: 'Paris', zip: '75001' });
    const all = await A.get(`/formtemplates/${t.id}/forms?expand=data&limit=1&offset=2`);
    expect(all.body.data).toEqual([made[2]]);
  });

  test('the list is paged: pagination counts every form, so a client told 200 knows more remain', async () => {
    const page = await A.get(`/formtemplates/${t.id}/forms?limit=2`);
    expect(page.body.data).toHaveLength(2);
    expect(page.body.pagination).toMatchObject({ dataType: 'PagedData', limit: 2, totalRecords: 3, next: expect.stringContaining('offset=2') });
  });

  test('q over form fields (case-insensitive keys and values) and base fields', async () => {
    const names = async (expr: string) => {
      const r = await A.get(`/formtemplates/${t.id}/forms?${q(expr)}`);
      expect(r.status).toBe(200);
      return r.body.data.map((d: Instance) => d.instanceName);
    };
    expect(await names("[CITY] eq 'PARIS'")).toEqual([made[0].instanceName, made[1].instanceName]);
    expect(await names("city eq 'paris' and zip gt '75001'")).toEqual([made[1].instanceName]);
    expect(await names("zip like '69%'")).toEqual([made[2].instanceName]);
    expect(await names(`instanceName eq '${made[2].instanceName}'`)).toEqual([made[2].instanceName]);
    expect(await names(`revisionId eq '${made[1].revisionId}'`)).toEqual([made[1].instanceName]);
    expect(await names("note eq 'x'")).toEqual([]);
    expect(await names("note is null")).toHaveLength(3);
    expect(await names(`createDate gt '2000-01-01'`)).toHaveLength(3);
  });

  test("q: a form field the instance holds no value for reads as '' when compared with ''", async () => {
    // The first holds a note, the second none, the third an empty one; none holds `other`.
    const u = await formTemplateWith(A, ['note', 'other']);
    const [x, y, z] = [await create(A, u.id, { note: 'n' }), await create(A, u.id, {}), await create(A, u.id, { note: '' })];
    const of = async (expr: string) => {
      const r = await A.get(`/formtemplates/${u.id}/forms?${q(expr)}`);
      expect([expr, r.status]).toEqual([expr, 200]);
      return r.body.data.map((d: Instance) => d.instanceName);
    };
    expect(await of("note eq ''")).toEqual([y.instanceName, z.instanceName]);
    expect(await of("[NOTE] ne ''")).toEqual([x.instanceName]);
    expect(await of("note in ('', 'x')")).toEqual([y.instanceName, z.instanceName]);
    expect(await of("note not in ('', 'x')")).toEqual([x.instanceName]);
    expect(await of("note eq 'n' or other eq ''")).toEqual([x.instanceName, y.instanceName, z.instanceName]);
    expect(await of("note eq 'N'")).toEqual([x.instanceName]);
    expect(await of('note is null')).toEqual([y.instanceName]);
    // Negated, eq finds what ne finds: a form without the key is neither equal nor unequal to 'zz'.
    expect(await of("note ne 'zz'")).toEqual([x.instanceName, z.instanceName]);
    expect(await of("not (note eq 'zz')")).toEqual([x.instanceName, z.instanceName]);
    expect(await of("not (note eq 'zz' or note eq 'n')")).toEqual([z.instanceName]);
  });

  test('q: a base field wins over a calendar or cell form field of the same name, as it does in the record', async () => {
    const shadowed = await formTemplateWith(A, ['revision', 'templateId', 'label'], [], { revision: 6, templateId: 5 });
    const first = await create(A, shadowed.id, { revision: '7', templateId: '2020-01-01', label: 'a' });
    await A.post(`/formtemplates/${shadowed.id}/forms/${first.revisionId}`, { label: 'a2' });
    await create(A, shadowed.id, { revision: '1', templateId: '2030-01-01', label: 'b' });
    const labels = async (expr: string) => (await A.get(`/formtemplates/${shadowed.id}/forms?fields=label&${q(expr)}`)).body.data.map((d: { label: string }) => d.label);
    expect(await labels('revision eq 2')).toEqual(['a2']);
    expect(await labels('revision gt 5')).toEqual([]);
    expect(await labels(`templateId eq '${shadowed.id}'`)).toEqual(['a2', 'b']);
  });

  test('q and records: the record\'s href, dataType and fields win over form fields named as them in any case (formid beside formId would be one key to a case-blind client); GraphQL keeps the values', async () => {
    const shadowed = await formTemplateWith(A, ['href', 'dataType', 'FormId', 'TemplateID', 'label']);
    const made = await create(A, shadowed.id, { href: 'x', dataType: 'y', FormId: 'z', TemplateID: 'w', label: 'a' });
    const clashing = ['href', 'datatype', 'formid', 'templateid'];
    for (const path of [`/formtemplates/${shadowed.id}/forms?fields=href,dataType,formid,templateid,label`, `/formtemplates/${shadowed.id}/forms/${made.revisionId}`]) {
      const body = (await A.get(path)).body.data;
      const shown = Array.isArray(body) ? body[0] : body;
      expect(shown).toMatchObject({ href: `~/formtemplates/${shadowed.id}/forms/${made.revisionId}`, dataType: 'FormInstance', label: 'a' });
      // Each at most once, as the record spells it, with the record's value.
      const keys = Object.keys(shown).filter((k) => clashing.includes(k.toLowerCase()));
      expect([path, keys.every((k) => ['href', 'dataType', 'formId', 'templateId'].includes(k))]).toEqual([path, true]);
      if (shown.formId !== undefined) expect(shown.formId).toBe(made.formId);
    }
    const labels = async (expr: string) => (await A.get(`/formtemplates/${shadowed.id}/forms?fields=label&${q(expr)}`)).body.data.map((d: { label: string }) => d.label);
    expect(await labels("href eq 'x'")).toEqual([]);
    expect(await labels("datatype eq 'y'")).toEqual([]);
    expect(await labels("dataType eq 'FormInstance'")).toEqual(['a']);
    // The record's formId, a GUID: 'z' is no value of it.
    expectError(await A.get(`/formtemplates/${shadowed.id}/forms?${q("formid eq 'z'")}`), 400, "'z' is not a GUID (compared with 'formid')");
    const values = await A.gql('query ($id: String!) { formInstances(templateId: $id) { items { values } } }', { id: shadowed.id });
    expect(values.body.data?.formInstances.items[0].values).toMatchObject({ href: 'x', datatype: 'y', formid: 'z', templateid: 'w' });
  });

  test('q compares calendar fields as dates and cell fields as numbers; a value that is not one matches nothing', async () => {
    const typed = await formTemplateWith(A, ['due', 'amount', 'label'], [], { due: 5, amount: 6 });
    // PostgreSQL reads NaN and Infinity as a number and infinity as a date: they match nothing either.
    const rows = [['2026-01-15', '9', 'a'], ['12/01/2026', '10.5', 'b'], ['soon', 'many', 'c'], ['infinity', 'NaN', 'd'], ['-infinity', 'Infinity', 'e']];
    for (const [due, amount, label] of rows) await create(A, typed.id, { due, amount, label });
    const labels = async (expr: string) => {
      const r = await A.get(`/formtemplates/${typed.id}/forms?fields=label&${q(expr)}`);
      expect([expr, r.status]).toEqual([expr, 200]);
      return r.body.data.map((d: { label: string }) => d.label);
    };
    // As text '10.5' < '9' and '12/01/2026' < '2026-01-15'.
    expect(await labels('amount gt 9')).toEqual(['b']);
    expect(await labels('amount lt 10')).toEqual(['a']);
    expect(await labels("due gt '2026-06-01'")).toEqual(['b']);
    expect(await labels("due between '2026-01-01' and '2026-02-01'")).toEqual(['a']);
    expect(await labels("due lt dateadd(year, 1, '2026-01-01')")).toEqual(['a', 'b']);
    expect(await labels("label eq 'C'")).toEqual(['c']);
    expect(await labels('amount gt -1000000')).toEqual(['a', 'b']);
    expect(await labels("due gt '1900-01-01'")).toEqual(['a', 'b']);
    expectError(await A.get(`/formtemplates/${typed.id}/forms?${q("amount gt 'x'")}`), 400);
  });

  test('q: a calendar value outside the years 1 to 9999 is no date (PostgreSQL reads the ends of its range, where a dateadd failed the statement: a 500)', async () => {
    const typed = await formTemplateWith(A, ['due', 'label'], [], { due: 5 });
    for (const [due, label] of [['4714-11-24 BC', 'a'], ['294276-12-31', 'b'], ['0001-01-01', 'c'], ['9999-12-31 23:59:59', 'd'], ['2026-01-15', 'e']]) await create(A, typed.id, { due, label });
    const labels = async (expr: string) => {
      const r = await A.get(`/formtemplates/${typed.id}/forms?fields=label&${q(expr)}`);
      expect([expr, r.status]).toEqual([expr, 200]);
      return sorted(r.body.data.map((d: { label: string }) => d.label));
    };
    expect(await labels("dateadd(day, -1, due) lt '2020-01-01'")).toEqual(['c']);
    expect(await labels("dateadd(day, 1, due) gt '2020-01-01'")).toEqual(['d', 'e']);
    expect(await labels("dateadd(year, -3999, due) lt '2020-01-01'")).toEqual(['c', 'e']);
    expect(await labels("due ne ''")).toEqual(['a', 'b', 'c', 'd', 'e']);
    // As other text that is no date ('soon' above).
    expect(await labels('due is null')).toEqual(['a', 'b']);
  });

  test("FormTemplate.forms with a q of 7,000 values over 10 templates: the filter, repeated per template, is read in as many statements as PostgreSQL's 65,535 parameters need (it was one statement, and a 500)", async () => {
    const T = A.on(await h.tenant());
    const api = T.as(await h.login(T.t));
    const names: string[] = [];
    for (let i = 0; i < 10; i++) {
      const t = await formTemplateWith(api, ['a']);
      await create(api, t.id, { a: String(i) });
      await create(api, t.id, { a: 'none' });
      names.push(t.name);
    }
    const lists = Array.from({ length: 7 }, (_, l) => `a in (${Array.from({ length: 1000 }, (_, j) => `'${l * 1000 + j}'`).join(',')})`);
    const expr = lists.join(' or ');
    expect(expr.length).toBeLessThanOrEqual(MAX_Q_LENGTH);
    const query = 'query ($q: String) { formTemplates(limit: 20) { items { name forms(q: $q) { values } formsPage(q: $q) { totalRecords } } } }';
    const read = await h.countQueries(() => api.gql(query, { q: expr }));
    expect(read.result.body.errors).toBeUndefined();
    const items: { name: string; forms: unknown[]; formsPage: { totalRecords: number } }[] = read.result.body.data.formTemplates.items;
    expect(sorted(items.map((x) => x.name))).toEqual(sorted(names));
    for (const x of items) expect([x.name, x.forms, x.formsPage.totalRecords]).toEqual([x.name, [{ values: { a: String(names.indexOf(x.name)) } }], 1]);
    const parameters = read.statements.map((st) => Math.max(0, ...[...st.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]))));
    expect(Math.max(...parameters)).toBeLessThanOrEqual(65_535);
    expect(parameters.filter((n) => n > 7_000).length).toBeGreaterThan(1);
  });

  test("q: eq '' and ne '' on a calendar or cell field find the forms without and with a value, as on a text field; other comparisons with '' stay a 400", async () => {
    const typed = await formTemplateWith(A, ['due', 'amount', 'label'], [], { due: 5, amount: 6 });
    // A value that is no date or number is a value still: it is shown.
    const rows = [['2026-01-15', '9', 'a'], ['', '', 'b'], [undefined, undefined, 'c'], ['soon', 'many', 'd']];
    for (const [due, amount, label] of rows) await create(A, typed.id, { due, amount, label });
    const labels = async (expr: string) => {
      const r = await A.get(`/formtemplates/${typed.id}/forms?fields=label&${q(expr)}`);
      expect([expr, r.status]).toEqual([expr, 200]);
      return r.body.data.map((d: { label: string }) => d.label);
    };
    expect(await labels("[Due] eq ''")).toEqual(['b', 'c']);
    expect(await labels("'' eq amount")).toEqual(['b', 'c']);
    expect(await labels("due ne ''")).toEqual(['a', 'd']);
    expect(await labels("amount ne '' and amount lt 10")).toEqual(['a']);
    expect(await labels("not (due eq '') or amount gt 5")).toEqual(['a', 'd']);
    // In an in list, '' is that test beside the other values, compared as the type.
    expect(await labels("due in ('', '2026-01-15')")).toEqual(['a', 'b', 'c']);
    // A value that is no number compares with 7 as unknown, as `ne 7` does: 'many' is left out.
    expect(await labels("amount not in ('', 7)")).toEqual(['a']);
    for (const [expr, message] of [["due gt ''", "'' is not a valid date-time"], ["amount le ''", "'' is not a number"]]) {
      expectError(await A.get(`/formtemplates/${typed.id}/forms?${q(expr)}`), 400, message);
    }
    // A deleted calendar field reads so under its `__<key>`.
    expect((await A.gql('mutation ($id: String!) { deleteFormTemplateField(id: $id, key: "due") { id } }', { id: typed.id })).body.errors).toBeUndefined();
    expect((await A.put(`/formtemplates/${typed.id}/release`)).status).toBe(200);
    expect(await labels("[__due] eq ''")).toEqual(['b', 'c']);
  });

  test('q compares a calendar value as the text it is shown as, not cut to the millisecond as a record\'s own dates are', async () => {
    const typed = await formTemplateWith(A, ['due', 'label'], [], { due: 5 });
    for (const [due, label] of [['2026-01-15T10:00:00.1234', 'a'], ['2026-01-15T10:00:00.123', 'b']]) await create(A, typed.id, { due, label });
    const labels = async (expr: string) => {
      const r = await A.get(`/formtemplates/${typed.id}/forms?fields=label,due&${q(expr)}`);
      expect([expr, r.status]).toEqual([expr, 200]);
      return r.body.data.map((d: { label: string }) => d.label).sort();
    };
    const shown = (await A.get(`/formtemplates/${typed.id}/forms?fields=label,due&${q("label eq 'a'")}`)).body.data[0].due;
    expect(shown).toBe('2026-01-15T10:00:00.1234');
    expect(await labels(`due eq '${shown}'`)).toEqual(['a']);
    expect(await labels("due eq '2026-01-15T10:00:00.123'")).toEqual(['b']);
    expect(await labels("due gt '2026-01-15T10:00:00.1231'")).toEqual(['a']);
    expect(await labels("due le '2026-01-15T10:00:00.1233'")).toEqual(['b']);
    expect(await labels(`due between '${shown}' and '${shown}'`)).toEqual(['a']);
  });

  test('a list that shows no form values does not read them (a row\'s values may be megabytes); one that does, does', async () => {
    const readsValues = async (run: () => Promise<unknown>) => (await h.countQueries(run)).statements.some((st) => /t\.values as "values"/.test(st));
    expect(await readsValues(() => A.get(`/formtemplates/${t.id}/forms`))).toBe(false);
    expect(await readsValues(() => A.get(`/formtemplates/${t.id}/forms?fields=revisionId,instanceName,createDate`))).toBe(false);
    expect(await readsValues(() => A.get(`/formtemplates/${t.id}/forms?fields=city`))).toBe(true);
    expect(await readsValues(() => A.get(`/formtemplates/${t.id}/forms?expand=data`))).toBe(true);
    expect(await readsValues(() => A.gql(`{ formInstances(templateId: "${t.id}") { items { revisionId } } }`))).toBe(false);
    const withValues = await A.gql(`{ formInstances(templateId: "${t.id}") { items { ... on FormInstance { values } } } }`);
    expect(withValues.body.data.formInstances.items[0].values).toMatchObject({ city: 'Paris' });
    // What is shown is the same either way.
    expect((await A.get(`/formtemplates/${t.id}/forms?fields=city`)).body.data[0]).toMatchObject({ city: 'Paris' });
  });

  test('q eq on a form field probes the values\' GIN index (a containment condition)', async () => {
    const { statements } = await h.countQueries(() => A.get(`/formtemplates/${t.id}/forms?${q("city eq 'Paris'")}`));
    expect(statements.some((s) => /t\.search @> jsonb_build_object/.test(s))).toBe(true);
  });

  test('a bad q is a 400; an unknown template a 404', async () => {
    expectError(await A.get(`/formtemplates/${t.id}/forms?${q("city eq")}`), 400);
    expectError(await A.get(`/formtemplates/${UNKNOWN_ID}/forms`), 404);
  });

  test("q names a form field holding ']' or '[' in brackets, ']' written ']]'; messages name the field as stored", async () => {
    const odd = await formTemplateWith(A, ['a]b', '[', 'Old]One', 'Revision']);
    for (const key of ['Old]One', 'Revision']) {
      expect((await A.gql('mutation ($id: String!, $key: String!) { deleteFormTemplateField(id: $id, key: $key) { id } }', { id: odd.id, key })).body.errors).toBeUndefined();
    }
    expect((await A.put(`/formtemplates/${odd.id}/release`)).status).toBe(200);
    const [one, two] = [await create(A, odd.id, { 'a]b': 'v1', '[': 'w1' }), await create(A, odd.id, { 'a]b': 'v2', '[': 'w2' })];
    const names = async (expr: string) => {
      const r = await A.get(`/formtemplates/${odd.id}/forms?${q(expr)}`);
      expect(r.status).toBe(200);
      return r.body.data.map((d: Instance) => d.instanceName);
    };
    expect(await names("[a]]b] eq 'V1'")).toEqual([one.instanceName]);
    expect(await names("[A]]B] like 'v%' and [[] eq 'w2'")).toEqual([two.instanceName]);
    const unknown = await A.get(`/formtemplates/${odd.id}/forms?${q("[old]]one] eq 'x'")}`);
    expectError(unknown, 400, "Invalid q: unknown field 'old]one' at position 1");
    // Base fields as records spell them, then the form keys as the template does: the deleted ones' __<key> too,
    // one named as a base field (Revision, whose plain key is the base field's) among them.
    expect(unknown.body.meta.errors[0].developerMessage).toMatch(/Known fields: revisionId, instanceName, formId, templateId, revision, createDate, .*, href, dataType, \[a\]\]b\], \[\[\], \[__Old\]\]One\], __Revision\.$/);
    expect(await names('__revision is null')).toEqual([one.instanceName, two.instanceName]);
    expect(await names("[__OLD]]ONE] is null")).toEqual([one.instanceName, two.instanceName]);
    expectError(await A.get(`/formtemplates/${odd.id}/forms?${q("[a]b] eq 'x'")}`), 400, "Invalid q: unexpected character ']' at position 5 (a ']' inside a bracketed field name is written ']]')");
  });

  test("fields= names a form field holding ',' or ']' in brackets, as q does ([x,y], ]] for ]); unbracketed items split at every comma as before", async () => {
    const odd = await formTemplateWith(A, ['x,y', 'a]b', 'c']);
    const made = await create(A, odd.id, { 'x,y': 'v1', 'a]b': 'v2', c: 'v3' });
    const shown = async (fields: string) => {
      const r = await A.get(`/formtemplates/${odd.id}/forms?fields=${encodeURIComponent(fields)}`);
      expect(r.status).toBe(200);
      return r.body.data[0];
    };
    const base = { href: made.href, dataType: 'FormInstance', revisionId: made.revisionId, instanceName: made.instanceName };
    expect(await shown('[X,Y], c')).toEqual({ ...base, 'x,y': 'v1', c: 'v3' });
    expect(await shown('[a]]b]')).toEqual({ ...base, 'a]b': 'v2' });
    expect(await shown('a]b,C')).toEqual({ ...base, 'a]b': 'v2', c: 'v3' });
    // Unbracketed, `x,y` is the names x and y, which the form has not.
    expect(await shown('x,y')).toEqual(base);
    expectError(await A.get(`/formtemplates/${odd.id}/forms?fields=${encodeURIComponent('c,[x,y')}`), 400, 'Invalid fields: unterminated field name starting at position 3');
    expectError(await A.get(`/formtemplates/${odd.id}/forms?fields=${encodeURIComponent('[a]b]')}`), 400,
      "Invalid fields: expected ',' after the bracketed field name at position 4 (found 'b') (a ']' inside a bracketed field name is written ']]')");
  });

  test(`an unknown field in q lists the template's live form fields too, at most ${MAX_LISTED_FIELDS} names in all`, async () => {
    const keys = ['City', 'x,y', ...Array.from({ length: MAX_LISTED_FIELDS }, (_, i) => `F${i}`), 'gone'];
    const wide = await formTemplateWith(A, keys);
    expect((await A.gql('mutation ($id: String!) { deleteFormTemplateField(id: $id, key: "gone") { id } }', { id: wide.id })).body.errors).toBeUndefined();
    expect((await A.put(`/formtemplates/${wide.id}/release`)).status).toBe(200);
    const r = await A.get(`/formtemplates/${wide.id}/forms?${q("gone eq 'x'")}`);
    expectError(r, 400, "Invalid q: unknown field 'gone' at position 1");
    const base = ['revisionId', 'instanceName', 'formId', 'templateId', 'revision', ...AUDIT, 'href', 'dataType'];
    const listed = [...base, 'City', '[x,y]', ...keys.slice(2, -1)].slice(0, MAX_LISTED_FIELDS);
    // The base fields as records spell them, the live form fields (as the template spells them, as q writes them),
    // then the deleted ones under __<key>: the rest counted.
    const more = base.length + keys.length - MAX_LISTED_FIELDS;
    expect(r.body.meta.errors[0].developerMessage).toContain(`Known fields: ${listed.join(', ')} and ${more} more.`);
  });
});

describe('GET and POST /formtemplates/{id}/forms/{revisionId}', () => {
  test('the .NET client reads the get\'s keys beyond its own as form values: formId, templateId and revision stay (decided), and posted back as values they are a 400 naming them, nothing stored', async () => {
    const t = await formTemplateWith(A, ['a']);
    const d = await create(A, t.id, { a: '1' });
    const [got] = (await A.get(`/formtemplates/${t.id}/forms/${d.revisionId}`)).body.data;
    expect(got).toMatchObject({ formId: d.formId, templateId: t.id, revision: 1, a: '1' });
    const { formId, templateId, revision } = got;
    expectError(await A.post(`/formtemplates/${t.id}/forms/${d.revisionId}`, { a: '2', formId, templateId, revision: String(revision) }), 400, "The template has no form field named 'formId', 'templateId', 'revision'.");
    expect((await A.get(`/formtemplates/${t.id}/forms/${d.formId}`)).body.data[0]).toMatchObject({ a: '1', revision: 1 });
  });

  test('get: a one-element array with every field and value', async () => {
    const t = await formTemplateWith(A, ['a', 'b']);
    const d = await create(A, t.id, { a: '1' });
    const r = await A.get(`/formtemplates/${t.id}/forms/${d.revisionId}`);
    expectEnvelope(r, 'GET', A.url(`/formtemplates/${t.id}/forms/${d.revisionId}`));
    expect(r.body.data).toEqual([d]);
    expect((await A.get(`/formtemplates/${t.name}/forms/${d.formId}`)).body.data).toEqual([d]);
    expectError(await A.get(`/formtemplates/${t.id}/forms/${UNKNOWN_ID}`), 404);
    const other = await formTemplateWith(A, ['a']);
    expectError(await A.get(`/formtemplates/${other.id}/forms/${d.revisionId}`), 404, /not found in form template/);
  });

  test('expand=: forms, kept revisions and related forms show their values as their own keys, as each one\'s own read does, not under `values`', async () => {
    const t = await formTemplateWith(A, ['a', 'b']);
    const first = await create(A, t.id, { a: '1' });
    const other = await create(A, t.id, { b: '2' });
    await A.post(`/formtemplates/${t.id}/forms/${first.revisionId}`, { b: 'x' });
    expect((await A.put(`/forminstance/${first.formId}/relateForm?relateToId=${other.formId}`)).status).toBe(200);
    const forms = (await A.get(`/formtemplates/${t.id}?expand=forms`)).body.data[0].forms;
    expect(forms.map((f: Record<string, unknown>) => [f.a, f.b, f.values])).toEqual([['1', 'x', undefined], [undefined, '2', undefined]]);
    const g = (await A.get(`/formtemplates/${t.id}/forms/${first.formId}?expand=revisions,relatedForms`)).body.data[0];
    expect(g.revisions.map((r: Record<string, unknown>) => [r.revision, r.a, r.b, r.values])).toEqual([[1, '1', undefined, undefined], [2, '1', 'x', undefined]]);
    // A kept revision's record is what its href answers, the form at that revision, values as its keys.
    const kept = (await A.get(g.revisions[0].href.replace('~', ''))).body.data[0];
    expect([kept.a, kept.b]).toEqual(['1', undefined]);
    expect(g.relatedForms.map((f: Record<string, unknown>) => [f.instanceName, f.b, f.values])).toEqual([[other.instanceName, '2', undefined]]);
  });

  test('post: 201, a new revision with the previous values plus the posted ones; every revision stays readable', async () => {
    const t = await formTemplateWith(A, ['a', 'b', 'c']);
    const first = await create(A, t.id, { a: '1', b: '2' });
    const r = await A.post(`/formtemplates/${t.id}/forms/${first.revisionId}`, { B: 'two', c: '3' });
    expectEnvelope(r, 'POST', A.url(`/formtemplates/${t.id}/forms/${first.revisionId}`), 201);
    const second = r.body.data;
    // In the spec's order for this answer: "href, dataType, instanceName, revisionId".
    expect(Object.keys(second)).toEqual(NEW_REVISION);
    expect(second.instanceName).toBe(first.instanceName);
    expect(second.revisionId).not.toBe(first.revisionId);
    const now = (await A.get(`/formtemplates/${t.id}/forms/${second.revisionId}`)).body.data[0];
    expect(now).toMatchObject({ a: '1', b: 'two', c: '3', revision: 2, formId: first.formId });
    const then = (await A.get(`/formtemplates/${t.id}/forms/${first.revisionId}`)).body.data[0];
    expect(then).toMatchObject({ a: '1', b: '2', revision: 1, revisionId: first.revisionId });
    expect(then.c).toBeUndefined();
    // The list shows the form once, at its latest revision.
    expect((await A.get(`/formtemplates/${t.id}/forms`)).body.data.map((x: Instance) => x.revisionId)).toEqual([second.revisionId]);
  });

  test('posting to an older revision makes the next revision on top of the latest (spec: "posting to an existing revision creates a new revision"); unknown keys a 400', async () => {
    const t = await formTemplateWith(A, ['a', 'b']);
    const first = await create(A, t.id, { a: '1' });
    expect((await A.post(`/formtemplates/${t.id}/forms/${first.revisionId}`, { b: '2' })).status).toBe(201);
    const r = await A.post(`/formtemplates/${t.id}/forms/${first.revisionId}`, { a: '3' });
    expectEnvelope(r, 'POST', A.url(`/formtemplates/${t.id}/forms/${first.revisionId}`), 201);
    expect(Object.keys(r.body.data)).toEqual(NEW_REVISION);
    // The second revision's b is kept: an older revision id names its form, not the values it had.
    const now = (await A.get(`/formtemplates/${t.id}/forms/${r.body.data.revisionId}`)).body.data[0];
    expect(now).toMatchObject({ a: '3', b: '2', revision: 3, formId: first.formId });
    expectError(await A.post(`/formtemplates/${t.id}/forms/${first.revisionId}`, { zz: '3' }), 400, /'zz'/);
  });

  test('concurrent posts to one revision queue: every post is a kept revision, nothing lost', async () => {
    const keys = Array.from({ length: 8 }, (_, i) => `n${i}`);
    const t = await formTemplateWith(A, ['a', ...keys]);
    const first = await create(A, t.id, { a: 'start' });
    const replies = await Promise.all(keys.map((k) => A.post(`/formtemplates/${t.id}/forms/${first.revisionId}`, { [k]: k })));
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(replies.map((r) => r.body.data.revisionId)).size).toBe(8);
    const now = (await A.get(`/formtemplates/${t.id}/forms/${first.formId}`)).body.data[0];
    expect(now).toMatchObject({ a: 'start', revision: 9, ...Object.fromEntries(keys.map((k) => [k, k])) });
  });

  test('a post to a revision whose form is deleted meanwhile is the 404 of an unknown form', async () => {
    const t = await formTemplateWith(A, ['a']);
    const x = await create(A, t.id, { a: '1' });
    // The delete, committed while the post waits for the form's row.
    const other = { text: 'delete from form_instance where tenant_id = $1 and id = $2', values: [A.t.tenantId, x.formId] };
    const r = await whileHeld(h, other, () => A.post(`/formtemplates/${t.id}/forms/${x.revisionId}`, { a: '2' }));
    expectError(r, 404, `Form instance '${x.revisionId}' was not found.`);
    expect((await h.services.reads.query('select count(*)::int as n from form_instance_revision where tenant_id = $1 and form_id = $2', [A.t.tenantId, x.formId])).rows[0].n).toBe(0);
  });

  test('concurrent POST /forms/{formId} queue: every post is a kept revision, in order, nothing lost', async () => {
    const keys = Array.from({ length: 6 }, (_, i) => `k${i}`);
    const t = await formTemplateWith(A, keys);
    const first = await create(A, t.id, {});
    const replies = await Promise.all(keys.map((k) => A.post(`/forms/${first.formId}`, { [k]: k })));
    expect(replies.map((r) => r.status)).toEqual(Array(6).fill(201));
    const g = await A.gql('query ($t: String!, $r: UUID!) { formInstance(templateId: $t, revisionId: $r) { revision values revisions { id revision values } } }', { t: t.id, r: first.formId });
    const form = g.body.data.formInstance;
    expect(form.revision).toBe(7);
    expect(form.values).toEqual(Object.fromEntries(keys.map((k) => [k, k])));
    expect(form.revisions.map((r: { revision: number }) => r.revision)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(form.revisions.slice(1).map((r: { id: string }) => r.id).sort()).toEqual(replies.map((r) => r.body.data.revisionId).sort());
    // Each revision adds its one key to the one before.
    for (const [i, r] of form.revisions.entries()) expect(Object.keys(r.values)).toHaveLength(i);
  });

  test('POST /forms/{formId}: a new revision on top of the latest, by form id', async () => {
    const t = await formTemplateWith(A, ['a', 'b']);
    const first = await create(A, t.id, { a: '1' });
    await A.post(`/formtemplates/${t.id}/forms/${first.revisionId}`, { b: '2' });
    const r = await A.post(`/forms/${first.formId}`, { a: '3' });
    expectEnvelope(r, 'POST', A.url(`/forms/${first.formId}`), 201);
    expect(Object.keys(r.body.data)).toEqual(NEW_REVISION);
    const now = (await A.get(`/formtemplates/${t.id}/forms/${r.body.data.revisionId}`)).body.data[0];
    expect(now).toMatchObject({ a: '3', b: '2', revision: 3 });
    expectError(await A.post(`/forms/${UNKNOWN_ID}`, {}), 404);
  });
});

describe("a form's values in the form's order", () => {
  // Stored as JSONB, which orders keys by length, then bytes: area, gone, kind, start, firstname.
  const KEYS = ['start', 'kind', 'firstname', 'area', 'gone'];
  const valueKeys = (record: Record<string, unknown>) => Object.keys(record).filter((k) => !FULL.includes(k));

  test('every read and write answer shows the values in the order of the template\'s fields, after the base keys; deleted ones as __<key> after them, then a key no field has', async () => {
    const t = await formTemplateWith(A, KEYS);
    const made = await create(A, t.id, { area: 'North', gone: 'g', firstname: 'Ann', kind: 'k', start: '2026-01-01' });
    expect(Object.keys(made)).toEqual([...Object.keys(made).filter((k) => FULL.includes(k)), ...KEYS]);
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const r = await A.gql(query, variables);
      expect(r.body.errors).toBeUndefined();
      return r.body.data;
    };
    const created = await gql('mutation ($t: String!, $v: JSON) { createFormInstance(templateId: $t, input: $v) { values } }', { t: t.id, v: { Area: 'a', start: 's' } });
    expect(Object.keys(created.createFormInstance.values)).toEqual(['start', 'area']);
    // `kind` deleted (its value reads as __kind), `start` renamed to `begin` (its stored value keeps `start`).
    await gql('mutation ($id: String!) { deleteFormTemplateField(id: $id, key: "kind") { id } }', { id: t.id });
    await gql('mutation ($id: String!) { updateFormTemplateField(id: $id, key: "start", input: { name: "begin" }) { id } }', { id: t.id });
    expect((await A.put(`/formtemplates/${t.id}/release`)).status).toBe(200);
    const SHOWN = ['firstname', 'area', 'gone', '__kind', 'start'];
    const [got] = (await A.get(`/formtemplates/${t.id}/forms/${made.revisionId}`)).body.data;
    expect(valueKeys(got)).toEqual(SHOWN);
    const [listed] = (await A.get(`/formtemplates/${t.id}/forms?expand=data&limit=1`)).body.data;
    expect(valueKeys(listed)).toEqual(SHOWN);
    // `fields=` picks keys, it does not order them: the base keys as always, then the values in the form's order.
    const picked = await A.get(`/formtemplates/${t.id}/forms?limit=1&fields=${encodeURIComponent('start,__KIND,Area,instanceName')}`);
    expect(Object.keys(picked.body.data[0])).toEqual([...BASE, 'area', '__kind', 'start']);
    const revised = await A.post(`/forms/${made.formId}`, { begin: 'b', area: 'South' });
    expect(revised.status).toBe(201);
    const [next] = (await A.get(`/formtemplates/${t.id}/forms/${revised.body.data.revisionId}`)).body.data;
    expect(valueKeys(next)).toEqual(['begin', ...SHOWN]);
    const read = await gql('query ($t: String!) { formInstances(templateId: $t, limit: 1) { items { ... on FormInstance { values revisions { values } } } } }', { t: t.id });
    const item = read.formInstances.items[0];
    expect(Object.keys(item.values)).toEqual(['begin', ...SHOWN]);
    expect(item.revisions.map((r: { values: object }) => Object.keys(r.values))).toEqual([SHOWN, ['begin', ...SHOWN]]);
  });
});

describe('/formtemplates/{revisionId}/forms: a template named by one of its revision ids (the .NET client)', () => {
  test('FormTemplate.CreateNewFormInstance and FormInstance.CreateNewRevision by the released revision id: create, revise, list, get, pdf, new', async () => {
    const t = await formTemplateWith(A, ['a']);
    const base = `/formtemplates/${t.revisionId}/forms`;
    const made = await A.post(`${base}/`, { a: '1' });
    expectEnvelope(made, 'POST', A.url(`${base}/`), 201);
    const x: Instance = made.body.data;
    expect(x).toMatchObject({ templateId: t.id, href: `~/formtemplates/${t.id}/forms/${x.revisionId}`, a: '1' });
    const revised = await A.post(`${base}/${x.revisionId}/`, { a: '2' });
    expectEnvelope(revised, 'POST', A.url(`${base}/${x.revisionId}/`), 201);
    expect((await A.get(base)).body.data.map((f: Instance) => f.revisionId)).toEqual([revised.body.data.revisionId]);
    expect((await A.get(`${base}/${x.formId}`)).body.data[0]).toMatchObject({ a: '2', revision: 2, templateId: t.id });
    const pdf = await A.get(`${base}/${x.formId}/pdf`);
    expect([pdf.status, pdf.headers.get('content-type')]).toEqual([200, 'application/pdf']);
    expect((await A.get(`${base}/new`)).body.data).toMatchObject({ templateId: t.id, revisionId: t.revisionId });
  });

  test('a draft or older revision id names the template too, whose released revision the form follows; another template\'s revision id is a 404', async () => {
    const t = await formTemplateWith(A, ['a']);
    // A field added after the release is in the draft only.
    const g = await A.gql('mutation ($id: String!) { addFormTemplateField(id: $id, input: { name: "later" }) { id } }', { id: t.id });
    const draft = g.body.data.addFormTemplateField.id as string;
    expect(draft).not.toBe(t.revisionId);
    const x = await create(A, draft, { a: '1' });
    expect(x.templateId).toBe(t.id);
    expectError(await A.post(`/formtemplates/${draft}/forms`, { later: '1' }), 400, /'later'/);
    expect((await A.get(`/formtemplates/${draft}/forms/${x.revisionId}`)).body.data[0].revisionId).toBe(x.revisionId);
    const other = await formTemplateWith(A, ['a']);
    expectError(await A.get(`/formtemplates/${other.revisionId}/forms/${x.revisionId}`), 404, `Form instance '${x.revisionId}' was not found in form template '${other.revisionId}'.`);
    expectError(await A.post(`/formtemplates/${other.revisionId}/forms/${x.revisionId}`, {}), 404);
    expectError(await B.post(`/formtemplates/${draft}/forms`, {}), 404, `Form template '${draft}' was not found.`);
  });
});

describe('/forminstance/{id}', () => {
  test('DELETE by revision id or form id removes the form with every revision', async () => {
    const t = await formTemplateWith(A, ['a']);
    const x = await create(A, t.id, { a: '1' });
    const second = (await A.post(`/formtemplates/${t.id}/forms/${x.revisionId}`, { a: '2' })).body.data;
    const r = await A.del(`/forminstance/${x.revisionId}`);
    expectEnvelope(r, 'DELETE', A.url(`/forminstance/${x.revisionId}`));
    expectError(await A.get(`/formtemplates/${t.id}/forms/${second.revisionId}`), 404);
    expectError(await A.del(`/forminstance/${x.formId}`), 404);
    const y = await create(A, t.id, {});
    expect((await A.del(`/forminstance/${y.formId}`)).status).toBe(200);
    expect((await A.get(`/formtemplates/${t.id}/forms`)).body.data).toEqual([]);
  });

  test('a delete that waits for another delete of the form finds it gone: a 404, not a second 200', async () => {
    const t = await formTemplateWith(A, ['a']);
    const x = await create(A, t.id, { a: '1' });
    // The other delete, committed while this one waits for the form's row.
    const other = { text: 'delete from form_instance where tenant_id = $1 and id = $2', values: [A.t.tenantId, x.formId] };
    expectError(await whileHeld(h, other, () => A.del(`/forminstance/${x.revisionId}`)), 404, `Form instance '${x.revisionId}' was not found.`);
  });

  test.each([
    ['the form in the path', 'x'],
    ['the form relateToId names', 'y'],
  ])('relateForm racing a delete of %s committed meanwhile: the 404 of an unknown form, not the foreign key\'s', async (_, gone) => {
    const t = await formTemplateWith(A, ['a']);
    const [x, y] = [await create(A, t.id, {}), await create(A, t.id, {})];
    const deleted = gone === 'x' ? x : y;
    // The delete, committed while the relate waits for the form's row.
    const other = { text: 'delete from form_instance where tenant_id = $1 and id = $2', values: [A.t.tenantId, deleted.formId] };
    const r = await whileHeld(h, other, () => A.put(`/forminstance/${x.formId}/relateForm?relateToId=${y.formId}`));
    expectError(r, 404, `Form instance '${deleted.formId}' was not found.`);
  });

  test('relateForm / unrelateForm / forms: related either way round, idempotent, by form or revision id; unrelating forms not related is a 404', async () => {
    const t = await formTemplateWith(A, ['a']);
    const [x, y, z] = [await create(A, t.id, {}), await create(A, t.id, {}), await create(A, t.id, {})];
    const rel = await A.put(`/forminstance/${x.revisionId}/relateForm?relateToId=${y.formId}`);
    expectEnvelope(rel, 'PUT', A.url(`/forminstance/${x.revisionId}/relateForm?relateToId=${y.formId}`));
    expect((await A.put(`/forminstance/${x.formId}/relateForm?relateToId=${y.revisionId}`)).status).toBe(200);
    expect((await A.put(`/forminstance/${z.formId}/relateForm?relateToId=${x.formId}`)).status).toBe(200);
    const related = async (i: Instance) => (await A.get(`/forminstance/${i.revisionId}/forms`)).body.data.map((d: Instance) => d.instanceName);
    expect(await related(x)).toEqual([y.instanceName, z.instanceName]);
    expect(await related(y)).toEqual([x.instanceName]);
    // Paged like every list that grows without bound.
    expect((await A.get(`/forminstance/${x.formId}/forms?limit=1`)).body.pagination).toMatchObject({ limit: 1, totalRecords: 2 });
    expect((await A.put(`/forminstance/${y.formId}/unrelateForm?relateToId=${x.formId}`)).status).toBe(200);
    expect(await related(x)).toEqual([z.instanceName]);
    expect(await related(y)).toEqual([]);
    // Forms that are not related are a 404, as unrelateDocument's; nothing changes.
    expectError(await A.put(`/forminstance/${y.formId}/unrelateForm?relateToId=${x.revisionId}`), 404, `Form '${y.formId}' is not related to form '${x.revisionId}'.`);
    expect(await related(x)).toEqual([z.instanceName]);
    expectError(await A.put(`/forminstance/${x.formId}/relateForm?relateToId=${x.revisionId}`), 400, /itself/);
    expectError(await A.put(`/forminstance/${x.formId}/relateForm?relateToId=${UNKNOWN_ID}`), 404);
    expectError(await A.put(`/forminstance/${x.formId}/relateForm`), 400, "The mandatory query parameter 'relateToId' (or 'relateToDocId') is missing.");
    expectError(await A.put(`/forminstance/${x.formId}/unrelateForm?relateToDocId=`), 400, "The query parameter 'relateToDocId' was sent without a value");
  });

  test("q over a form's related forms reads each by its own template's fields, as that template's list does: a cell field as a number, a calendar field as a date", async () => {
    const typed = await formTemplateWith(A, ['amount', 'due'], [], { amount: 6, due: 5 });
    const plainText = await formTemplateWith(A, ['amount']);
    const parent = await create(A, plainText.id, {});
    const big = await create(A, typed.id, { amount: '10.5', due: '2026-12-01' });
    const small = await create(A, typed.id, { amount: '9', due: '2026-01-05' });
    const text = await create(A, plainText.id, { amount: '10.5' });
    for (const f of [big, small, text]) expect((await A.put(`/forminstance/${parent.formId}/relateForm?relateToId=${f.formId}`)).status).toBe(200);
    const names = async (path: string, query: string) => {
      const r = await A.get(`${path}?q=${encodeURIComponent(query)}`);
      expect(r.status).toBe(200);
      return r.body.data.map((d: Instance) => d.instanceName);
    };
    const related = (query: string) => names(`/forminstance/${parent.formId}/forms`, query);
    // 10.5 > 9.5 as numbers; as text ('10.5' > '9.5') it is not, which is how the other template's list reads its text field.
    expect(await related('amount gt 9.5')).toEqual([big.instanceName]);
    expect(await names(`/formtemplates/${plainText.id}/forms`, 'amount gt 9.5')).toEqual([]);
    expect(await related("due lt '2026-06-01'")).toEqual([small.instanceName]);
    expect(await related("amount eq '10.5' and instanceName ne 'x'")).toEqual([big.instanceName, text.instanceName]);
    const g = await A.gql('query ($id: UUID!, $q: String) { relatedForms(formId: $id, q: $q) { totalRecords items { instanceName } } }', { id: parent.formId, q: 'amount gt 9.5' });
    expect(g.body.data.relatedForms).toEqual({ totalRecords: 1, items: [{ instanceName: big.instanceName }] });
    // The nested relation reads them alike, for a batch of parents (the plain template's two forms) in one go.
    const nested = await A.gql(
      'query ($t: String!, $q: String) { formInstances(templateId: $t, limit: 10) { items { instanceName relatedForms(q: $q, limit: 10) { instanceName } relatedFormsPage(q: $q, limit: 10) { totalRecords } } } }',
      { t: plainText.id, q: 'amount gt 9.5' },
    );
    expect(nested.body.errors).toBeUndefined();
    expect(new Map(nested.body.data.formInstances.items.map((i: { instanceName: string; relatedForms: Instance[]; relatedFormsPage: { totalRecords: number } }) => [i.instanceName, [i.relatedForms.map((f) => f.instanceName), i.relatedFormsPage.totalRecords]]))).toEqual(
      new Map([[parent.instanceName, [[big.instanceName], 1]], [text.instanceName, [[], 0]]]),
    );
    // A value the cell field cannot compare is the 400 its template's list gives; a form with no related forms still checks q.
    expectError(await A.get(`/forminstance/${parent.formId}/forms?q=${encodeURIComponent("amount gt 'x'")}`), 400, /'x' is not a number/);
    expectError(await A.get(`/forminstance/${small.formId}/forms?q=${encodeURIComponent('amount gt')}`), 400, /Invalid q/);
    expect(await names(`/forminstance/${big.formId}/forms`, "amount eq ''")).toEqual([parent.instanceName]);
  });

  test('two forms related each way round at once, then unrelated each way round at once, 20 rounds: no deadlock; one relation, then none; one unrelate wins, the other a 404', async () => {
    const t = await formTemplateWith(A, ['a']);
    const related = async (i: Instance) => (await A.get(`/forminstance/${i.formId}/forms`)).body.data.map((d: Instance) => d.instanceName);
    for (let round = 0; round < 20; round++) {
      const [x, y] = [await create(A, t.id, {}), await create(A, t.id, {})];
      const rel = await Promise.all([A.put(`/forminstance/${x.formId}/relateForm?relateToId=${y.formId}`), A.put(`/forminstance/${y.formId}/relateForm?relateToId=${x.formId}`)]);
      expect(rel.map((r) => r.status)).toEqual([200, 200]);
      expect([await related(x), await related(y)]).toEqual([[y.instanceName], [x.instanceName]]);
      const un = await Promise.all([A.put(`/forminstance/${x.formId}/unrelateForm?relateToId=${y.formId}`), A.put(`/forminstance/${y.formId}/unrelateForm?relateToId=${x.formId}`)]);
      expect(un.map((r) => r.status).sort()).toEqual([200, 404]);
      expectError(un.find((r) => r.status === 404)!, 404, /^Form '.*' is not related to form '.*'\.$/);
      expect([await related(x), await related(y)]).toEqual([[], []]);
    }
  }, 60_000);

  test('relateForm / unrelateForm ?relateToDocId=: the other form by its instance name (any case), as the Node client sends it', async () => {
    const t = await formTemplateWith(A, ['a']);
    const [x, y] = [await create(A, t.id, {}), await create(A, t.id, {})];
    const related = async (i: Instance) => (await A.get(`/forminstance/${i.formId}/forms`)).body.data.map((d: Instance) => d.instanceName);
    const rel = await A.put(`/forminstance/${x.revisionId}/relateForm?relateToDocId=${encodeURIComponent(y.instanceName)}`);
    expectEnvelope(rel, 'PUT', A.url(`/forminstance/${x.revisionId}/relateForm?relateToDocId=${encodeURIComponent(y.instanceName)}`));
    expect(await related(y)).toEqual([x.instanceName]);
    expect((await A.put(`/forminstance/${y.formId}/unrelateForm?relateToDocId=${encodeURIComponent(x.instanceName.toLowerCase())}`)).status).toBe(200);
    expect(await related(x)).toEqual([]);
    expectError(await A.put(`/forminstance/${y.formId}/unrelateForm?relateToDocId=${encodeURIComponent(x.instanceName)}`), 404, `Form '${y.formId}' is not related to form '${x.instanceName}'.`);
    expectError(await A.put(`/forminstance/${x.formId}/relateForm?relateToDocId=${encodeURIComponent(x.instanceName)}`), 400, /itself/);
    expectError(await A.put(`/forminstance/${x.formId}/relateForm?relateToDocId=No-000001`), 404, /'No-000001'/);
    expectError(await A.put(`/forminstance/${x.formId}/unrelateForm?relateToDocId=No-000001`), 404, /'No-000001'/);
    // Another tenant's form is no form here.
    const bt = await formTemplateWith(B, ['a']);
    expectError(await B.put(`/forminstance/${(await create(B, bt.id, {})).formId}/relateForm?relateToDocId=${encodeURIComponent(y.instanceName)}`), 404);
    // Templates may share a prefix, so a name may name several forms.
    const prefix = `${uniq('same')}-`;
    for (let i = 0; i < 2; i++) {
      const made = await A.post('/formtemplates', { name: uniq('twin'), description: '', instanceNamePrefix: prefix });
      await create(A, made.body.data.id, {});
    }
    expectError(await A.put(`/forminstance/${x.formId}/relateForm?relateToDocId=${prefix}000001`), 409, /More than one form instance/);
  });
});

describe('GET /formtemplates/{t}/forms/{id}/pdf', () => {
  test('a real PDF: template and instance names, revision, dates, every label and value', async () => {
    const t = await formTemplateWith(A, ['Surname', 'Comment']);
    const x = await create(A, t.id, { surname: 'Müller', comment: 'first' });
    const second = (await A.post(`/formtemplates/${t.id}/forms/${x.revisionId}`, { comment: 'second and longer '.repeat(20) })).body.data;
    const r = await A.get(`/formtemplates/${t.name}/forms/${second.revisionId}/pdf`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/pdf');
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="${x.instanceName}.pdf"`);
    expect(new TextDecoder().decode(r.bytes.slice(0, 5))).toBe('%PDF-');
    const text = (await new PDFParse({ data: r.bytes }).getText()).text.replace(/\s+/g, ' ');
    const now = (await A.get(`/formtemplates/${t.id}/forms/${second.revisionId}`)).body.data[0];
    for (const part of [t.name, x.instanceName, `2 (${second.revisionId})`, now.createDate, now.modifyDate, A.t.adminUserId, 'Surname Müller', 'Comment second and longer']) {
      expect(text).toContain(part);
    }
    // An older revision prints as it was.
    const old = await A.get(`/formtemplates/${t.id}/forms/${x.revisionId}/pdf`);
    expect((await new PDFParse({ data: old.bytes }).getText()).text).toContain('first');
  });

  test('past Latin-1, each character prints as one ?: a decomposed letter Latin-1 has as its letter, an emoji or CJK character as one ?', async () => {
    const t = await formTemplateWith(A, ['Surname', 'Note']);
    const x = await create(A, t.id, { surname: 'Mu\u0308ller', note: 'a\u{1F600}b \u6F22\u5B57 e\u0301 \u05E9\u05DC\u05D5\u05DD' });
    const r = await A.get(`/formtemplates/${t.id}/forms/${x.revisionId}/pdf`);
    expect(r.status).toBe(200);
    const lines = (await new PDFParse({ data: r.bytes }).getText()).text.split('\n').map((l) => l.trim());
    // Before: 'Mu?ller' (the letter and its mark apart) and 'a??b' (an emoji's two UTF-16 halves).
    expect(lines).toEqual(expect.arrayContaining(['Surname M\u00fcller', 'Note a?b ?? \u00e9 ????']));
  });

  test('line breaks in a value start new lines; a long unbroken value is cut to the width', async () => {
    const t = await formTemplateWith(A, ['Reason', 'Blob']);
    const x = await create(A, t.id, { reason: 'line one\nline two\r\nline three', blob: 'x'.repeat(100_000) });
    const r = await A.get(`/formtemplates/${t.id}/forms/${x.revisionId}/pdf`);
    expect(r.status).toBe(200);
    const lines = (await new PDFParse({ data: r.bytes }).getText()).text.split('\n').map((l) => l.trim());
    expect(lines).toContain('Reason line one');
    expect(lines).toContain('line two');
    expect(lines).toContain('line three');
    // 100,000 characters of one word: every one printed, on lines of the value column's width.
    const cut = lines.filter((l) => /^(Blob )?x+$/.test(l)).map((l) => l.replace('Blob ', ''));
    expect(cut.join('').length).toBe(100_000);
    expect(Math.max(...cut.map((l) => l.length))).toBeLessThan(80);
  });

  test(`a form of megabytes prints at most ${MAX_PDF_PAGES} pages and says it stops`, async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `Long${i}`);
    const t = await formTemplateWith(A, keys);
    const x = await create(A, t.id, Object.fromEntries(keys.map((k) => [k.toLowerCase(), 'x'.repeat(100_000)])));
    const r = await A.get(`/formtemplates/${t.id}/forms/${x.revisionId}/pdf`);
    expect(r.status).toBe(200);
    expect((await PDFDocument.load(r.bytes)).getPageCount()).toBe(MAX_PDF_PAGES);
    expect((await new PDFParse({ data: r.bytes }).getText()).text).toContain(`a PDF shows at most ${MAX_PDF_PAGES} pages`);
  });

  test('the same form prints as the same bytes, under a strong ETag of them: 304 for If-None-Match, one Range as a 206, If-Match another tag a 412; a new revision is another tag', async () => {
    const t = await formTemplateWith(A, ['Surname']);
    const x = await create(A, t.id, { surname: 'Lovelace' });
    const path = `/formtemplates/${t.id}/forms/${x.revisionId}/pdf`;
    // Made an hour ago: the PDF is dated by the form, not by the moment it is printed (pdf-lib's own dates changed its bytes every second).
    await h.services.reads.query("update form_instance set created_at = created_at - interval '1 hour', modified_at = modified_at - interval '1 hour' where revision_id = $1", [x.revisionId]);
    const shown = (await A.get(`/formtemplates/${t.id}/forms/${x.revisionId}`)).body.data[0];
    const r = await A.get(path);
    const etag = r.headers.get('etag')!;
    expect([r.status, etag, r.headers.get('accept-ranges'), r.headers.get('last-modified')]).toEqual([200, `"${createHash('sha256').update(r.bytes).digest('base64url')}"`, 'bytes', null]);
    const pdf = await PDFDocument.load(r.bytes, { updateMetadata: false });
    const seconds = (d: Date | string | undefined) => Math.floor(new Date(typeof d === 'string' ? `${d}Z` : d!).getTime() / 1000);
    expect([seconds(pdf.getCreationDate()), seconds(pdf.getModificationDate())]).toEqual([seconds(shown.createDate), seconds(shown.modifyDate)]);
    const again = await A.get(path, { headers: { 'if-none-match': etag } });
    expect([again.status, again.text, again.headers.get('etag')]).toEqual([304, '', etag]);
    const ranged = await A.get(path, { headers: { range: 'bytes=0-4', 'if-range': etag } });
    expect([ranged.status, ranged.text, ranged.headers.get('content-range')]).toEqual([206, '%PDF-', `bytes 0-4/${r.bytes.length}`]);
    expectError(await A.get(path, { headers: { 'if-match': '"other"' } }), 412, `The file is not the one the request's If-Match names: its ETag is ${etag}.`);
    expectError(await A.get(path, { headers: { range: `bytes=${r.bytes.length}-` } }), 416);
    // No date to compare: If-Modified-Since is ignored.
    expect((await A.get(path, { headers: { 'if-modified-since': new Date(Date.now() + 3600_000).toUTCString() } })).status).toBe(200);
    const second = (await A.post(`/formtemplates/${t.id}/forms/${x.revisionId}`, { surname: 'Byron' })).body.data;
    const next = await A.get(`/formtemplates/${t.id}/forms/${second.revisionId}/pdf`, { headers: { 'if-none-match': etag } });
    expect([next.status, next.headers.get('etag') === etag]).toEqual([200, false]);
  });

  test('the OpenAPI document describes the answer as a file', async () => {
    const doc = (await h.request('GET', '/api/openapi.json')).body;
    const op = doc.paths['/formtemplates/{templateId}/forms/{revisionId}/pdf'].get;
    expect(op.responses['200'].content).toEqual({ 'application/pdf': { schema: { type: 'string', format: 'binary' } } });
  });

  test('an unknown instance is an enveloped 404', async () => {
    const t = await formTemplateWith(A, ['a']);
    expectError(await A.get(`/formtemplates/${t.id}/forms/${UNKNOWN_ID}/pdf`), 404);
  });

  test('fields named as Object.prototype\'s keys (constructor, toString, a deleted proto__ read as __proto__) print, with and without values (REST and GraphQL)', async () => {
    const names = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'proto__'];
    const t = await formTemplateWith(A, names);
    const filled = await create(A, t.id, { constructor: 'c1', tostring: 't1', valueof: 'v1', hasownproperty: 'h1', proto__: 'p1' });
    const empty = await create(A, t.id, {});
    // proto__ deleted: it prints while it holds a value, under its label.
    expect((await A.gql('mutation ($id: String!) { deleteFormTemplateField(id: $id, key: "proto__") { id } }', { id: t.id })).body.errors).toBeUndefined();
    expect((await A.put(`/formtemplates/${t.id}/release`)).status).toBe(200);
    const textOf = async (bytes: Uint8Array) => (await new PDFParse({ data: bytes }).getText()).text.split('\n').map((l) => l.trim());
    const rest = async (x: Instance) => {
      const r = await A.get(`/formtemplates/${t.id}/forms/${x.revisionId}/pdf`);
      expect(r.status).toBe(200);
      return textOf(r.bytes);
    };
    const gql = async (x: Instance) => {
      const r = await A.gql('query ($t: String!, $r: UUID!) { formInstancePdf(templateId: $t, revisionId: $r) { content } }', { t: t.id, r: x.revisionId });
      expect(r.body.errors).toBeUndefined();
      return textOf(Buffer.from(r.body.data.formInstancePdf.content, 'base64'));
    };
    for (const read of [rest, gql]) {
      expect(await read(filled)).toEqual(expect.arrayContaining(['constructor c1', 'toString t1', 'valueOf v1', 'hasOwnProperty h1', 'proto__ p1']));
      const lines = await read(empty);
      expect(lines).toEqual(expect.arrayContaining(['constructor', 'toString', 'valueOf', 'hasOwnProperty']));
      expect(lines.some((l) => l.startsWith('proto__'))).toBe(false);
    }
  });
});

describe('/graphql', () => {
  test('instances with template, values, revisions and related forms at a constant number of statements per page', async () => {
    const T = A.on(await h.tenant());
    const api = T.as(await h.login(T.t));
    const t = await formTemplateWith(api, ['a']);
    const made: Instance[] = [];
    for (let i = 0; i < 3; i++) {
      const x = await create(api, t.id, { a: `v${i}` });
      await api.post(`/forms/${x.formId}`, { a: `w${i}` });
      made.push(x);
    }
    await api.put(`/forminstance/${made[0].formId}/relateForm?relateToId=${made[1].formId}`);
    const query = `query ($t: String!, $limit: Int) { formInstances(templateId: $t, limit: $limit) { items {
      instanceName values template { name } revisions { revision values } relatedForms { instanceName } } } }`;
    const small = await h.countQueries(() => api.gql(query, { t: t.id, limit: 1 }));
    const large = await h.countQueries(() => api.gql(query, { t: t.id, limit: 3 }));
    expect(large.result.body.errors).toBeUndefined();
    const items = large.result.body.data.formInstances.items;
    expect(items[0]).toEqual({
      instanceName: made[0].instanceName, values: { a: 'w0' }, template: { name: t.name },
      revisions: [{ revision: 1, values: { a: 'v0' } }, { revision: 2, values: { a: 'w0' } }],
      relatedForms: [{ instanceName: made[1].instanceName }],
    });
    expect(large.statements).toHaveLength(small.statements.length);
  });

  test('a kept revision\'s href is the REST address that answers that revision', async () => {
    const t = await formTemplateWith(A, ['a']);
    const x = await create(A, t.id, { a: 'first' });
    await A.post(`/forms/${x.formId}`, { a: 'second' });
    const g = await A.gql(`query ($t: String!, $r: UUID!) { formInstance(templateId: $t, revisionId: $r) { revisions { id href templateId revision } } }`, { t: t.id, r: x.revisionId });
    expect(g.body.errors).toBeUndefined();
    const revisions = g.body.data.formInstance.revisions;
    expect(revisions.map((r: { revision: number }) => r.revision)).toEqual([1, 2]);
    for (const [i, r] of revisions.entries()) {
      expect(r).toMatchObject({ templateId: t.id, href: `~/formtemplates/${t.id}/forms/${r.id}` });
      const read = await A.get(r.href.slice(1));
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual([expect.objectContaining({ revisionId: r.id, revision: i + 1, a: ['first', 'second'][i] })]);
    }
  });

  test('FormTemplate.forms: each template\'s instances, paged, at a constant number of statements', async () => {
    const T = A.on(await h.tenant());
    const api = T.as(await h.login(T.t));
    const templates = [];
    for (let i = 0; i < 3; i++) {
      const t = await formTemplateWith(api, ['a']);
      for (let j = 0; j < 3; j++) await create(api, t.id, { a: `${i}.${j}` });
      templates.push(t);
    }
    const query = `query ($limit: Int) { formTemplates(limit: $limit) { items { name forms(limit: 2, offset: 1) { values } } } }`;
    const small = await h.countQueries(() => api.gql(query, { limit: 1 }));
    const large = await h.countQueries(() => api.gql(query, { limit: 3 }));
    expect(large.result.body.errors).toBeUndefined();
    const byName = new Map(large.result.body.data.formTemplates.items.map((x: { name: string; forms: unknown }) => [x.name, x.forms]));
    expect(byName.get(templates[1].name)).toEqual([{ values: { a: '1.1' } }, { values: { a: '1.2' } }]);
    expect(large.statements).toHaveLength(small.statements.length);
  });

  test('FormTemplate.forms and formsPage take q as formInstances does for each template: its field types and deleted keys, at a constant number of statements', async () => {
    const T = A.on(await h.tenant());
    const api = T.as(await h.login(T.t));
    // `amount` is a cell (a number) in the first template and text in the second; the first deletes `note`.
    const cells = await formTemplateWith(api, ['amount', 'note'], [], { amount: 6 });
    const texts = await formTemplateWith(api, ['amount', 'note']);
    for (const [amount, note] of [['9', 'hello'], ['10.5', 'other']]) {
      await create(api, cells.id, { amount, note });
      await create(api, texts.id, { amount, note });
    }
    expect((await api.gql('mutation ($id: String!) { deleteFormTemplateField(id: $id, key: "note") { id } }', { id: cells.id })).body.errors).toBeUndefined();
    expect((await api.put(`/formtemplates/${cells.id}/release`)).status).toBe(200);
    const query = `query ($q: String, $limit: Int = 10) { formTemplates(limit: $limit) { items { name
      forms(q: $q, limit: 10) { values } formsPage(q: $q, limit: 10) { totalRecords items { instanceName } } } } }`;
    const amounts = async (expr: string) => {
      const r = await api.gql(query, { q: expr });
      expect([expr, r.body.errors]).toEqual([expr, undefined]);
      const byName = new Map(r.body.data.formTemplates.items.map((x: { name: string; forms: { values: { amount: string } }[]; formsPage: { totalRecords: number } }) => {
        expect(x.formsPage.totalRecords).toBe(x.forms.length);
        return [x.name, x.forms.map((f) => f.values.amount)];
      }));
      return [byName.get(cells.name), byName.get(texts.name)];
    };
    // A number in the first ('10.5' > 9), text in the second ('10.5' < '9'), as formInstances compares them.
    expect(await amounts("amount gt '9'")).toEqual([['10.5'], []]);
    const root = await api.gql('query ($t: String!) { formInstances(templateId: $t, q: "amount gt \'9\'") { items { values } } }', { t: cells.id });
    expect(root.body.data.formInstances.items).toEqual([{ values: { amount: '10.5', __note: 'other' } }]);
    // The deleted field is read and filtered as `__note`; the second template has no such key.
    expect(await amounts("[__note] eq 'hello'")).toEqual([['9'], []]);
    // In the first, `note` names no field shown, as in formInstances (a 400 naming q); the second answers.
    const refused = await api.gql(`{ formTemplate(id: "${cells.id}") { forms(q: "note eq 'hello'") { values } } }`);
    expect(refused.body.errors).toEqual([expect.objectContaining({ message: "Invalid q: unknown field 'note' at position 1", extensions: expect.objectContaining({ code: 'BAD_REQUEST', field: 'q' }) })]);
    const other = await api.gql(`{ formTemplate(id: "${texts.id}") { forms(q: "note eq 'hello'") { values } } }`);
    expect(other.body.data.formTemplate.forms).toEqual([{ values: { amount: '9', note: 'hello' } }]);
    const small = await h.countQueries(() => api.gql(query, { q: "amount gt '1'", limit: 1 }));
    const large = await h.countQueries(() => api.gql(query, { q: "amount gt '1'", limit: 2 }));
    expect(large.result.body.errors).toBeUndefined();
    expect(large.statements).toHaveLength(small.statements.length);
  });

  test("q: eq '' and ne '' on a calendar or cell field, in formInstances and FormTemplate.forms: the forms without and with a value; gt '' a 400 naming q", async () => {
    const typed = await formTemplateWith(A, ['due', 'amount', 'label'], [], { due: 5, amount: 6 });
    for (const [due, amount, label] of [['2026-01-15', '9', 'a'], ['', undefined, 'b']]) await create(A, typed.id, { due, amount, label });
    const query = `query ($t: String!, $q: String) { formInstances(templateId: $t, q: $q) { items { ... on FormInstance { values } } }
      formTemplate(id: $t) { forms(q: $q) { values } } }`;
    const labels = async (expr: string) => {
      const r = await A.gql(query, { t: typed.id, q: expr });
      expect([expr, r.body.errors]).toEqual([expr, undefined]);
      const [root, nested] = [r.body.data.formInstances.items, r.body.data.formTemplate.forms].map((l: { values: { label: string } }[]) => l.map((f) => f.values.label));
      expect(nested).toEqual(root);
      return root;
    };
    expect(await labels("due eq ''")).toEqual(['b']);
    expect(await labels("amount eq ''")).toEqual(['b']);
    expect(await labels("due ne '' and amount ne ''")).toEqual(['a']);
    // One field per query: with both, whether the second field's error is collected before the
    // first one nulls the data depends on timing.
    for (const one of ['formInstances(templateId: $t, q: $q) { items { ... on FormInstance { values } } }', 'formTemplate(id: $t) { forms(q: $q) { values } }']) {
      const refused = await A.gql(`query ($t: String!, $q: String) { ${one} }`, { t: typed.id, q: "due gt ''" });
      expect([one, refused.body.errors]).toEqual([one, [expect.objectContaining({ message: expect.stringContaining("'' is not a valid date-time"), extensions: expect.objectContaining({ code: 'BAD_REQUEST', field: 'q' }) })]]);
    }
  });

  test('mutations answer the instance; an ordinary user may fill in forms', async () => {
    const t = await formTemplateWith(A, ['a']);
    const r = await A.as(plain.token).gql('mutation ($t: String!, $v: JSON) { createFormInstance(templateId: $t, input: $v) { instanceName values createBy } }', { t: t.id, v: { A: 'x' } });
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.createFormInstance).toEqual({ instanceName: `${t.name}-000001`, values: { a: 'x' }, createBy: plain.userid });
  });
});

describe('across tenants', () => {
  test("another tenant's instances are 404s on its own paths", async () => {
    const t = await formTemplateWith(A, ['a']);
    const x = await create(A, t.id, { a: '1' });
    const bt = await formTemplateWith(B, ['a']);
    const y = await create(B, bt.id, {});
    expectError(await B.get(`/formtemplates/${t.id}/forms`), 404);
    expectError(await B.get(`/formtemplates/${bt.id}/forms/${x.revisionId}`), 404);
    expectError(await B.post(`/forms/${x.formId}`, { a: '2' }), 404);
    expectError(await B.del(`/forminstance/${x.revisionId}`), 404);
    expectError(await B.put(`/forminstance/${y.formId}/relateForm?relateToId=${x.formId}`), 404);
    expectError(await B.get(`/forminstance/${x.formId}/forms`), 404);
    expect((await A.get(`/formtemplates/${t.id}/forms/${x.revisionId}`)).body.data[0]).toEqual(x);
  });
});
