/**
 * HTTP-level tests of the form template routes (rest-api-v1.md "Form templates and forms",
 * client-compatibility.md: names as ids, the lookup by name, import, release, the designer's
 * field list) and the template mutations of /graphql.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reply } from '../harness.js';
import { type Api, expectEnvelope, expectError, formTemplateWith, GUID, keysOf, multipart, q, sorted, uniq, UNKNOWN_ID } from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

const fixture = (name: string) => fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', name), 'utf8');
const XML = fixture('form-template.xml');
/** Every kind of field the designer's real exports hold (test/rest/fixtures/designer-export.xml). */
const EXPORT_XML = fixture('designer-export.xml');
const TEXT_FIELD_ID = '5a912775-d035-15c0-6242-a2a1860fa031';

const REDUCED = ['href', 'dataType', 'id', 'name', 'revisionId', 'status'];
const FULL = [
  ...REDUCED, 'description', 'revision', 'templateRevision', 'latestRevisionId', 'instanceNamePrefix',
  'createDate', 'modifyDate', 'createById', 'modifyById', 'createBy', 'modifyBy',
];
const BASE_LABELS = {
  revisionid: 'DhID',
  instancename: 'DhDocID',
  modifydate: 'VVModifyDate',
  modifyby: 'VVModifyBy',
  modifybyid: 'VVModifyByUsID',
  createdate: 'VVCreateDate',
  createby: 'VVCreateBy',
  createbyid: 'VVCreateByUsID',
};
const BASE_FIELDS = ['RevisionId', 'InstanceName', 'ModifyDate', 'ModifyById', 'ModifyBy', 'CreateDate', 'CreateById', 'CreateBy'];

setUpTwoTenants();

async function importXml(api: Api, idOrName: string, xml: string | Uint8Array | null = XML, parts: Record<string, string> = {}): Promise<Reply> {
  return api.put(`/formtemplates/${encodeURIComponent(idOrName)}/import`, undefined, await multipart(parts, xml, 'template.xml'));
}

async function createTemplate(api: Api, name = uniq('template'), description = `about ${name}`) {
  const r = await api.post('/formtemplates', { name, description });
  expectEnvelope(r, 'POST', api.url('/formtemplates'));
  return r.body.data as { id: string; name: string; revisionId: string; latestRevisionId: string };
}

/** A template made, imported from the fixture and released, as the client test expects one. */
async function releasedTemplate(api: Api, name = uniq('template')) {
  const t = await createTemplate(api, name);
  expect((await importXml(api, t.id)).status).toBe(200);
  expect((await api.put(`/formtemplates/${t.id}/release`)).status).toBe(200);
  return (await api.get(`/formtemplates/${t.id}`)).body.data[0] as Record<string, unknown> & { id: string; revisionId: string };
}


describe('POST /formtemplates', () => {
  test('makes a draft template: 200 and the whole record, revision 1 with status 0', async () => {
    const name = uniq('Intake');
    const r = await A.post('/formtemplates', { name, description: 'new hires' });
    expectEnvelope(r, 'POST', A.url('/formtemplates'));
    const d = r.body.data;
    expect(keysOf(d)).toEqual(sorted(FULL));
    expect(d).toMatchObject({
      dataType: 'FormTemplate', name, description: 'new hires', revision: 1, templateRevision: '1', status: 0,
      instanceNamePrefix: `${name}-`, createBy: A.t.adminUserId, modifyBy: A.t.adminUserId,
    });
    const me = (await A.get('/users/me')).body.data.id;
    expect([d.createById, d.modifyById]).toEqual([me, me]);
    expect(d.href).toBe(`~/formtemplates/${d.id}`);
    expect(d.revisionId).toMatch(GUID);
    expect(d.latestRevisionId).toBe(d.revisionId);
    expect(d.createDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
  });

  test('an instance name prefix may be given', async () => {
    const r = await A.post('/formtemplates', { name: uniq('Prefixed'), description: '', instanceNamePrefix: 'INT-' });
    expect(r.body.data.instanceNamePrefix).toBe('INT-');
  });

  test('an instance name prefix with a control character is a 400, and no template is made', async () => {
    for (const prefix of ['A\u001b[31m-', 'A\nB-', 'A\tB-', 'A\u007f-', 'A\u0085-']) {
      const name = uniq('CtlPrefix');
      expectError(await A.post('/formtemplates', { name, description: '', instanceNamePrefix: prefix }), 400, "The field 'instanceNamePrefix' may not contain control characters.");
      expect((await A.get(`/formtemplates?${new URLSearchParams({ q: `name eq '${name}'` })}`)).body.data).toEqual([]);
    }
  });

  test('a name taken in any case is a 409; a missing name a 400; an ordinary user a 403', async () => {
    const name = uniq('Dup');
    await createTemplate(A, name);
    expectError(await A.post('/formtemplates', { name: name.toUpperCase(), description: '' }), 409, 'already exists');
    expectError(await A.post('/formtemplates', { description: 'x' }), 400, "'name'");
    expectError(await A.as(plain.token).post('/formtemplates', { name: uniq('t'), description: '' }), 403);
  });

  test('two creates of one name at once: exactly one wins, the other is a 409', async () => {
    const name = uniq('Race');
    const rs = await Promise.all([1, 2, 3].map(() => A.post('/formtemplates', { name, description: '' })));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409, 409]);
  });
});

