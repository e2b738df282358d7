/**
 * Every list read of every resource definition (src/resources/, discovered: a new resource, root
 * list, parent scope or to-many relation is checked with no edit here), and the lists src/resolvers/
 * writes by hand (`handReads`: all but a saved search's runs), comes in its `order` from an index: the statement the reader really builds for a page (tenant condition, row rules, the
 * parent condition; no `q`, so the definition's order) is EXPLAINed with sorting and whole-table
 * reads shut off. A Sort or Incremental Sort in its plan means no index gives that order: each
 * page would read and sort every row it picks from.
 *
 * That passes an index in the order that does not lead with the parent: PostgreSQL walks the
 * tenant's rows in order and keeps the parent's, a whole tenant read for a small parent's page.
 * So every read under a parent (a parent scope or a to-many relation) is also held to the
 * catalogue: an index whose keys are the tenant, the parent's column, then the order (for a
 * link table, the parent's column then the rows' ids: the order lies in the rows' own table).
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import type { ResourceDef } from '../../src/read/define.js';
import { resource, resources } from '../../src/read/registry.js';
import { relationKey, scopeKey, underKey, underParent, underRelation, type ParentKey } from '../../src/read/parent-keys.js';
import { listQuery } from '../../src/read/resolvers.js';
import { selectStatement, SessionCheck, type Reader, type RowQuery } from '../../src/read/rows.js';
import { DOCUMENT_ALERTS } from '../../src/resolvers/alert.js';
import { OPENED_ORDERS, openedBy } from '../../src/resolvers/document.js';
import { TOP_FOLDERS } from '../../src/resolvers/folder.js';
import { inScope } from '../../src/resolvers/persisted-data.js';
import { usersFiltered } from '../../src/resolvers/user.js';
import { statement, type Sql } from '../../src/sql.js';
import { Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.stop());

interface ListRead {
  def: ResourceDef;
  /** `Type read`: the root field, or the to-many relation, whose list it is. */
  name: string;
  /** The condition "under this parent", if any, and the parent key it is made from. */
  parent?: Sql;
  key?: ParentKey;
  /** A hand-written read's other conditions, and its join and order. */
  where?: Sql[];
  within?: Pick<RowQuery, 'from' | 'order'>;
}

/**
 * The definitions' list reads: root lists and lists under a parent (`queries`), and the rows of
 * every to-many relation under one parent, as the nested routes list them (a template's forms,
 * a document's revisions). GraphQL's batched relation read ranks several parents' rows at once
 * (`= any(ids)`), which PostgreSQL before 17 cannot take in an index's order: it sorts those parents' rows.
 */
function listReads(): ListRead[] {
  const out: ListRead[] = [];
  for (const def of resources) {
    for (const [field, read] of Object.entries(def.queries ?? {})) {
      if (read.op !== 'list') continue;
      const scoped = read.parent && { parent: underParent(def, read.parent, randomUUID()), key: scopeKey(def, read.parent) };
      out.push({ def, name: `${def.typeName} Query.${field}`, ...scoped });
    }
    for (const [name, rel] of Object.entries(def.relations ?? {})) {
      if (rel.kind !== 'one') out.push({ def: resource(rel.target), name: `${rel.target} ${def.typeName}.${name}`, parent: underRelation(def, name, randomUUID()), key: relationKey(def, name) });
    }
  }
  return [...out, ...handReads()];
}

/**
 * The list reads src/resolvers/ writes by hand, built by the pieces their resolvers build them
 * from. Not here: a saved search's runs, whose conditions the search's own fields make
 * (src/domain/saved-searches.ts).
 */
function handReads(): ListRead[] {
  const [alert, folder, data, user, document] = ['AlertSubscription', 'Folder', 'PersistedData', 'User', 'Document'].map(resource);
  return [
    { def: alert, name: 'AlertSubscription Query.documentAlerts', parent: underKey(DOCUMENT_ALERTS, randomUUID()), key: DOCUMENT_ALERTS },
    { def: folder, name: 'Folder Query.topFolders', where: [TOP_FOLDERS] },
    { def: data, name: 'PersistedData Query.persistedDataList(scope)', where: inScope(1) },
    { def: user, name: 'User Query.users(enabled, isVaultAccess)', where: usersFiltered({ enabled: 'false', isVaultAccess: true }) },
    ...Object.entries(OPENED_ORDERS).map(([field, order]) => ({ def: document, name: `Document Query.${field}`, within: openedBy(randomUUID(), order) })),
  ];
}

