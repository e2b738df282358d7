/**
 * Date-times in `q` compare as records show them (docs/decisions.md, "Resources and reads"): the
 * database keeps microseconds, the API writes milliseconds (cut), so a filter with the value a
 * record shows must find it, and gt/ge/lt/le/between/in/like must agree with what is shown.
 * Rows get stored times with sub-millisecond digits by SQL.
 */
import { multipart, q, uniq } from './support.js';
import { A, h, setUpTwoTenants } from './two-tenants.js';

let folder: { id: string; name: string };

setUpTwoTenants();
beforeAll(async () => {
  folder = (await A.post('/folders', { name: uniq('Dates') })).body.data;
});

/** Sets `column` of the tenant's row of `table` whose `key` column is `id` to the timestamp text `at`. */
async function stamp(table: string, column: string, key: string, id: string, at: string): Promise<void> {
  const r = await h.services.reads.query(`update ${table} set ${column} = $3::timestamptz where tenant_id = $1 and ${key} = $2`, [A.t.tenantId, id, at]);
  expect(r.rowCount).toBeGreaterThan(0);
}

const names = async (path: string, where: string): Promise<string[]> => {
  const r = await A.get(`${path}${path.includes('?') ? '&' : '?'}${q(where)}`);
  expect([where, r.status]).toEqual([where, 200]);
  return (r.body.data as { name?: string; label?: string }[]).map((d) => (d.name ?? d.label)!).sort();
};