describe('GET /formtemplates', () => {
  let T: Api;
  let alpha: Record<string, unknown> & { id: string; revisionId: string };
  beforeAll(async () => {
    const t = await h.tenant();
    T = A.on(t).as(await h.login(t));
    alpha = await releasedTemplate(T, 'Alpha');
    await createTemplate(T, 'bravo');
  });

  test('lists the tenant\'s templates by name as the reduced element', async () => {
    const r = await T.get('/formtemplates');
    expectEnvelope(r, 'GET', T.url('/formtemplates'));
    expect(keysOf(r.body)).toEqual(['data', 'meta']);
    expect(r.body.data.map((d: { name: string }) => d.name)).toEqual(['Alpha', 'bravo']);
    for (const d of r.body.data) expect(Object.keys(d)).toEqual(REDUCED);
    expect(r.body.data[0]).toEqual({ href: `~/formtemplates/${alpha.id}`, dataType: 'FormTemplate', id: alpha.id, name: 'Alpha', revisionId: alpha.revisionId, status: 1 });
    expect(r.body.data[1].status).toBe(0);
  });

  test('the clients\' lookup by name: fields with spaces after the commas, q name eq', async () => {
    const r = await T.get(`/formtemplates?fields=id, name, description, revision, revisionId&${q("name eq 'alpha'")}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      { href: `~/formtemplates/${alpha.id}`, dataType: 'FormTemplate', id: alpha.id, name: 'Alpha', description: 'about Alpha', revision: 2, revisionId: alpha.revisionId },
    ]);
    expect((await T.get(`/formtemplates?${q("name eq 'NonExistentTemplate_12345'")}`)).body.data).toEqual([]);
  });

  test('q over the revision fields, expand=data, paging, and a bad q is a 400', async () => {
    expect((await T.get(`/formtemplates?${q(`revisionId eq '${alpha.revisionId}'`)}`)).body.data.map((d: { id: string }) => d.id)).toEqual([alpha.id]);
    expect((await T.get(`/formtemplates?${q('status eq 0')}`)).body.data.map((d: { name: string }) => d.name)).toEqual(['bravo']);
    const all = await T.get('/formtemplates?expand=data&limit=1&offset=1');
    expect(all.body.data).toHaveLength(1);
    expect(keysOf(all.body.data[0])).toEqual(sorted(FULL));
    expectError(await T.get(`/formtemplates?${q("nosuch eq 'x'")}`), 400);
  });

  test('an ordinary user of the tenant reads templates too', async () => {
    expect((await A.as(plain.token).get('/formtemplates')).status).toBe(200);
  });
});

describe('GET /formtemplates/{id}', () => {
  test('by id or by name (any case): a one-element array of the latest released revision, every field', async () => {
    const t = await releasedTemplate(A, uniq('Get Me'));
    for (const idOrName of [t.id, t.name as string, (t.name as string).toLowerCase()]) {
      const path = `/formtemplates/${encodeURIComponent(idOrName)}`;
      const r = await A.get(path);
      expectEnvelope(r, 'GET', A.url(path));
      expect(r.body.data).toHaveLength(1);
      expect(keysOf(r.body.data[0])).toEqual(sorted(FULL));
      expect(r.body.data[0]).toMatchObject({ id: t.id, revision: 2, status: 1, revisionId: t.revisionId });
    }
    expect(keysOf((await A.get(`/formtemplates/${t.id}?fields=name`)).body.data[0])).toEqual(['dataType', 'href', 'name']);
  });

  test('a later draft does not change what a get answers until it is released', async () => {
    const t = await releasedTemplate(A);
    const imported = await importXml(A, t.id);
    expect(imported.body.data).toMatchObject({ revisionId: t.revisionId, status: 1, revision: 2 });
    expect(imported.body.data.latestRevisionId).not.toBe(t.revisionId);
    expect((await A.get(`/formtemplates/${t.id}`)).body.data[0]).toMatchObject({ revisionId: t.revisionId, revision: 2, status: 1 });
    const released = await A.put(`/formtemplates/${t.id}/release`);
    expect(released.body.data).toMatchObject({ revisionId: imported.body.data.latestRevisionId, revision: 3, status: 1 });
  });

  test('an unknown id or name is a 404 naming it', async () => {
    expectError(await A.get(`/formtemplates/${UNKNOWN_ID}`), 404, `Form template '${UNKNOWN_ID}' was not found.`);
    expectError(await A.get('/formtemplates/No%20Such%20Template'), 404, "Form template 'No Such Template' was not found.");
    expectError(await A.get(`/formtemplates/${UNKNOWN_ID}/fields`), 404);
    expectError(await A.get('/formdesigner/forms/formtemplates/nosuch/fields'), 404);
    expectError(await A.put('/formtemplates/nosuch/release'), 404);
    expectError(await importXml(A, 'nosuch'), 404);
  });

  test('a revision id names its template, as the .NET client sends the template\'s revisionId: released, draft and superseded revisions alike, on every template route', async () => {
    const t = await releasedTemplate(A);
    expect((await importXml(A, t.id)).status).toBe(200);
    expect((await A.put(`/formtemplates/${t.id}/release`)).status).toBe(200);
    const draft = (await importXml(A, t.id)).body.data.latestRevisionId as string;
    const revisions = (await A.gql('query ($id: String!) { formTemplate(id: $id) { revisions { id status } } }', { id: t.id })).body.data.formTemplate.revisions;
    const released = revisions.find((r: { status: number }) => r.status === 1).id as string;
    const superseded = revisions.find((r: { status: number }) => r.status === 2).id as string;
    expect(new Set([released, draft, superseded]).size).toBe(3);
    const template = (await A.get(`/formtemplates/${t.id}`)).body.data;
    const fields = (await A.get(`/formtemplates/${t.id}/fields`)).body.data;
    const designer = (await A.get(`/formdesigner/forms/formtemplates/${t.id}/fields`)).body.data;
    for (const revisionId of [released, draft, superseded]) {
      const r = await A.get(`/formtemplates/${revisionId}`);
      expectEnvelope(r, 'GET', A.url(`/formtemplates/${revisionId}`));
      // The template as a get by its id answers it: its released revision, whichever revision named it.
      expect(r.body.data).toEqual(template);
      expect((await A.get(`/formtemplates/${revisionId.toUpperCase()}/fields`)).body.data).toEqual(fields);
      expect((await A.get(`/formdesigner/forms/formtemplates/${revisionId}/fields`)).body.data).toEqual(designer);
      expect((await A.get(`/formtemplates/${revisionId}/revisions/${superseded}`)).body.data).toMatchObject({ id: superseded, templateId: t.id });
      expect((await A.gql('query ($id: String!) { formTemplate(id: $id) { id } }', { id: revisionId })).body.data.formTemplate.id).toBe(t.id);
    }
    const release = await A.put(`/formtemplates/${draft}/release`);
    expect(release.body.data).toMatchObject({ id: t.id, revisionId: draft, status: 1 });
    const imported = await importXml(A, superseded);
    expect(imported.status).toBe(200);
    expect(imported.body.data).toMatchObject({ id: t.id, revisionId: draft });
    expect(imported.body.data.latestRevisionId).not.toBe(draft);
    // Another tenant's revision id names nothing there; an unknown GUID is still a 404 naming it.
    expectError(await B.get(`/formtemplates/${draft}`), 404, `Form template '${draft}' was not found.`);
    expectError(await importXml(B, draft), 404);
  });

  test('a GUID that is one template\'s revision id and another\'s name names the first: an id is tried first', async () => {
    const t = await releasedTemplate(A);
    const named = await createTemplate(A, t.revisionId.toUpperCase());
    expect((await A.get(`/formtemplates/${t.revisionId}`)).body.data[0].id).toBe(t.id);
    expect((await A.get(`/formtemplates/${named.id}`)).body.data[0].id).toBe(named.id);
  });

  test('naming a template by id, revision id or name costs the same statements', async () => {
    const t = await releasedTemplate(A);
    const counts = [];
    for (const idOrName of [t.id, t.revisionId, encodeURIComponent(t.name as string)]) {
      const { result, statements } = await h.countQueries(() => A.get(`/formtemplates/${idOrName}/forms`));
      expect(result.status).toBe(200);
      counts.push(statements.length);
    }
    expect(new Set(counts).size).toBe(1);
  });
});

describe('PUT /formtemplates/{id}/import', () => {
  test('the designer XML with the Node client\'s form parts makes a new draft revision', async () => {
    const t = await createTemplate(A);
    const r = await importXml(A, t.name, XML, { name: 'Imported Template', description: 'Updated via integration test', revision: '1700000000000' });
    expectEnvelope(r, 'PUT', A.url(`/formtemplates/${t.name}/import`));
    expect(r.body.data).toMatchObject({ id: t.id, name: t.name, description: 'Updated via integration test', revision: 2, templateRevision: '1700000000000', status: 0 });
    const designer = await A.get(`/formdesigner/forms/formtemplates/${t.id}/fields`);
    expectEnvelope(designer, 'GET', A.url(`/formdesigner/forms/formtemplates/${t.id}/fields`));
    expect(designer.body.data).toEqual({ formFieldList: [{ id: TEXT_FIELD_ID, name: 'textField', formFieldType: 1 }] });
  });

  test('a byte order mark, Required, IsRetired and a missing ID are read; layout elements are skipped', async () => {
    const t = await createTemplate(A);
    const xml = `\uFEFF<?xml version="1.0"?><FormEntity><FormPages><FormPage><FieldList>
      <BaseField><FieldType>Label</FieldType><Name>caption</Name></BaseField>
      <BaseField><FieldType>TextArea</FieldType><Name>Notes &amp; more</Name><Required>true</Required></BaseField>
      <BaseField><FieldType>CheckBox</FieldType><ID>0A0A0A0A-0A0A-0A0A-0A0A-0A0A0A0A0A0A</ID><Name>old</Name><IsRetired>true</IsRetired></BaseField>
    </FieldList></FormPage></FormPages></FormEntity>`;
    expect((await importXml(A, t.id, xml)).status).toBe(200);
    const g = await A.gql(`query ($id: String!) { formTemplate(id: $id) { revisions { fields { id key fieldType required deleted } } } }`, { id: t.id });
    const [notes, old] = g.body.data.formTemplate.revisions[1].fields;
    expect(notes).toMatchObject({ key: 'Notes & more', fieldType: 2, required: true, deleted: false });
    expect(notes.id).toMatch(GUID);
    expect(old).toEqual({ id: '0a0a0a0a-0a0a-0a0a-0a0a-0a0a0a0a0a0a', key: 'old', fieldType: 4, required: false, deleted: true });
  });

  test('a deleted field\'s data stays readable under its __ key: the fields map, records, fields= and q all name it so', async () => {
    const t = await createTemplate(A);
    const field = (name: string, id: string, retired = false) =>
      `<BaseField><FieldType>TextBox</FieldType><ID>${id}</ID><Name>${name}</Name>${retired ? '<IsRetired>true</IsRetired>' : ''}</BaseField>`;
    const xml = (retired: boolean) => `<FormEntity><FormPages><FormPage><FieldList>${field('Alpha', '1A1A1A1A-1A1A-1A1A-1A1A-1A1A1A1A1A1A')}${field('Beta', '2B2B2B2B-2B2B-2B2B-2B2B-2B2B2B2B2B2B', retired)}</FieldList></FormPage></FormPages></FormEntity>`;
    expect((await importXml(A, t.id, xml(false))).status).toBe(200);
    expect((await A.put(`/formtemplates/${t.id}/release`)).status).toBe(200);
    const made = (await A.post(`/formtemplates/${t.id}/forms`, { alpha: 'a1', beta: 'b1' })).body.data;
    expect((await importXml(A, t.id, xml(true))).status).toBe(200);
    expect((await A.put(`/formtemplates/${t.id}/release`)).status).toBe(200);

    expect((await A.get(`/formtemplates/${t.id}/fields`)).body.data.fields).toMatchObject({ alpha: 'Alpha', __beta: 'Beta' });
    const one = (await A.get(`/formtemplates/${t.id}/forms/${made.revisionId}`)).body.data[0];
    expect(one).toMatchObject({ alpha: 'a1', __beta: 'b1' });
    expect(one).not.toHaveProperty('beta');
    expect((await A.get(`/formtemplates/${t.id}/forms?fields=__beta`)).body.data).toEqual([expect.objectContaining({ revisionId: made.revisionId, __beta: 'b1' })]);
    expect((await A.get(`/formtemplates/${t.id}/forms?${q("__beta eq 'B1'")}`)).body.data.map((f: { revisionId: string }) => f.revisionId)).toEqual([made.revisionId]);
    // q names what the display names: the plain key of a deleted field is no field.
    expectError(await A.get(`/formtemplates/${t.id}/forms?${q("beta like 'b%'")}`), 400, /unknown field 'beta'/);
    expectError(await A.get(`/formtemplates/${t.id}/forms?${q("[BETA] eq 'b1'")}`), 400, /unknown field/);
    // Hidden from the form: a value for it, by its key, its __ key or its id, is a 400 saying it was deleted.
    for (const key of ['Beta', '__beta', '2b2b2b2b-2b2b-2b2b-2b2b-2b2b2b2b2b2b']) {
      const r = await A.post(`/formtemplates/${t.id}/forms`, { alpha: 'a2', [key]: 'b2' });
      expectError(r, 400, `The form field '${key}' (read as '__beta') was deleted from the template: no value can be posted for it.`);
    }
    expectError(await A.post(`/forms/${made.formId}`, { Beta: 'b2', nosuch: 'x' }), 400,
      "The form field 'Beta' (read as '__beta') was deleted from the template: no value can be posted for it. The template has no form field named 'nosuch'.");
    expect((await A.get(`/formtemplates/${t.id}/forms`)).body.data).toHaveLength(1);
  });

  test('form keys that Object.prototype also has (constructor, toString), and a deleted proto__ read as __proto__, show in every REST read', async () => {
    const field = (name: string, retired = false) => `<BaseField><FieldType>TextBox</FieldType><Name>${name}</Name>${retired ? '<IsRetired>true</IsRetired>' : ''}</BaseField>`;
    const xml = (retired: boolean) => `<FormEntity><FormPages><FormPage><FieldList>${['constructor', 'toString', 'hasOwnProperty'].map((n) => field(n)).join('')}${field('proto__', retired)}</FieldList></FormPage></FormPages></FormEntity>`;
    const t = await createTemplate(A);
    expect((await importXml(A, t.id, xml(false))).status).toBe(200);
    expect((await A.put(`/formtemplates/${t.id}/release`)).status).toBe(200);
    const values = { constructor: 'c', tostring: 't', hasownproperty: 'h', proto__: 'p' };
    const made = (await A.post(`/formtemplates/${t.id}/forms`, values)).body.data;
    expect(made).toMatchObject(values);
    expect((await A.get(`/formtemplates/${t.id}/forms/${made.revisionId}`)).body.data[0]).toMatchObject(values);
    expect((await A.get(`/formtemplates/${t.id}/forms?fields=constructor,toString,proto__`)).body.data[0]).toMatchObject({ constructor: 'c', tostring: 't', proto__: 'p' });
    expect((await A.get(`/formtemplates/${t.id}/forms?expand=data`)).body.data[0]).toMatchObject(values);
    expect((await importXml(A, t.id, xml(true))).status).toBe(200);
    expect((await A.put(`/formtemplates/${t.id}/release`)).status).toBe(200);
    const r = await A.get(`/formtemplates/${t.id}/forms/${made.revisionId}`);
    expect(r.text).toContain('"__proto__":"p"');
    expect(Object.getOwnPropertyDescriptor(r.body.data[0], '__proto__')?.value).toBe('p');
  });

  test('every read that shows a form, whatever its template, names a deleted field __<key>: related forms, relations, revisions and a revision\'s answer', async () => {
    const field = (name: string, retired = false) => `<BaseField><FieldType>TextBox</FieldType><Name>${name}</Name>${retired ? '<IsRetired>true</IsRetired>' : ''}</BaseField>`;
    const xml = (...fields: string[]) => `<FormEntity><FormPages><FormPage><FieldList>${fields.join('')}</FieldList></FormPage></FormPages></FormEntity>`;
    const t = await createTemplate(A);
    const other = await createTemplate(A);
    expect((await importXml(A, t.id, xml(field('Alpha'), field('Beta')))).status).toBe(200);
    expect((await importXml(A, other.id, xml(field('Gamma')))).status).toBe(200);
    for (const id of [t.id, other.id]) expect((await A.put(`/formtemplates/${id}/release`)).status).toBe(200);
    const x = (await A.post(`/formtemplates/${t.id}/forms`, { alpha: 'a1', beta: 'b1' })).body.data;
    const y = (await A.post(`/formtemplates/${other.id}/forms`, { gamma: 'g1' })).body.data;
    expect((await A.put(`/forminstance/${x.formId}/relateForm?relateToId=${y.formId}`)).status).toBe(200);
    // Beta deleted (and released) after x was filled in.
    expect((await importXml(A, t.id, xml(field('Alpha'), field('Beta', true)))).status).toBe(200);
    expect((await A.put(`/formtemplates/${t.id}/release`)).status).toBe(200);

    const related = (await A.get(`/forminstance/${y.formId}/forms?expand=true`)).body.data;
    expect(related).toEqual([expect.objectContaining({ revisionId: x.revisionId, alpha: 'a1', __beta: 'b1' })]);
    expect(related[0]).not.toHaveProperty('beta');
    expect((await A.get(`/forminstance/${y.formId}/forms?fields=__beta`)).body.data).toEqual([expect.objectContaining({ __beta: 'b1' })]);
    // The other template deleted nothing: its form's keys stay plain.
    expect((await A.get(`/forminstance/${x.formId}/forms?expand=true`)).body.data).toEqual([expect.objectContaining({ gamma: 'g1' })]);

    const revised = await A.post(`/formtemplates/${t.id}/forms/${x.revisionId}?expand=true`, { alpha: 'a2' });
    expect(revised.status).toBe(201);
    expect(revised.body.data).toMatchObject({ alpha: 'a2', __beta: 'b1' });
    expect(revised.body.data).not.toHaveProperty('beta');

    const g = await A.gql(
      `query ($t: String!, $o: String!, $r: UUID!) {
        formTemplate(id: $t) { forms { values } }
        formInstance(templateId: $o, revisionId: $r) { values relatedForms { values revisions { revision values } } }
      }`,
      { t: t.id, o: other.id, r: y.revisionId },
    );
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data.formTemplate.forms).toEqual([{ values: { alpha: 'a2', __beta: 'b1' } }]);
    expect(g.body.data.formInstance.values).toEqual({ gamma: 'g1' });
    expect(g.body.data.formInstance.relatedForms).toEqual([
      {
        values: { alpha: 'a2', __beta: 'b1' },
        revisions: [{ revision: 1, values: { alpha: 'a1', __beta: 'b1' } }, { revision: 2, values: { alpha: 'a2', __beta: 'b1' } }],
      },
    ]);
    // Stored under the plain key: revising again keeps it, and a released revision reviving the field shows it plain.
    expect((await importXml(A, t.id, xml(field('Alpha'), field('Beta')))).status).toBe(200);
    expect((await A.put(`/formtemplates/${t.id}/release`)).status).toBe(200);
    expect((await A.get(`/forminstance/${y.formId}/forms?expand=true`)).body.data).toEqual([expect.objectContaining({ alpha: 'a2', beta: 'b1' })]);
  });

  test('GET formtemplates/{id}?q= (the spec\'s "optional q"): the template when it matches, a 404 when not, a 400 when bad', async () => {
    const t = await releasedTemplate(A);
    expect((await A.get(`/formtemplates/${t.id}?${q(`name eq '${t.name}'`)}`)).body.data[0].id).toBe(t.id);
    expectError(await A.get(`/formtemplates/${encodeURIComponent(t.name as string)}?${q("name eq 'Other'")}`), 404, /does not match the query/);
    expectError(await A.get(`/formtemplates/${t.id}?${q('status eq')}`), 400);
  });

  test('GET formtemplates/{id}/revisions/{revisionId}, a revision\'s href: by template id or name; another template\'s revision is a 404', async () => {
    const t = await releasedTemplate(A);
    const other = await releasedTemplate(A);
    const g = await A.gql('query ($id: String!) { formTemplate(id: $id) { revisions { id href revision status } } }', { id: t.id });
    const [first] = g.body.data.formTemplate.revisions;
    expect(first.href).toBe(`~/formtemplates/${t.id}/revisions/${first.id}`);
    for (const idOrName of [t.id, (t.name as string).toUpperCase()]) {
      const r = await A.get(`/formtemplates/${encodeURIComponent(idOrName)}/revisions/${first.id}`);
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ href: first.href, dataType: 'FormTemplateRevision', id: first.id, templateId: t.id, revision: first.revision, status: first.status });
    }
    expectError(await A.get(`/formtemplates/${other.id}/revisions/${first.id}`), 404, /was not found in form template/);
    expectError(await A.get(`/formtemplates/${t.id}/revisions/${UNKNOWN_ID}`), 404);
    expectError(await A.get(`/formtemplates/${t.id}/revisions/abc`), 400, /GUID/);
    expectError(await B.get(`/formtemplates/${t.id}/revisions/${first.id}`), 404);
  });

  test('GET formtemplates/{id}/revisions/{revisionId}/fields/{fieldId}, a field definition\'s href: that revision\'s definition; a field of another revision or template is a 404', async () => {
    const t = await formTemplateWith(A, ['Alpha']);
    const other = await formTemplateWith(A, ['Alpha']);
    // A draft revision 2 keeps the field's id with a new label: each revision's address answers its own.
    const relabel = await A.gql('mutation ($id: String!) { updateFormTemplateField(id: $id, key: "Alpha", input: { label: "First label" }) { id } }', { id: t.id });
    expect(relabel.body.errors).toBeUndefined();
    const q = 'query ($id: String!) { formTemplate(id: $id) { revisions { id fields { id href revisionId templateId key label } } } }';
    const [one, two] = (await A.gql(q, { id: t.id })).body.data.formTemplate.revisions;
    const a1 = one.fields.find((f: { key: string }) => f.key === 'Alpha');
    const a2 = two.fields.find((f: { key: string }) => f.key === 'Alpha');
    expect(a2.id).toBe(a1.id);
    expect(a1.href).toBe(`~/formtemplates/${t.id}/revisions/${one.id}/fields/${a1.id}`);
    expect(a2.href).toBe(`~/formtemplates/${t.id}/revisions/${two.id}/fields/${a1.id}`);
    for (const f of [a1, a2]) {
      const r = await A.get(f.href.replace('~', ''));
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ href: f.href, dataType: 'FormField', id: f.id, revisionId: f.revisionId, templateId: t.id, key: 'Alpha', label: f.label });
    }
    expect(a2.label).toBe('First label');
    expect(a1.label).not.toBe(a2.label);
    expectError(await A.get(`/formtemplates/${encodeURIComponent(String(t.name).toUpperCase())}/revisions/${one.id}/fields/${UNKNOWN_ID}`), 404, /was not found in revision/);
    expectError(await A.get(`/formtemplates/${other.id}/revisions/${one.id}/fields/${a1.id}`), 404, /was not found in form template/);
    expectError(await A.get(`/formtemplates/${t.id}/revisions/${one.id}/fields/abc`), 400, /GUID/);
    expectError(await B.get(a1.href.replace('~', '')), 404);
  });

  test('a designer export: data fields by every FieldType name the exports use, drop-down items, required validations; the rest skipped', async () => {
    const t = await createTemplate(A);
    expect((await importXml(A, t.id, EXPORT_XML)).status).toBe(200);
    const g = await A.gql(`query ($id: String!) { formTemplate(id: $id) { revisions { fields { key fieldType required options } } } }`, { id: t.id });
    expect(g.body.data.formTemplate.revisions[1].fields).toEqual([
      { key: 'Applicant', fieldType: 1, required: true, options: [] },
      { key: 'Reason', fieldType: 2, required: false, options: [] },
      { key: 'Kind', fieldType: 3, required: false, options: ['Select Item', 'Residential', 'Commercial & retail'] },
      { key: 'Filled by query', fieldType: 3, required: false, options: [] },
      { key: 'Agreed', fieldType: 4, required: false, options: [] },
      { key: 'Start', fieldType: 5, required: false, options: [] },
      { key: 'Area', fieldType: 6, required: false, options: [] },
      { key: 'Priority', fieldType: 6, required: false, options: [] },
      { key: 'Total', fieldType: 6, required: false, options: [] },
      { key: 'Signed by', fieldType: 1, required: false, options: [] },
    ]);
    await A.put(`/formtemplates/${t.id}/release`);
    expectError(await A.post(`/formtemplates/${t.id}/forms`, { Reason: 'none given' }), 400, 'Applicant');
    const created = await A.post(`/formtemplates/${t.id}/forms`, { Applicant: 'Ada', Kind: 'Residential', Start: '2026-12-01', Area: '12.5' });
    expect(created.status).toBe(201);
    // Calendar compares as a date and CellField as a number ('12.5' > '9' only as numbers).
    const found = await A.get(`/formtemplates/${t.id}/forms?fields=Applicant&${q("Area gt '9' and Start lt '2027-01-01'")}`);
    expect(found.body.data).toEqual([
      { href: `~/formtemplates/${t.id}/forms/${created.body.data.revisionId}`, dataType: 'FormInstance', revisionId: created.body.data.revisionId, instanceName: created.body.data.instanceName, applicant: 'Ada' },
    ]);
  });

  test('a DOCTYPE or entity declaration (XXE, billion laughs) is a 400 that says why', async () => {
    const t = await createTemplate(A);
    const xxe = `<?xml version="1.0"?><!DOCTYPE FormEntity [<!ENTITY x SYSTEM "file:///etc/passwd">]><FormEntity><FormPages/>&x;</FormEntity>`;
    const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><FormEntity>&lol2;</FormEntity>`;
    for (const xml of [xxe, laughs]) expectError(await importXml(A, t.id, xml), 400, 'may not contain a DOCTYPE or entity declarations');
    expect((await A.get(`/formtemplates/${t.id}`)).body.data[0].revision).toBe(1);
  });

  test('`<!DOCTYPE` that declares nothing is kept: in a CDATA section (a default holding HTML), a comment, a processing instruction or escaped text; the template imports', async () => {
    const t = await createTemplate(A);
    const xml = `<?xml version="1.0"?><!-- made from <!DOCTYPE html> pages --><?note <!DOCTYPE x> ?>
      <FormEntity><FormPages><FormPage><FieldList><!-- <!ENTITY y "z"> -->
        <BaseField><FieldType>TextBox</FieldType><Name>page</Name>
          <DefaultValue><![CDATA[<!DOCTYPE html><html><body><!ENTITY a "b"></body></html>]]></DefaultValue>
          <Hint>&lt;!DOCTYPE html&gt; goes first</Hint></BaseField>
      </FieldList></FormPage></FormPages></FormEntity>`;
    expect((await importXml(A, t.id, xml)).status).toBe(200);
    expect((await A.get(`/formdesigner/forms/formtemplates/${t.id}/fields`)).body.data.formFieldList.map((f: { name: string }) => f.name)).toEqual(['page']);
  });

  test('a DOCTYPE is refused wherever XML reads one: after an XML declaration, a comment, a processing instruction (one holding "?>" in quotes too) or a byte order mark; one after the root too, and a prolog that is not well-formed', async () => {
    const t = await createTemplate(A);
    const root = '<FormEntity><FormPages/>&e;</FormEntity>';
    const dtd = '<!DOCTYPE FormEntity [<!ENTITY e "boom">]>';
    for (const xml of [
      `<?xml version="1.0" encoding="utf-8"?>\n${dtd}${root}`,
      `<!-- the designer's export -->${dtd}${root}`,
      `\uFEFF${dtd}${root}`,
      // Every conformant parser ends the instruction at the first "?>"; fast-xml-parser's own reading did not.
      `<?x a="?>${dtd}<?y "?>${root}`,
      `<FormEntity><FormPages/></FormEntity>${dtd}`,
    ]) {
      expectError(await importXml(A, t.id, xml), 400, /^The template XML may not contain a DOCTYPE or entity declarations\.$/);
    }
    // "--" may not be in a comment: read leniently, this one would hide the DOCTYPE.
    expectError(await importXml(A, t.id, `<!-- --!>${dtd}<!-- -->${root}`), 400, /template XML is malformed: malformed comment \(line 1, column \d+\)/);
    expectError(await importXml(A, t.id, `<!doctype FormEntity>${root}`), 400, /template XML is malformed: .*line 1/);
    expect((await A.get(`/formtemplates/${t.id}`)).body.data[0].revision).toBe(1);
  });

  test('a field name or item holding a control character or a lone surrogate, written raw or as a character reference, is a 400 naming both; nothing is imported', async () => {
    const t = await createTemplate(A);
    const field = (name: string, items: string[] = []) =>
      `<BaseField><FieldType>${items.length ? 'DropDownList' : 'TextBox'}</FieldType><Name>${name}</Name>${items.length ? `<ItemList>${items.map((i) => `<string>${i}</string>`).join('')}</ItemList>` : ''}</BaseField>`;
    const doc = (...f: string[]) => `<FormEntity><FormPages><FormPage><FieldList>${f.join('')}</FieldList></FormPage></FormPages></FormEntity>`;
    const name = (shown: string, char: string) => `The form field name '${shown}' holds the character ${char} (a control character or a lone surrogate), which a name may not hold.`;
    expectError(await importXml(A, t.id, doc(field('a&#1;b'))), 400, name('a\\u0001b', 'U+0001'));
    expectError(await importXml(A, t.id, doc(field('a&#0;b'))), 400, name('a\\u0000b', 'U+0000'));
    expectError(await importXml(A, t.id, doc(field('a&#xD800;b'))), 400, name('a\\ud800b', 'U+D800'));
    expectError(await importXml(A, t.id, doc(field('a&#x1b;[31m'))), 400, name('a\\u001b[31m', 'U+001B'));
    expectError(await importXml(A, t.id, doc(field('a\u0001b'))), 400, name('a\\u0001b', 'U+0001'));
    // DEL and the C1 controls as well (NEL here), as every other name refuses them.
    expectError(await importXml(A, t.id, doc(field('a&#x85;b'))), 400, name('a\u0085b', 'U+0085'));
    expectError(await importXml(A, t.id, doc(field('Pick', ['x\u007fy']))), 400, 'holds the character U+007F');
    expectError(await importXml(A, t.id, doc(field('Pick', ['fine', 'x&#1;y']))), 400,
      "Item 2 of the field 'Pick' ('x\\u0001y') holds the character U+0001 (a control character or a lone surrogate), which an item may not hold.");
    expect((await A.get(`/formtemplates/${t.id}`)).body.data[0].revision).toBe(1);
    // GraphQL's field edits take names by the same rule.
    const g = await A.gql('mutation ($id: String!) { addFormTemplateField(id: $id, input: { name: "a\\u0001b" }) { id } }', { id: t.id });
    expect(g.body.errors?.[0]?.message).toBe(name('a\\u0001b', 'U+0001'));
    // A key stored before DEL and the C1 controls were refused (set in SQL: the API refuses it now) may be resent unchanged, not changed to another holding one.
    const note = uniq('Note');
    const legacy = `${note}\u0091`;
    expect((await A.gql('mutation ($id: String!, $name: String!) { addFormTemplateField(id: $id, input: { name: $name }) { id } }', { id: t.id, name: note })).body.errors).toBeUndefined();
    await h.services.reads.query('update form_template_field set key = $1 where tenant_id = $2 and key = $3', [legacy, A.t.tenantId, note]);
    const edit = (newName: string) =>
      A.gql('mutation ($id: String!, $key: String!, $name: String!) { updateFormTemplateField(id: $id, key: $key, input: { name: $name, label: "Note" }) { id } }', { id: t.id, key: legacy, name: newName });
    expect((await edit(legacy)).body.errors).toBeUndefined();
    expect((await edit(`${legacy}!`)).body.errors?.[0]?.message).toBe(name(`${legacy}!`, 'U+0091'));
    // A reference to a character a name may hold reads as that character, and &amp; as &.
    expect((await importXml(A, t.id, doc(field('Gr&#246;&#xDF;e'), field('Emoji &#x1F600;'), field('Pick', ['A &amp; B', '&#65;'])))).status).toBe(200);
    const fields = (await A.gql('query ($id: String!) { formTemplate(id: $id) { revisions { fields { key options } } } }', { id: t.id })).body.data.formTemplate.revisions.at(-1).fields;
    expect(fields).toEqual([{ key: 'Größe', options: [] }, { key: 'Emoji \u{1F600}', options: [] }, { key: 'Pick', options: ['A & B', 'A'] }]);
  });

  test('a template name with control characters is a 400 and makes nothing; its description may hold them', async () => {
    const name = uniq('Ctl');
    expectError(await A.post('/formtemplates', { name: `${name}\nx`, description: 'd' }), 400, "The field 'name' may not contain control characters.");
    expect((await A.get(`/formtemplates?q=${encodeURIComponent(`name like '${name}%'`)}`)).body.data).toEqual([]);
    expect((await A.post('/formtemplates', { name, description: 'one\ntwo' })).body.data.description).toBe('one\ntwo');
  });

  test('the revision label is one line, as a document revision\'s is: a control character in it is a 400 and nothing is imported', async () => {
    const t = await createTemplate(A);
    for (const revision of ['v1\nv2', 'a\u0001b', 'x\u0085']) {
      expectError(await importXml(A, t.id, XML, { revision }), 400, "The field 'revision' may not contain control characters.");
    }
    expect((await A.get(`/formtemplates/${t.id}`)).body.data[0].latestRevisionId).toBe(t.latestRevisionId);
    expect((await importXml(A, t.id, XML, { revision: ' 2.0 beta ' })).body.data.templateRevision).toBe('2.0 beta');
  });

  test('XML that is not UTF-8 (a Latin-1 export) is a 400 saying so, not a field named with U+FFFD', async () => {
    const t = await createTemplate(A);
    const latin1 = Buffer.from('<?xml version="1.0" encoding="iso-8859-1"?><FormEntity><FormPages><FormPage><FieldList><BaseField><FieldType>TextBox</FieldType><Name>Caf\u00e9</Name></BaseField></FieldList></FormPage></FormPages></FormEntity>', 'latin1');
    expectError(await importXml(A, t.id, new Uint8Array(latin1)), 400, /file part sent as text is not valid UTF-8/);
    expect((await A.get(`/formtemplates/${t.id}`)).body.data[0].revision).toBe(1);
    expect((await importXml(A, t.id, new Uint8Array(Buffer.from(latin1.toString('latin1').replace('iso-8859-1', 'utf-8'))))).status).toBe(200);
    const g = await A.gql(`query ($id: String!) { formTemplate(id: $id) { revisions { fields { key } } } }`, { id: t.id });
    expect(g.body.data.formTemplate.revisions[1].fields.map((f: { key: string }) => f.key)).toEqual(['Café']);
  });

  test('XML in UTF-16 with its byte order mark (Windows "Unicode" text, as Windows PowerShell writes a file) is read, as XML requires; broken UTF-16 is a 400', async () => {
    const t = await createTemplate(A);
    const xml = '\uFEFF<?xml version="1.0" encoding="utf-16"?><FormEntity><FormPages><FormPage><FieldList><BaseField><FieldType>TextBox</FieldType><Name>Caf\u00e9 \u{1F600}</Name></BaseField></FieldList></FormPage></FormPages></FormEntity>';
    const le = Buffer.from(xml, 'utf16le');
    const be = Buffer.from(le).swap16();
    for (const bytes of [le, be]) expect((await importXml(A, t.id, new Uint8Array(bytes))).status).toBe(200);
    const g = await A.gql(`query ($id: String!) { formTemplate(id: $id) { revisions { fields { key } } } }`, { id: t.id });
    expect(g.body.data.formTemplate.revisions.slice(1).map((r: { fields: { key: string }[] }) => r.fields.map((f) => f.key))).toEqual([['Café 😀'], ['Café 😀']]);
    const loneSurrogate = Buffer.concat([le.subarray(0, 20), Buffer.from([0x00, 0xd8]), le.subarray(20)]);
    for (const broken of [le.subarray(0, le.length - 1), loneSurrogate]) {
      expectError(await importXml(A, t.id, new Uint8Array(broken)), 400, 'The file part sent as text starts with a UTF-16 byte order mark but is not valid UTF-16 (a byte left over, or half of a surrogate pair): send it whole, as UTF-16 or UTF-8.');
    }
    const after = await A.gql(`query ($id: String!) { formTemplate(id: $id) { revisions { revision } } }`, { id: t.id });
    expect(after.body.data.formTemplate.revisions).toHaveLength(3);
  });

  test('malformed XML, another document, a bad field and a missing file part are 400s', async () => {
    const t = await createTemplate(A);
    expectError(await importXml(A, t.id, '<FormEntity><FormPages></FormEntity>'), 400, /template XML is malformed: .*line 1/);
    expectError(await importXml(A, t.id, '<Other/>'), 400, 'must be a FormEntity document');
    // A document that stops with elements open says which.
    expectError(await importXml(A, t.id, '<FormEntity><FormPages>'), 400, 'The template XML is malformed: the document ends with the elements <FormEntity>, <FormPages> still open (never closed).');
    expectError(await importXml(A, t.id, '<FormEntity>'), 400, "The template XML is malformed: Unclosed tag 'FormEntity' (line 1, column 1).");
    expectError(await importXml(A, t.id, `<FormEntity>${'<a>'.repeat(200)}${'</a>'.repeat(200)}</FormEntity>`), 400, 'Maximum nested tags exceeded');
    const field = (type: string, name: string, id = '') => `<BaseField><FieldType>${type}</FieldType><ID>${id}</ID><Name>${name}</Name></BaseField>`;
    const doc = (...f: string[]) => `<FormEntity><FormPages><FormPage><FieldList>${f.join('')}</FieldList></FormPage></FormPages></FormEntity>`;
    expectError(await importXml(A, t.id, doc(field('Hologram', 'h'))), 400, "field type this service does not know: 'Hologram'");
    expectError(await importXml(A, t.id, doc(field('constructor', 'h'))), 400, "field type this service does not know: 'constructor'");
    expectError(await importXml(A, t.id, doc(field('TextBox', 'a'), field('TextBox', 'A'))), 400, "names the field 'A' twice");
    expectError(await importXml(A, t.id, doc(field('TextBox', 'a', 'not-a-guid'))), 400, 'not a GUID');
    expectError(await importXml(A, t.id, doc(field('TextBox', 'CreateDate'))), 400, 'taken by a base field');
    expectError(await importXml(A, t.id, doc(field('TextBox', '__x'))), 400, "may not start with '__'");
    expectError(await importXml(A, t.id, null, { description: 'no file' }), 400, "The mandatory file part 'fileUpload' (the template XML) is missing.");
    for (const blank of ['', ' \r\n']) expectError(await importXml(A, t.id, blank), 400, "The file part 'fileUpload' (the template XML) is empty: send the designer's XML export in it.");
    const broken = { raw: new TextEncoder().encode('--b\r\nnot a part'), headers: { 'content-type': 'multipart/form-data; boundary=b' } };
    expectError(await A.put(`/formtemplates/${t.id}/import`, undefined, broken), 400, 'multipart');
    expect((await A.get(`/formtemplates/${t.id}`)).body.data[0].revision).toBe(1);
  });

  test('an element the reader takes once, written twice, is a 400 naming it, not fields or options dropped with a 200', async () => {
    const t = await createTemplate(A);
    const field = (name: string, extra = '') => `<BaseField><FieldType>TextBox</FieldType><Name>${name}</Name>${extra}</BaseField>`;
    const cases: [string, string][] = [
      [`<FormEntity><FormPages><FormPage><FieldList>${field('a')}</FieldList><FieldList>${field('b')}</FieldList></FormPage></FormPages></FormEntity>`, 'The template XML has 2 <FieldList> elements in page 1, where the designer writes one: merge them into one.'],
      [`<FormEntity><FormPages><FormPage><FieldList>${field('a')}</FieldList></FormPage></FormPages><FormPages><FormPage><FieldList>${field('b')}</FieldList></FormPage></FormPages></FormEntity>`, 'The template XML has 2 <FormPages> elements in <FormEntity>'],
      [`<FormEntity><FormPages><FormPage><FieldList>${field('a')}</FieldList></FormPage></FormPages></FormEntity><FormEntity/>`, 'The template XML has 2 <FormEntity> elements in the document'],
      [`<FormEntity><FormPages><FormPage><FieldList>${field('a')}${field('r', '<Required>true</Required><Required>true</Required>')}</FieldList></FormPage></FormPages></FormEntity>`, "The template XML has 2 <Required> elements in field 2 of page 1 ('r')"],
      [`<FormEntity><FormPages><FormPage><FieldList><BaseField><FieldType>DropDownList</FieldType><Name>d</Name><ItemList><string>x</string></ItemList><ItemList><string>y</string></ItemList></BaseField></FieldList></FormPage></FormPages></FormEntity>`, "2 <ItemList> elements in field 1 of page 1 ('d')"],
      [`<FormEntity><FormPages><FormPage><FieldList><BaseField><FieldType>TextBox</FieldType><Name>a</Name><Name>b</Name></BaseField></FieldList></FormPage></FormPages></FormEntity>`, '2 <Name> elements in field 1 of page 1, where'],
    ];
    for (const [xml, message] of cases) expectError(await importXml(A, t.id, xml), 400, message);
    // Nothing was imported: the template is still at its first, empty revision.
    expect((await A.get(`/formtemplates/${t.id}`)).body.data[0].revision).toBe(1);
    // Two pages, each with its one field list, are the designer's own shape.
    const two = `<FormEntity><FormPages><FormPage><FieldList>${field('a')}</FieldList></FormPage><FormPage><FieldList>${field('b')}</FieldList></FormPage></FormPages></FormEntity>`;
    expect((await importXml(A, t.id, two)).status).toBe(200);
    expect(Object.keys((await A.get(`/formtemplates/${t.id}/fields`)).body.data.fields)).toEqual(expect.arrayContaining(['a', 'b']));
  });

  test('a FormEntity with nothing in it is taken as one holding no pages is, not called another document', async () => {
    for (const xml of ['<FormEntity><Version>4</Version></FormEntity>', '<FormEntity></FormEntity>', '<FormEntity/>']) {
      const r = await importXml(A, (await createTemplate(A)).id, xml);
      expect([xml, r.status]).toEqual([xml, 200]);
    }
  });

  test('XML over FORM_IMPORT_MAX_BYTES (8 MiB by default) is a 413', async () => {
    const t = await createTemplate(A);
    const big = XML.replace('<Version>4</Version>', `<Pad>${'x'.repeat(8 * 1024 * 1024)}</Pad>`);
    expectError(await importXml(A, t.id, big), 413, 'FORM_IMPORT_MAX_BYTES');
  });

  test('designing is an administrator\'s: an ordinary user gets a 403 and nothing changes', async () => {
    const t = await createTemplate(A);
    expectError(await importXml(A.as(plain.token), t.id), 403);
    expectError(await A.as(plain.token).put(`/formtemplates/${t.id}/release`), 403);
    expect((await A.get(`/formtemplates/${t.id}`)).body.data[0]).toMatchObject({ revision: 1, status: 0 });
  });

  test('two imports at once both land, as consecutive revisions', async () => {
    const t = await createTemplate(A);
    const rs = await Promise.all([importXml(A, t.id), importXml(A, t.id)]);
    expect(rs.map((r) => r.status)).toEqual([200, 200]);
    const g = await A.gql(`query ($id: String!) { formTemplate(id: $id) { latestRevisionId revisions { id revision status } } }`, { id: t.id });
    const revs = g.body.data.formTemplate.revisions;
    expect(revs.map((r: { revision: number }) => r.revision)).toEqual([1, 2, 3]);
    expect(revs.every((r: { status: number }) => r.status === 0)).toBe(true);
    expect(g.body.data.formTemplate.latestRevisionId).toBe(revs[2].id);
  });
});

describe('PUT /formtemplates/{id}/release', () => {
  test('releases the latest draft (status 1); releasing again changes nothing and answers 200', async () => {
    const t = await createTemplate(A);
    await importXml(A, t.id);
    const first = await A.put(`/formtemplates/${t.name}/release`, undefined, { headers: { 'content-type': 'application/json' } });
    expectEnvelope(first, 'PUT', A.url(`/formtemplates/${t.name}/release`));
    expect(first.body.data).toMatchObject({ id: t.id, status: 1, revision: 2 });
    const again = await A.put(`/formtemplates/${t.id}/release`);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
  });

  test('a new release supersedes the one before (status 2)', async () => {
    const t = await releasedTemplate(A);
    await importXml(A, t.id);
    await A.put(`/formtemplates/${t.id}/release`);
    const g = await A.gql(`query ($id: String!) { formTemplate(id: $id) { revisions { revision status } } }`, { id: t.id });
    expect(g.body.data.formTemplate.revisions).toEqual([{ revision: 1, status: 0 }, { revision: 2, status: 2 }, { revision: 3, status: 1 }]);
  });

  test('two releases at once: both 200, one released revision', async () => {
    const t = await createTemplate(A);
    await importXml(A, t.id);
    const rs = await Promise.all([A.put(`/formtemplates/${t.id}/release`), A.put(`/formtemplates/${t.id}/release`)]);
    expect(rs.map((r) => r.status)).toEqual([200, 200]);
    expect(rs[0].body.data.revisionId).toBe(rs[1].body.data.revisionId);
    const g = await A.gql(`query ($id: String!) { formTemplate(id: $id) { revisions { revision status } } }`, { id: t.id });
    expect(g.body.data.formTemplate.revisions).toEqual([{ revision: 1, status: 0 }, { revision: 2, status: 1 }]);
  });

  test('releases racing fields added, 15 rounds: one add of a key wins, every field added is in the latest revision, and no revision holds a key twice', async () => {
    const ADD = 'mutation ($id: String!, $key: String) { addFormTemplateField(id: $id, input: { name: $key }) { id } }';
    for (let round = 0; round < 15; round++) {
      const t = await formTemplateWith(A, ['a']);
      const [k1, k2] = [uniq('k'), uniq('k')];
      const rs = await Promise.all([A.gql(ADD, { id: t.id, key: k1 }), A.put(`/formtemplates/${t.id}/release`), A.gql(ADD, { id: t.id, key: k1 }), A.gql(ADD, { id: t.id, key: k2 })]);
      expect(rs[1].status).toBe(200);
      // One of the two adds of k1 wins; the other finds it in the draft (or in the one the release left, copied into a new draft).
      const adds = [rs[0], rs[2]].map((r) => r.body.errors?.[0]?.extensions?.code ?? 'ok').sort();
      expect(adds).toEqual(['CONFLICT', 'ok']);
      expect(rs[3].body.errors).toBeUndefined();
      const { rows } = await h.services.reads.query(
        `select r.id = t.latest_revision_id as latest, array(select f.key from form_template_field f where f.tenant_id = r.tenant_id and f.revision_id = r.id order by f.ord) as keys
           from form_template_revision r join form_template t on t.tenant_id = r.tenant_id and t.id = r.template_id where r.tenant_id = $1 and r.template_id = $2 order by r.revision`,
        [A.t.tenantId, t.id],
      );
      expect([...rows.find((r) => r.latest).keys].sort()).toEqual(['a', k1, k2].sort());
      for (const r of rows) expect(new Set(r.keys).size).toBe(r.keys.length);
    }
  }, 60_000);
});

describe('GET /formtemplates/{id}/fields', () => {
  test('lower-case keys to labels after the base keys, and the base field names; no dataType', async () => {
    const t = await releasedTemplate(A);
    for (const idOrName of [t.id, t.name as string]) {
      const path = `/formtemplates/${encodeURIComponent(idOrName)}/fields`;
      const r = await A.get(path);
      expectEnvelope(r, 'GET', A.url(path));
      expect(r.body.data).toEqual({ fields: { ...BASE_LABELS, textfield: 'textField' }, baseFields: BASE_FIELDS });
      expect(JSON.stringify(r.body.data)).toBe(JSON.stringify({ fields: { ...BASE_LABELS, textfield: 'textField' }, baseFields: BASE_FIELDS }));
    }
  });

  test('a deleted field appears under `__<key>` once its deletion is released', async () => {
    const t = await releasedTemplate(A);
    const del = await A.gql(`mutation ($id: String!) { deleteFormTemplateField(id: $id, key: "TEXTFIELD") { revision status fields { id key deleted } } }`, { id: t.name });
    expect(del.body.errors).toBeUndefined();
    expect(del.body.data.deleteFormTemplateField).toEqual({ revision: 3, status: 0, fields: [{ id: TEXT_FIELD_ID, key: 'textField', deleted: true }] });
    // Still released: revision 2.
    expect((await A.get(`/formtemplates/${t.id}/fields`)).body.data.fields.textfield).toBe('textField');
    await A.put(`/formtemplates/${t.id}/release`);
    const fields = (await A.get(`/formtemplates/${t.id}/fields`)).body.data.fields;
    expect(fields).toEqual({ ...BASE_LABELS, __textfield: 'textField' });
    expect((await A.get(`/formdesigner/forms/formtemplates/${t.id}/fields`)).body.data).toEqual({ formFieldList: [] });
  });
});

describe('GraphQL: field edits on the draft', () => {
  const FIELDS = 'revision status fields { key label fieldType required options order deleted }';

  test('add, rename and change fields; edits after a release start a new draft copying it', async () => {
    const t = await releasedTemplate(A);
    const add = await A.gql(`mutation ($id: String!) { addFormTemplateField(id: $id, input: { name: "Color", fieldType: 3, required: true, options: ["red", "blue"] }) { ${FIELDS} } }`, { id: t.id });
    expect(add.body.errors).toBeUndefined();
    expect(add.body.data.addFormTemplateField).toEqual({
      revision: 3,
      status: 0,
      fields: [
        { key: 'textField', label: 'textField', fieldType: 1, required: false, options: [], order: 1, deleted: false },
        { key: 'Color', label: 'Color', fieldType: 3, required: true, options: ['red', 'blue'], order: 2, deleted: false },
      ],
    });
    const rename = await A.gql(`mutation ($id: String!) { updateFormTemplateField(id: $id, key: "color", input: { name: "Colour", label: "Favourite colour" }) { ${FIELDS} } }`, { id: t.id });
    expect(rename.body.data.updateFormTemplateField.revision).toBe(3);
    expect(rename.body.data.updateFormTemplateField.fields[1]).toMatchObject({ key: 'Colour', label: 'Favourite colour', fieldType: 3 });
    await A.put(`/formtemplates/${t.id}/release`);
    expect((await A.get(`/formtemplates/${t.id}/fields`)).body.data.fields).toEqual({ ...BASE_LABELS, textfield: 'textField', colour: 'Favourite colour' });
  });

  test('a deleted field takes no more edits, and its key stays taken: 404 to change or delete it again, 409 to add it anew', async () => {
    const t = await releasedTemplate(A);
    const m = (op: string) => A.gql(`mutation ($id: String!) { ${op} { ${FIELDS} } }`, { id: t.id });
    const deleted = await m('deleteFormTemplateField(id: $id, key: "textField")');
    expect(deleted.body.errors).toBeUndefined();
    const draft = deleted.body.data.deleteFormTemplateField;
    for (const op of ['updateFormTemplateField(id: $id, key: "TEXTFIELD", input: { name: "Revived", fieldType: 3 })', 'deleteFormTemplateField(id: $id, key: "textField")']) {
      const r = await m(op);
      expect(r.body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(r.body.errors[0].message).toBe("Form field 'textField' was deleted from the template's draft; its values read as '__textfield' and it takes no more edits.");
    }
    const added = await m('addFormTemplateField(id: $id, input: { name: "TextField" })');
    expect(added.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(added.body.errors[0].message).toContain("deleted field named 'textField'");
    const g = await A.gql(`query ($id: String!) { formTemplate(id: $id) { revisions { ${FIELDS} } } }`, { id: t.id });
    expect(g.body.data.formTemplate.revisions.at(-1)).toEqual(draft);
  });

  test('a field edit by the one who last changed the draft and its template dates both anew', async () => {
    const t = await createTemplate(A);
    await importXml(A, t.id);
    // Changed an hour back by the same administrator, so an edit that stamps only its changer leaves the dates as they were.
    const hourBack = async () => {
      for (const [table, column] of [['form_template', 'id'], ['form_template_revision', 'template_id']]) {
        await h.services.reads.query(`update ${table} set modified_at = now() - interval '1 hour' where tenant_id = $1 and ${column} = $2`, [A.t.tenantId, t.id]);
      }
    };
    const dates = async () => {
      const r = await A.gql('query ($id: String!) { formTemplate(id: $id) { modifyDate revisions { modifyDate } } }', { id: t.id });
      return [r.body.data.formTemplate.modifyDate, r.body.data.formTemplate.revisions.at(-1).modifyDate];
    };
    for (const op of ['addFormTemplateField(id: $id, input: { name: "Added" })', 'updateFormTemplateField(id: $id, key: "added", input: { label: "Relabelled" })', 'deleteFormTemplateField(id: $id, key: "added")']) {
      await hourBack();
      const [template, draft] = await dates();
      expect((await A.gql(`mutation ($id: String!) { ${op} { id } }`, { id: t.id })).body.errors).toBeUndefined();
      const [templateAfter, draftAfter] = await dates();
      expect([op, templateAfter > template, draftAfter > draft]).toEqual([op, true, true]);
    }
  });

  test('a taken key is a 409, an unknown key a 404, a bad type a 400, an ordinary user a 403', async () => {
    const t = await createTemplate(A);
    await importXml(A, t.id);
    const m = (api: Api, op: string) => api.gql(`mutation ($id: String!) { ${op} { revision } }`, { id: t.id });
    const codeOf = (r: Reply) => r.body.errors?.[0]?.extensions?.code;
    expect(codeOf(await m(A, 'addFormTemplateField(id: $id, input: { name: "TEXTFIELD" })'))).toBe('CONFLICT');
    expect(codeOf(await m(A, 'updateFormTemplateField(id: $id, key: "nosuch", input: { label: "x" })'))).toBe('NOT_FOUND');
    expect(codeOf(await m(A, 'addFormTemplateField(id: $id, input: { name: "n", fieldType: 99 })'))).toBe('BAD_REQUEST');
    expect(codeOf(await m(A.as(plain.token), 'deleteFormTemplateField(id: $id, key: "textField")'))).toBe('FORBIDDEN');
    expect(codeOf(await m(A, 'importFormTemplate(id: $id, input: { fileUpload: "<!DOCTYPE x><FormEntity/>" })'))).toBe('BAD_REQUEST');
  });

  test('templates with revisions and fields cost a constant number of statements per page', async () => {
    const T = A.on(await h.tenant());
    const api = T.as(await h.login(T.t));
    for (let i = 0; i < 3; i++) await releasedTemplate(api);
    const query = `query ($limit: Int) { formTemplates(limit: $limit) { items { name revisions(limit: 10) { revision fields(limit: 100) { key } } } } }`;
    const small = await h.countQueries(() => api.gql(query, { limit: 1 }));
    const large = await h.countQueries(() => api.gql(query, { limit: 3 }));
    expect(large.result.body.errors).toBeUndefined();
    expect(large.result.body.data.formTemplates.items).toHaveLength(3);
    expect(large.result.body.data.formTemplates.items[0].revisions[1].fields).toEqual([{ key: 'textField' }]);
    expect(large.statements).toHaveLength(small.statements.length);
    expect(large.statements).toHaveLength(3);
  });

  test('forms shown with their values (deleted fields looked up) cost a constant number of statements, from however many templates', async () => {
    const T = A.on(await h.tenant());
    const api = T.as(await h.login(T.t));
    const forms = [];
    for (let i = 0; i < 3; i++) {
      const t = await releasedTemplate(api);
      for (let j = 0; j < 2; j++) forms.push((await api.post(`/formtemplates/${t.id}/forms`, { textField: `v${i}${j}` })).body.data);
    }
    const [hub, ...others] = forms;
    for (const f of others) expect((await api.put(`/forminstance/${hub.formId}/relateForm?relateToId=${f.formId}`)).status).toBe(200);
    const texts = (values: { textfield: string }[]) => sorted(values.map((v) => v.textfield));

    const byTemplate = `query ($limit: Int) { formTemplates(limit: $limit) { items { forms(limit: 10) { values revisions(limit: 5) { values } } } } }`;
    const small = await h.countQueries(() => api.gql(byTemplate, { limit: 1 }));
    const large = await h.countQueries(() => api.gql(byTemplate, { limit: 3 }));
    expect(large.result.body.errors).toBeUndefined();
    const shown = large.result.body.data.formTemplates.items.flatMap((t: { forms: { values: object }[] }) => t.forms.map((f) => f.values));
    expect(texts(shown)).toEqual(['v00', 'v01', 'v10', 'v11', 'v20', 'v21']);
    expect(large.statements).toHaveLength(small.statements.length);

    // Related forms of three templates: one look-up of deleted fields for the page, however long.
    const related = `query ($id: UUID!, $limit: Int) { relatedForms(formId: $id, limit: $limit) { items { values revisions(limit: 5) { values } } } }`;
    const one = await h.countQueries(() => api.gql(related, { id: hub.formId, limit: 1 }));
    const all = await h.countQueries(() => api.gql(related, { id: hub.formId, limit: 5 }));
    expect(all.result.body.errors).toBeUndefined();
    expect(texts(all.result.body.data.relatedForms.items.map((f: { values: object }) => f.values))).toEqual(['v01', 'v10', 'v11', 'v20', 'v21']);
    expect(all.statements).toHaveLength(one.statements.length);
  });
});

describe('across tenants', () => {
  test('another tenant\'s token on these paths is a 403; its own paths do not reach this tenant\'s templates', async () => {
    const t = await releasedTemplate(A);
    expectError(await B.on(A.t).get(`/formtemplates/${t.id}`), 403);
    expectError(await B.on(A.t).put(`/formtemplates/${t.id}/release`), 403);
    for (const idOrName of [t.id, t.name as string]) {
      expectError(await B.get(`/formtemplates/${encodeURIComponent(idOrName)}`), 404);
      expectError(await B.get(`/formtemplates/${encodeURIComponent(idOrName)}/fields`), 404);
      expectError(await B.put(`/formtemplates/${encodeURIComponent(idOrName)}/release`), 404);
      expectError(await importXml(B, idOrName), 404);
    }
    expect((await B.get(`/formtemplates?${q(`id eq '${t.id}'`)}`)).body.data).toEqual([]);
    // B may use the same name for its own template.
    expect((await B.post('/formtemplates', { name: t.name, description: '' })).status).toBe(200);
  });
});
