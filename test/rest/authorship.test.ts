/**
 * Generated from the route table and the definitions: every POST and PUT answering records of a
 * table that keeps who made its rows (`created_by_id`, and `modified_by_id` where it has one)
 * records its caller there. Called by a second administrator (the first made every record of
 * test/rest/route-fixture.ts), each row the call made names the caller as its maker and changer,
 * and each record it answers that it changed names the caller as its changer, with a new modified
 * date, and keeps its maker. Before each call the tenant's rows are put back to the first
 * administrator's change of an hour back, so a write that changes a row without stamping it fails
 * whatever write stamped that row before it. Rows changed beside the answer (a renamed folder's
 * descendants' paths) are derived, not the caller's edit. A body whose input takes a file is sent
 * multipart with one, as the clients send it (the designer's XML for an import). A new route row
 * or resource is covered with no new test code.
 */
import { getNamedType } from 'graphql';
import type { ResourceDef } from '../../src/read/define.js';
import { resources } from '../../src/read/registry.js';
import type { SofaRoute } from '../../src/rest/routes.js';
import { isPageType } from '../../src/schema-conventions.js';
import type { Reply } from '../harness.js';
import { createUser, uniq, type Api } from './support.js';
import { A, bodyOf, create, fieldOf, h, label, pathOf, send, setUpRouteFixture, tenantRoutes } from './route-fixture.js';

setUpRouteFixture('authorship');

/**
 * Writes that put a record in a state the fixture's is in already (a field its folder has, a
 * document in its own folder, a checked-in document checked in), so their call alone would change
 * nothing: before each, the fixture's administrator puts that record in another state, which the
 * write then changes back.
 */
const UNDONE_FIRST: Record<string, (r: SofaRoute) => Promise<Reply>> = {
  // Its DELETE's path names the same field and folder.
  'PUT /indexfields/:id/folders/:folderId': () => A.del(pathOf(tenantRoutes.find((r) => r.field === 'Mutation.removeFolderIndexField')!)),
  'PUT /documents/:documentId/move': async (r) => A.put(pathOf(r), { folderId: (await A.post('/folders', { name: uniq('elsewhere') })).body.data.id }),
  'PUT /documents/:documentId/status': (r) => A.put(pathOf(r), { checkIn: 1 }),
};

/** A second administrator of tenant A, and its calls. */
let author: { id: string; api: Api };
beforeAll(async () => {
  const u = await createUser(A);
  const admins = (await A.get(`/groups?q=${encodeURIComponent("name eq 'Administrators'")}`)).body.data[0].id;
  expect((await A.put(`/groups/${admins}/users/${u.id}`)).status).toBe(201);
  author = { id: u.id, api: A.as(await h.login(A.t, u.userid, u.password)) };
});

/** The definition of the records a row answers (a page's items), if one has them. */
function recordsOf(r: SofaRoute): ResourceDef | undefined {
  const named = getNamedType(fieldOf(h.app.schema, r).type);
  const type = isPageType(named) ? getNamedType(named.getFields().items.type) : named;
  return resources.find((d) => d.typeName === type.name);
}

/** Audited tables (and views) by name: the columns they have of the stamps, and their primary key (none for a view). */
type Audited = Map<string, { columns: Set<string>; key: string[] }>;

/** The tables (and views) that keep a row's maker. */
async function auditedTables(): Promise<Audited> {
  const { rows } = await h.services.reads.query<{ table_name: string; columns: string[]; key: string[] | null }>(
    `select c.table_name, array_agg(c.column_name::text) as columns,
            (select array_agg(a.attname::text order by a.attnum) from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
              where i.indrelid = c.table_name::regclass and i.indisprimary) as key
       from information_schema.columns c
      where c.table_schema = current_schema() and c.column_name in ('created_by_id', 'modified_by_id', 'modified_at') group by c.table_name`,
  );
  return new Map(rows.filter((r) => r.columns.includes('created_by_id')).map((r) => [r.table_name, { columns: new Set(r.columns), key: r.key ?? [] }]));
}

/**
 * Every row of tenant A in the audited tables (a view's through its tables) as the fixture's
 * administrator's change of an hour back: a write that changes a row without stamping it then
 * leaves another changer or an older date than its caller's, whichever write stamped the row before.
 */
async function stampedByFixture(tables: Audited) {
  for (const [table, { columns, key }] of tables) {
    if (!key.length) continue;
    const set = columns.has('modified_at') ? ["modified_at = now() - interval '1 hour'"] : [];
    const values = [A.t.tenantId];
    if (columns.has('modified_by_id')) set.push(`modified_by_id = $${values.push(A.t.adminId)}`);
    if (set.length) await h.services.reads.query(`update ${table} set ${set.join(', ')} where tenant_id = $1`, values);
  }
}