/** document_index_field is a view (migrations/Migration20261129000000_index_field_create_date.ts). */
const FIELDS_VIEW =
  'a view of a revision joined to its folder\'s index fields: the parent (the revision) and the order (the fields\' position) are columns of two tables, so PostgreSQL sorts the revision\'s fields (one folder\'s, a few dozen)';

/** Reads no index can serve in order, and why: both tests pass them over, and either names one it finds served. */
const UNSERVED: Record<string, string> = {
  'DocumentIndexField Document.indexFields': FIELDS_VIEW,
  'DocumentIndexField DocumentRevision.indexFields': FIELDS_VIEW,
};

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };
const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)];

/** The Sort and Incremental Sort nodes of a plan, with their keys: '' when there is none. */
function sortsOf(plan: PlanNode): string {
  const sorts = nodesOf(plan).filter((n) => /Sort$/.test(n['Node Type'] as string));
  return sorts.map((n) => `${n['Node Type']} by ${(n['Sort Key'] as string[]).join(', ')}`).join('; ');
}

test('every list read of every resource comes in its order from an index', async () => {
  // A caller whose session is already confirmed: the row rules are in the SQL, as on every read.
  const reader: Reader = { pool: h.services.reads, tenantId: randomUUID(), session: Object.assign(new SessionCheck(randomUUID(), 0, randomUUID()), { confirmed: true }) };
  const page = { limit: loadConfig({}).defaultPageSize, offset: 0 };
  const reads = listReads();
  expect(reads.length).toBeGreaterThan(resources.length);
  const problems: Record<string, string> = {};
  const c = await h.services.reads.connect();
  try {
    await c.query('begin');
    // The tables are small or empty: with these ways shut, the plan shows whether an index can give the order.
    await c.query('set local enable_seqscan = off');
    await c.query('set local enable_sort = off');
    for (const read of reads) {
      const query = { ...listQuery(read.def, [...(read.parent ? [read.parent] : []), ...(read.where ?? [])], read.within), ...page };
      const { text, values } = statement(selectStatement(reader, read.def, query).query);
      const [{ 'QUERY PLAN': plan }] = (await c.query(`explain (format json) ${text}`, values)).rows;
      const problem = sortsOf(plan[0].Plan);
      if (problem) problems[read.name] = `order by ${read.within?.order ?? read.def.order}: ${problem}`;
    }
  } finally {
    await c.query('rollback');
    c.release();
  }
  expect(Object.fromEntries(Object.entries(problems).filter(([name]) => !(name in UNSERVED)))).toEqual({});
  // An exception whose read is served now (or names no read) is stale.
  expect(Object.keys(UNSERVED).filter((name) => !(name in problems))).toEqual([]);
});

/** A key of an index or a term of an order: its expression, normalised (`norm`), and its direction. */
interface Key {
  expr: string;
  desc: boolean;
  nullsFirst: boolean;
}

/**
 * An expression as written in a definition's order (`lower(t.name)`) or as PostgreSQL prints an
 * index key (`lower((name)::text)`, `"position"`, `COALESCE(...)`), in one form: no row alias,
 * quotes, casts, spaces or parentheses around a bare name; lower case.
 */