describe('a datetime field compares as it is shown, to the millisecond', () => {
  test('documents: eq with the shown value finds the record; ne, gt, ge, lt, le, between, in, like, dateadd agree with what is shown', async () => {
    const docs: Record<string, { documentId: string }> = {};
    // Stored: just under .224, inside .224, exactly .225.
    const stored = { d223: '2031-03-04 05:06:07.223999+00', d224: '2031-03-04 05:06:07.224567+00', d225: '2031-03-04 05:06:07.225+00' };
    for (const [name, at] of Object.entries(stored)) {
      docs[name] = (await A.post('/documents', { folderId: folder.id, name, documentState: 1 })).body.data;
      await stamp('document', 'modified_at', 'id', docs[name].documentId, at);
    }
    const shown = (await A.get(`/documents/${docs.d224.documentId}`)).body.data.modifyDate;
    expect(shown).toBe('2031-03-04T05:06:07.224');
    const inFolder = (cond: string) => names('/documents', `folderId eq '${folder.id}' and ${cond}`);
    const T = (ms: string) => `'2031-03-04T05:06:07.${ms}'`;
    expect(await inFolder(`modifyDate eq '${shown}'`)).toEqual(['d224']);
    expect(await inFolder(`modifyDate = ${T('224')}`)).toEqual(['d224']);
    expect(await inFolder(`${T('224')} eq modifyDate`)).toEqual(['d224']);
    expect(await inFolder(`modifyDate ne ${T('224')}`)).toEqual(['d223', 'd225']);
    expect(await inFolder(`modifyDate gt ${T('224')}`)).toEqual(['d225']);
    expect(await inFolder(`${T('224')} lt modifyDate`)).toEqual(['d225']);
    expect(await inFolder(`modifyDate ge ${T('224')}`)).toEqual(['d224', 'd225']);
    expect(await inFolder(`modifyDate lt ${T('224')}`)).toEqual(['d223']);
    expect(await inFolder(`modifyDate le ${T('224')}`)).toEqual(['d223', 'd224']);
    expect(await inFolder(`modifyDate lt ${T('225')}`)).toEqual(['d223', 'd224']);
    expect(await inFolder(`modifyDate between ${T('224')} and ${T('224')}`)).toEqual(['d224']);
    expect(await inFolder(`modifyDate between ${T('223')} and ${T('224')}`)).toEqual(['d223', 'd224']);
    expect(await inFolder(`modifyDate not between ${T('224')} and ${T('225')}`)).toEqual(['d223']);
    expect(await inFolder(`modifyDate in (${T('224')}, ${T('225')})`)).toEqual(['d224', 'd225']);
    expect(await inFolder(`modifyDate not in (${T('224')})`)).toEqual(['d223', 'd225']);
    expect(await inFolder(`modifyDate like '2031-03-04T05:06:07.224%'`)).toEqual(['d224']);
    expect(await inFolder(`dateadd(second, 1, modifyDate) eq '2031-03-04T05:06:08.224'`)).toEqual(['d224']);
    expect(await inFolder(`modifyDate gt dateadd(second, -1, '2031-03-04T05:06:08.224')`)).toEqual(['d225']);
    // A sub-millisecond literal: the shown .224 is below .2245, the shown .225 above it.
    expect(await inFolder(`modifyDate gt ${T('2245')}`)).toEqual(['d225']);
    expect(await inFolder(`modifyDate eq ${T('2245')}`)).toEqual([]);
    expect(await inFolder(`modifyDate is not null and modifyDate ge ${T('223')}`)).toEqual(['d223', 'd224', 'd225']);

    // After an upload (its modify date is the database's now(), with microseconds), as stored.
    const up = (await A.post('/files', undefined, await multipart({ documentId: docs.d223.documentId }, 'x', 'x.txt'))).body.data;
    expect(await inFolder(`modifyDate eq '${up.modifyDate}'`)).toEqual(['d223']);
    expect(await inFolder(`createDate le '${up.createDate}' and documentId eq '${docs.d223.documentId}'`)).toEqual(['d223']);
  });

  test('index field definitions, folders, folder and document index fields: the shown createDate and modifyDate find their record', async () => {
    const at = '2031-05-06 07:08:09.987654+00';
    const shown = '2031-05-06T07:08:09.987';
    const field = (await A.post('/indexfields', { label: uniq('When'), fieldType: 'Text' })).body.data;
    await stamp('index_field', 'created_at', 'id', field.id, at);
    await stamp('index_field', 'modified_at', 'id', field.id, at);
    const child = (await A.post(`/folders/${folder.id}`, { name: uniq('Child') })).body.data;
    await stamp('folder', 'created_at', 'id', child.id, at);
    await stamp('folder', 'modified_at', 'id', child.id, at);
    await A.put(`/indexfields/${field.id}/folders/${child.id}`);
    await stamp('folder_index_field', 'created_at', 'field_id', field.id, at);
    await stamp('folder_index_field', 'modified_at', 'field_id', field.id, at);
    const doc = (await A.post('/documents', { folderId: child.id, name: uniq('Valued') })).body.data;
    await A.put(`/documents/${doc.id}/indexfields/${field.id}`, { value: 'v' });
    await stamp('document_index_value', 'modified_at', 'field_id', field.id, at);
    await stamp('document_revision', 'created_at', 'id', doc.id, at);

    const lists: [string, string, string][] = [
      ['/indexfields', `label eq '${field.label}'`, 'createDate'],
      ['/indexfields', `label eq '${field.label}'`, 'modifyDate'],
      [`/folders/${folder.id}/folders`, `name eq '${child.name}'`, 'createDate'],
      [`/folders/${folder.id}/folders`, `name eq '${child.name}'`, 'modifyDate'],
      [`/folders/${child.id}/indexfields`, `label eq '${field.label}'`, 'createDate'],
      [`/folders/${child.id}/indexfields`, `label eq '${field.label}'`, 'modifyDate'],
      [`/documents/${doc.documentId}/indexfields`, `label eq '${field.label}'`, 'createDate'],
      [`/documents/${doc.documentId}/indexfields`, `label eq '${field.label}'`, 'modifyDate'],
    ];
    for (const [path, narrow, date] of lists) {
      const [record] = (await A.get(`${path}?${q(narrow)}`)).body.data as Record<string, string>[];
      expect([path, date, record[date]]).toEqual([path, date, shown]);
      const found = async (cond: string) => [path, cond, (await names(path, `${narrow} and ${cond}`)).length];
      expect(await found(`${date} eq '${shown}'`)).toEqual([path, `${date} eq '${shown}'`, 1]);
      expect(await found(`${date} le '${shown}'`)).toEqual([path, `${date} le '${shown}'`, 1]);
      expect(await found(`${date} gt '${shown}'`)).toEqual([path, `${date} gt '${shown}'`, 0]);
      expect(await found(`${date} between '${shown}' and '${shown}'`)).toEqual([path, `${date} between '${shown}' and '${shown}'`, 1]);
    }
  });
});