interface AuditedRow {
  /** The record's id as the definition names it (a form's is its current revision's). */
  record: string;
  json: string;
  createdBy: string | null;
  modifiedBy: string | null;
  modifiedAt: string | null;
}

/** The tenant's rows of the table, by its primary key (a view's by the record's id). */
async function rowsOf(def: ResourceDef, key: string[]): Promise<Map<string, AuditedRow>> {
  const record = `(${def.fields[def.idField].sql})::text`;
  const { rows } = await h.services.reads.query<AuditedRow & { key: string }>(
    `select ${key.length ? `concat_ws(' ', ${key.map((k) => `t.${k}`).join(', ')})` : record} as key, ${record} as record, row_to_json(t)::text as json,
            t.created_by_id as "createdBy", to_jsonb(t) ->> 'modified_by_id' as "modifiedBy", to_jsonb(t) ->> 'modified_at' as "modifiedAt"
       from ${def.table} t where t.tenant_id = $1`,
    [A.t.tenantId],
  );
  return new Map(rows.map(({ key, ...row }) => [key, row]));
}

/** The write `r` as the author: its records, or why it failed. A create learns its body's mandatory keys as the fixture's do. */
async function write(r: SofaRoute): Promise<{ data: unknown } | { refusal: string }> {
  if (r.method === 'POST' && r.body) return create(r, author.api).then((data) => ({ data }), (e: Error) => ({ refusal: e.message }));
  // Values of its own where values are unique (names, labels), as create's are.
  const body = bodyOf(r) && Object.fromEntries(Object.entries(bodyOf(r)!).map(([k, v]) => [k, v === 'conformance' ? uniq('conformance') : v]));
  const reply = await send(author.api, r, body);
  return reply.status === (r.status ?? 200) ? { data: reply.body.data } : { refusal: `${label(r)} answered ${reply.status} ${reply.text}` };
}

test('every write answering records that keep their authors records its caller: maker of what it made, changer of what it changed', async () => {
  const audited = await auditedTables();
  const writes = tenantRoutes.filter((r) => (r.method === 'POST' || r.method === 'PUT') && audited.has(recordsOf(r)?.table ?? ''));
  const faults: string[] = [];
  const unchanged: string[] = [];
  for (const r of writes) {
    const def = recordsOf(r)!;
    const { columns, key } = audited.get(def.table)!;
    const undo = UNDONE_FIRST[label(r)];
    if (undo) expect([label(r), (await undo(r)).status]).toEqual([label(r), 200]);
    await stampedByFixture(audited);
    const before = await rowsOf(def, key);
    const done = await write(r);
    if ('refusal' in done) {
      faults.push(`${done.refusal.slice(0, 400)}: give its body what it needs in test/rest/route-fixture.ts`);
      continue;
    }
    // The records answered (none on a row of shape 'none': then every row it changed).
    const answered = r.shape === 'none' ? undefined : new Set([done.data].flat().map((rec) => String((rec as Record<string, unknown>)[def.idField])));
    let checked = 0;
    for (const [k, row] of await rowsOf(def, key)) {
      const was = before.get(k);
      if (was?.json === row.json || (was && answered && !answered.has(row.record))) continue;
      checked++;
      const at = `${label(r)}: ${def.table} ${row.record}, ${was ? 'changed' : 'made'} by the caller,`;
      if (!was && row.createdBy !== author.id) faults.push(`${at} names ${row.createdBy} as its maker`);
      if (was && row.createdBy !== was.createdBy) faults.push(`${at} changed its maker from ${was.createdBy} to ${row.createdBy}`);
      if (columns.has('modified_by_id') && row.modifiedBy !== author.id) faults.push(`${at} names ${row.modifiedBy} as its changer`);
      if (was && columns.has('modified_at') && row.modifiedAt === was.modifiedAt) faults.push(`${at} kept its modified date`);
    }
    if (!checked) unchanged.push(label(r));
  }
  expect(faults).toEqual([]);
  // A write that made or changed none of its records checked nothing: its body needs more, or its record another state first (UNDONE_FIRST).
  expect(unchanged).toEqual([]);
  expect(writes.length).toBeGreaterThan(25);
  // One whose route no longer answers such records leaves the list.
  expect(Object.keys(UNDONE_FIRST).filter((l) => !writes.some((w) => label(w) === l))).toEqual([]);
});
