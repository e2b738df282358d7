/**
 * Document types (client-compatibility.md: the Node client reads `GET documenttypes` as an array
 * and creates one with `POST documenttypes {documentTypeName}`, answered 200), their rules, who
 * may change them, and their GraphQL side.
 */
import { expectEnvelope, expectError, keysOf, q, sorted, uniq, UNKNOWN_ID, whileHeld } from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';

const KEYS = ['href', 'dataType', 'id', 'name', 'description', 'createDate', 'modifyDate', 'createById', 'modifyById', 'createBy', 'modifyBy'];

setUpTwoTenants();

type DocumentType = Record<string, unknown> & { id: string; name: string };

async function newType(name = uniq('Type')): Promise<DocumentType> {
  const r = await A.post('/documenttypes', { documentTypeName: name });
  expect([r.status, r.text.slice(0, 300)]).toEqual([200, expect.any(String)]);
  return r.body.data;
}

describe('document types', () => {
  test('POST documenttypes as the Node client sends it: 200 and the record; GET documenttypes lists it, paged; GET by id reads it', async () => {
    const name = uniq('Type Contract');
    const r = await A.post('/documenttypes', { documentTypeName: name });
    expectEnvelope(r, 'POST', A.url('/documenttypes'));
    const made = r.body.data as DocumentType;
    expect(keysOf(made)).toEqual(sorted(KEYS));
    expect(made).toMatchObject({ dataType: 'DocumentType', href: `~/documenttypes/${made.id}`, name, description: '', createBy: 'admin', modifyBy: 'admin' });

    const all = await A.get('/documenttypes');
    expectEnvelope(all, 'GET', A.url('/documenttypes'));
    expect(Array.isArray(all.body.data)).toBe(true);
    expect(all.body.data.find((t: DocumentType) => t.id === made.id)).toEqual(made);
    expect(all.body.pagination).toMatchObject({ dataType: 'PagedData', limit: 200, totalRecords: all.body.data.length });
    expect((await A.get(`/documenttypes/${made.id}`)).body.data).toEqual(made);
    // `q` on a name matches without regard to case, as names are unique.
    expect((await A.get(`/documenttypes?${q(`name eq '${name.toUpperCase()}'`)}`)).body.data.map((t: DocumentType) => t.id)).toEqual([made.id]);
  });

  test('lists are in name order, without regard to case', async () => {
    const tag = uniq('Order');
    for (const n of ['b', 'C', 'a']) await newType(`${tag}-${n}`);
    const names = (await A.get(`/documenttypes?${q(`name like '${tag}%'`)}`)).body.data.map((t: DocumentType) => t.name);
    expect(names).toEqual([`${tag}-a`, `${tag}-b`, `${tag}-C`]);
  });

  test('`name` says what `documentTypeName` says; PUT changes what is sent; DELETE removes it', async () => {
    const made = (await A.post('/documenttypes', { name: uniq('Type Named'), description: 'by name' })).body.data as DocumentType;
    expect(made.description).toBe('by name');
    const renamed = uniq('Type Renamed');
    const r = await A.put(`/documenttypes/${made.id}`, { documentTypeName: renamed });
    expect(r.body.data).toMatchObject({ id: made.id, name: renamed, description: 'by name' });
    expect((await A.put(`/documenttypes/${made.id}`, { description: 'changed' })).body.data).toMatchObject({ name: renamed, description: 'changed' });
    expect((await A.del(`/documenttypes/${made.id}`)).status).toBe(200);
    expectError(await A.get(`/documenttypes/${made.id}`), 404, /Document type/);
  });

  test('a delete that waits for another delete of the type finds it gone: a 404, not a second 200', async () => {
    const t = await newType();
    // The other delete, committed while this one waits for the type's row.
    const other = { text: 'delete from document_type where tenant_id = $1 and id = $2', values: [A.t.tenantId, t.id] };
    expectError(await whileHeld(h, other, () => A.del(`/documenttypes/${t.id}`)), 404, `Document type '${t.id}' was not found.`);
  });

  test('refusals: a missing, blank, multi-line, long or taken name, names that disagree, an unknown id; nothing changes', async () => {
    const taken = await newType();
    const before = (await A.get('/documenttypes?limit=1')).body.pagination.totalRecords;
    expectError(await A.post('/documenttypes', {}), 400, /'documentTypeName' \(or 'name'\) is missing/);
    expectError(await A.post('/documenttypes', { documentTypeName: '   ' }), 400, /must not be blank/);
    expectError(await A.post('/documenttypes', { documentTypeName: 'two\nlines' }), 400, /control characters/);
    expectError(await A.post('/documenttypes', { documentTypeName: 'del\u007fname' }), 400, /control characters/);
    expectError(await A.post('/documenttypes', { documentTypeName: 'nel\u0085name' }), 400, /control characters/);
    expectError(await A.put(`/documenttypes/${taken.id}`, { documentTypeName: 'c1\u0080' }), 400, /control characters/);
    expectError(await A.post('/documenttypes', { documentTypeName: 'x'.repeat(257) }), 400, /longer than 256/);
    expectError(await A.post('/documenttypes', { documentTypeName: uniq('T'), description: 'd'.repeat(4001) }), 400, /longer than 4000/);
    expectError(await A.post('/documenttypes', { documentTypeName: ` ${taken.name.toLowerCase()} ` }), 409, /already exists/);
    expectError(await A.post('/documenttypes', { name: 'One', documentTypeName: 'Other' }), 400, /say the same thing/);
    expectError(await A.put(`/documenttypes/${taken.id}`, {}), 400, /at least one/);
    expectError(await A.put(`/documenttypes/${UNKNOWN_ID}`, { description: 'x' }), 404);
    expectError(await A.del(`/documenttypes/${UNKNOWN_ID}`), 404);
    expectError(await A.get('/documenttypes/not-a-guid'), 400, /must be a GUID/);
    expect((await A.get('/documenttypes?limit=1')).body.pagination.totalRecords).toBe(before);
    expect((await A.get(`/documenttypes/${taken.id}`)).body.data).toEqual(taken);
  });

  test('three creates of one name at once: one type, two 409s; two renames to one name at once: one wins', async () => {
    const name = uniq('Race');
    const made = await Promise.all(Array.from({ length: 3 }, () => A.post('/documenttypes', { documentTypeName: name })));
    expect(made.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect((await A.get(`/documenttypes?${q(`name eq '${name}'`)}`)).body.data).toHaveLength(1);

    const [one, two] = [await newType(), await newType()];
    const target = uniq('Target');
    const renames = await Promise.all([one, two].map((t) => A.put(`/documenttypes/${t.id}`, { name: target })));
    expect(renames.map((r) => r.status).sort()).toEqual([200, 409]);
    const named = (await A.get(`/documenttypes?${q(`name eq '${target}'`)}`)).body.data as DocumentType[];
    expect(named).toHaveLength(1);
    expect([one.id, two.id]).toContain(named[0].id);
  });
});

describe('who may', () => {
  test('anyone in the database reads document types; only administrators change them; other tenants find nothing', async () => {
    const made = await newType();
    const U = A.as(plain.token);
    expect((await U.get(`/documenttypes/${made.id}`)).body.data).toEqual(made);
    expect((await U.get('/documenttypes')).body.data.map((t: DocumentType) => t.id)).toContain(made.id);
    expectError(await U.post('/documenttypes', { documentTypeName: uniq('No') }), 403);
    expectError(await U.put(`/documenttypes/${made.id}`, { description: 'no' }), 403);
    expectError(await U.del(`/documenttypes/${made.id}`), 403);
    expectError(await B.get(`/documenttypes/${made.id}`), 404);
    expectError(await B.put(`/documenttypes/${made.id}`, { description: 'no' }), 404);
    expect((await B.get('/documenttypes')).body.data.map((t: DocumentType) => t.id)).not.toContain(made.id);
    expect((await A.get(`/documenttypes/${made.id}`)).body.data).toEqual(made);
  });

  test('GraphQL: create, read, update and delete; one statement per page whatever its size', async () => {
    const tag = uniq('Gql');
    const created = await A.gql('mutation ($name: String) { createDocumentType(input: { name: $name, description: "via graphql" }) { id name description dataType } }', { name: `${tag}-0` });
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createDocumentType.id as string;
    expect(created.body.data.createDocumentType).toEqual({ id, name: `${tag}-0`, description: 'via graphql', dataType: 'DocumentType' });
    for (let i = 1; i < 4; i++) await newType(`${tag}-${i}`);
    const page = (limit: number) => A.gql(`query ($q: String) { documentTypes(q: $q, limit: ${limit}) { totalRecords items { name createBy } } }`, { q: `name like '${tag}%'` });
    const small = await h.countQueries(() => page(1));
    const big = await h.countQueries(() => page(4));
    expect(big.result.body.data.documentTypes).toEqual({ totalRecords: 4, items: [0, 1, 2, 3].map((i) => ({ name: `${tag}-${i}`, createBy: 'admin' })) });
    expect(big.statements.length).toBe(small.statements.length);
    const updated = await A.gql(`mutation { updateDocumentType(id: "${id}", input: { documentTypeName: "${tag}-renamed" }) { name } }`);
    expect(updated.body.data.updateDocumentType).toEqual({ name: `${tag}-renamed` });
    expect((await A.gql(`mutation { deleteDocumentType(id: "${id}") { success } }`)).body.data.deleteDocumentType).toEqual({ success: true });
    expect((await A.gql(`{ documentType(id: "${id}") { id } }`)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    const refused = await A.as(plain.token).gql(`mutation { createDocumentType(input: { name: "${tag}-plain" }) { id } }`);
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
