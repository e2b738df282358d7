/**
 * Every list read of every resource definition (src/resources/, discovered: a new resource, root
 * list, parent scope or to-many relation is checked with no edit here) comes in its `order` from
 * an index: the statement the reader really builds for a page (tenant condition, row rules, the
 * parent condition; no `q`, so the definition's order) is EXPLAINed with sorting and whole-table
 * reads shut off. A Sort or Incremental Sort in its plan means no index gives that order: each
 * page would read and sort every row it picks from. (An index in the order that does not lead
 * with the parent still passes: PostgreSQL can walk the tenant's rows in order, keeping the parent's.)
 */
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import type { ResourceDef } from '../../src/read/define.js';
import { resource, resources } from '../../src/read/registry.js';
import { listQuery, underParent, underRelation } from '../../src/read/resolvers.js';
import { selectStatement, SessionCheck, type Reader } from '../../src/read/rows.js';
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
  /** The condition "under this parent", if any. */
  parent?: Sql;
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
      if (read.op === 'list') out.push({ def, name: `${def.typeName} Query.${field}`, parent: read.parent && underParent(def, read.parent, randomUUID()) });
    }
    for (const [name, rel] of Object.entries(def.relations ?? {})) {
      if (rel.kind !== 'one') out.push({ def: resource(rel.target), name: `${rel.target} ${def.typeName}.${name}`, parent: underRelation(def, name, randomUUID()) });
    }
  }
  return out;
}

/** document_index_field is a view (migrations/Migration20261129000000_index_field_create_date.ts). */
const FIELDS_VIEW =
  'a view of a revision joined to its folder\'s index fields: the parent (the revision) and the order (the fields\' position) are columns of two tables, so PostgreSQL sorts the revision\'s fields (one folder\'s, a few dozen)';

/** Reads no index can serve in order, and why. */
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
  const reader: Reader = { pool: h.services.reads, tenantId: randomUUID(), session: Object.assign(new SessionCheck(randomUUID(), 0), { confirmed: true }) };
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
      const query = { ...listQuery(read.def, read.parent ? [read.parent] : []), ...page };
      const { text, values } = statement(selectStatement(reader, read.def, query).query);
      const [{ 'QUERY PLAN': plan }] = (await c.query(`explain (format json) ${text}`, values)).rows;
      const problem = sortsOf(plan[0].Plan);
      if (problem) problems[read.name] = `order by ${read.def.order}: ${problem}`;
    }
  } finally {
    await c.query('rollback');
    c.release();
  }
  expect(Object.fromEntries(Object.entries(problems).filter(([name]) => !(name in UNSERVED)))).toEqual({});
  // An exception whose read is served now (or names no read) is stale.
  expect(Object.keys(UNSERVED).filter((name) => !(name in problems))).toEqual([]);
});