function norm(expr: string): string {
  let s = expr.toLowerCase().replace(/\bt\./g, '').replace(/"/g, '').replace(/::(character varying|[a-z_]+)/g, '').replace(/\s+/g, '');
  for (let was = ''; was !== s; ) [was, s] = [s, s.replace(/(^|[(,])\(([a-z_0-9]+)\)/g, '$1$2')];
  return s;
}

/** The terms of an ORDER BY: split at top-level commas, each with its direction (NULLS as PostgreSQL defaults them). */
function termsOf(order: string): Key[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < order.length; i++) {
    if (order[i] === '(') depth++;
    else if (order[i] === ')') depth--;
    else if (order[i] === ',' && depth === 0) {
      parts.push(order.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(order.slice(from));
  return parts.map((p) => {
    const [, expr, dir, nulls] = /^\s*(.*?)(?:\s+(asc|desc))?(?:\s+nulls\s+(first|last))?\s*$/i.exec(p)!;
    const desc = dir?.toLowerCase() === 'desc';
    return { expr: norm(expr), desc, nullsFirst: nulls ? nulls.toLowerCase() === 'first' : desc };
  });
}

/** What a read under a parent needs: an index on `table` with keys `fixed` (equal to the statement's values), then `order`. */
interface Need {
  table: string;
  fixed: string[];
  order: Key[];
}

function needOf(def: ResourceDef, key: ParentKey): Need {
  if ('column' in key) {
    const fixed = ['tenant_id', key.column];
    // An order term on a fixed column (a relation ordered by its parent first, for the batched read) orders nothing here.
    return { table: def.table, fixed, order: termsOf(def.order).filter((t) => !fixed.includes(t.expr)) };
  }
  // The rows' order lies in their own table: no one index gives a parent's rows in it, so the
  // link's index gives the parent's ids alone, and PostgreSQL sorts the parent's rows (or walks
  // the tenant's in order, if it reckons that cheaper: the EXPLAIN test's index).
  const l = key.link;
  return { table: l.table, fixed: ['tenant_id', l.from], order: [{ expr: l.to, desc: false, nullsFirst: false }] };
}

const shown = (n: Need) =>
  `${n.table} (${[...n.fixed, ...n.order.map((k) => k.expr + (k.desc ? ' desc' : '') + (k.nullsFirst !== k.desc ? (k.nullsFirst ? ' nulls first' : ' nulls last') : ''))].join(', ')})`;

interface Index {
  table: string;
  keys: Key[];
  /** Its WHERE, normalised ('' for none). */
  where: string;
}

/** Whether `ix` gives `need`: its keys begin with the fixed columns, then the order all as written or all reversed (a backward scan). */
function serves(ix: Index, need: Need): boolean {
  const n = need.fixed.length;
  if (ix.table !== need.table || ix.keys.length < n + need.order.length) return false;
  if (need.fixed.some((c, i) => ix.keys[i].expr !== c)) return false;
  // A partial index serves when the parent's equality implies its WHERE (the parent column not null).
  if (ix.where && ix.where !== `${need.fixed[n - 1]}isnotnull`) return false;
  const flips = need.order.map((k, i) => {
    const x = ix.keys[n + i];
    if (x.expr !== k.expr) return undefined;
    return x.desc === k.desc && x.nullsFirst === k.nullsFirst ? false : x.desc !== k.desc && x.nullsFirst !== k.nullsFirst ? true : undefined;
  });
  return flips.every((f) => f === false) || flips.every((f) => f === true);
}

test('every read under a parent has an index that leads with the tenant and the parent, then the order', async () => {
  // Every valid btree index of the schema, by key (INCLUDE columns are no keys); indoption: 1 DESC, 2 NULLS FIRST.
  const { rows } = await h.services.reads.query<{ table: string; exprs: string[]; options: number[]; where: string | null }>(
    `select c.relname as table,
            array(select pg_get_indexdef(i.indexrelid, k, true) from generate_series(1, i.indnkeyatts) k order by k) as exprs,
            (i.indoption::int2[])[0:i.indnkeyatts - 1] as options, pg_get_expr(i.indpred, i.indrelid, true) as where
       from pg_index i join pg_class c on c.oid = i.indrelid join pg_class ic on ic.oid = i.indexrelid join pg_am am on am.oid = ic.relam
      where c.relnamespace = 'public'::regnamespace and am.amname = 'btree' and i.indisvalid`,
  );
  const indexes: Index[] = rows.map((r) => ({
    table: r.table,
    keys: r.exprs.map((e, k) => ({ expr: norm(e), desc: (r.options[k] & 1) !== 0, nullsFirst: (r.options[k] & 2) !== 0 })),
    where: r.where ? norm(r.where).replace(/^\((.*)\)$/, '$1') : '',
  }));
  const scoped = listReads().filter((r) => r.key);
  expect(scoped.length).toBeGreaterThan(0);
  const problems: Record<string, string> = {};
  for (const read of scoped) {
    const need = needOf(read.def, read.key!);
    if (!indexes.some((ix) => serves(ix, need))) problems[read.name] = `needs an index on ${shown(need)}`;
  }
  expect(Object.fromEntries(Object.entries(problems).filter(([name]) => !(name in UNSERVED)))).toEqual({});
  // An exception this check finds served is stale too.
  expect(Object.keys(UNSERVED).filter((name) => !(name in problems))).toEqual([]);
});
