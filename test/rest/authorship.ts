/**
 * The check the authorship tests share (test/rest/authorship.test.ts over the route table,
 * test/graphql/authorship.test.ts over the mutations /graphql alone serves): a write called by a
 * second administrator of tenant A, on the records of test/rest/route-fixture.ts (the first
 * administrator's), names its caller on the rows of its records' table it made or changed, and
 * dates the rows it changed anew, whoever stamped them last.
 */
import { getNamedType, type GraphQLField } from 'graphql';
import type { ResourceDef } from '../../src/read/define.js';
import { resources } from '../../src/read/registry.js';
import { isPageType } from '../../src/schema-conventions.js';
import { createUser, type Api } from './support.js';
import { A, h } from './route-fixture.js';

/** At a test file's top, after setUpRouteFixture: a second administrator of tenant A, and its calls, made before the tests. */
export function secondAdministrator(): () => { id: string; api: Api } {
  let author: { id: string; api: Api };
  beforeAll(async () => {
    const u = await createUser(A);
    const admins = (await A.get(`/groups?q=${encodeURIComponent("name eq 'Administrators'")}`)).body.data[0].id;
    expect((await A.put(`/groups/${admins}/users/${u.id}`)).status).toBe(201);
    author = { id: u.id, api: A.as(await h.login(A.t, u.userid, u.password)) };
  });
  return () => author;
}

/** The definition of the records a root field answers (a page's items), if one has them. */
export function recordsOf(field: GraphQLField<unknown, unknown>): ResourceDef | undefined {
  const named = getNamedType(field.type);
  const type = isPageType(named) ? getNamedType(named.getFields().items.type) : named;
  return resources.find((d) => d.typeName === type.name);
}

/** Audited tables (and views) by name: the columns they have of the stamps, and their primary key (none for a view). */
export type Audited = Map<string, { columns: Set<string>; key: string[] }>;

/** The tables (and views) that keep a row's maker. */
export async function auditedTables(): Promise<Audited> {
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
 * Every row of tenant A in the audited tables (a view's through its tables) as `by`'s change of an
 * hour back. Stamped by the fixture's administrator, a write that changes a row without stamping it
 * leaves another changer or an older date than its caller's, whichever write stamped the row before;
 * stamped by the caller, a write that sets only the changer it already has (a change of the record's
 * parts) leaves the row unchanged unless it also sets the date.
 */
async function stampAll(tables: Audited, by: string) {
  for (const [table, { columns, key }] of tables) {
    if (!key.length) continue;
    const set = columns.has('modified_at') ? ["modified_at = now() - interval '1 hour'"] : [];
    const values = [A.t.tenantId];
    if (columns.has('modified_by_id')) set.push(`modified_by_id = $${values.push(by)}`);
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

/** What a write answered (its records), or why it failed. */
export type Outcome = { data: unknown } | { refusal: string };

/** A write the check calls: its label, the definition of the records it answers, and the call. */
export interface Write {
  at: string;
  def: ResourceDef;
  call: () => Promise<Outcome>;
  /** Puts its record in a state the call changes (UNDONE_FIRST), before the rows are stamped. */
  before?: () => Promise<void>;
  /** It answers no records (a REST row of shape 'none'): every row of the table it changed is checked. */
  everyChanged?: boolean;
}

/** The fix a fault names: for a refused call, and for a call that made or changed none of its records. */
export interface Fix {
  refused: string;
  unchanged: string;
}

/**
 * The faults of `w` called by `authorId` on the audited rows stamped by `stamper` (see stampAll),
 * and whether it changed rows that were there: each row of its records' table it made that does not
 * name the caller as maker and changer, and each it changed among the records it answered that
 * does not keep its maker or name the caller as changer with a new date; its refusal, or that it
 * made or changed none, with what to `fix`.
 */
async function faultsOnce(w: Write, audited: Audited, authorId: string, stamper: string, fix: Fix) {
  const { columns, key } = audited.get(w.def.table)!;
  await w.before?.();
  await stampAll(audited, stamper);
  const before = await rowsOf(w.def, key);
  const done = await w.call();
  const stamped = stamper === authorId ? ' (rows last stamped by the caller)' : ' (called again, rows last stamped by the first administrator)';
  if ('refusal' in done) return { faults: [`${done.refusal.slice(0, 400)}${stamped}: ${fix.refused}`], changedAny: false };
  const answered = w.everyChanged ? undefined : new Set([done.data].flat().map((rec) => String((rec as Record<string, unknown>)[w.def.idField])));
  const faults: string[] = [];
  let checked = 0;
  let changedAny = false;
  for (const [k, row] of await rowsOf(w.def, key)) {
    const was = before.get(k);
    if (was?.json === row.json || (was && answered && !answered.has(row.record))) continue;
    checked++;
    changedAny ||= !!was;
    const which = `${w.at}${stamped}: ${w.def.table} ${row.record}, ${was ? 'changed' : 'made'} by the caller,`;
    if (!was && row.createdBy !== authorId) faults.push(`${which} names ${row.createdBy} as its maker`);
    if (was && row.createdBy !== was.createdBy) faults.push(`${which} changed its maker from ${was.createdBy} to ${row.createdBy}`);
    if (columns.has('modified_by_id') && row.modifiedBy !== authorId) faults.push(`${which} names ${row.modifiedBy} as its changer`);
    if (was && columns.has('modified_at') && row.modifiedAt === was.modifiedAt) faults.push(`${which} kept its modified date`);
  }
  // A write that made or changed none of its records checked nothing.
  return { faults: checked ? faults : [`${w.at}${stamped} made or changed none of its ${w.def.table} records, so nothing was checked: ${fix.unchanged}`], changedAny };
}

/**
 * The faults of `w` called by `authorId` on records last stamped by the caller itself (a write
 * that dates a change only through a new changer keeps the old date), then, if it changed records
 * that were there, called again on records last stamped by the fixture's administrator (a write
 * that forgets its changer leaves the old one). The second call alone could not catch the first
 * fault, nor the first the second: an update through the unit of work dates every row it writes.
 * A write that only makes rows is checked once: a row it makes has no stamp before.
 */
export async function authorshipFaults(w: Write, audited: Audited, authorId: string, fix: Fix): Promise<string[]> {
  const bySelf = await faultsOnce(w, audited, authorId, authorId, fix);
  return bySelf.changedAny ? [...bySelf.faults, ...(await faultsOnce(w, audited, authorId, A.t.adminId, fix)).faults] : bySelf.faults;
}
