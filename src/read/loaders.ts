/**
 * DataLoaders, one set per request, made on first use: a page of N parents costs one statement
 * per relation, never N.
 */
import DataLoader from 'dataloader';
import type { ResourceDef } from './define.js';
import { resource } from './registry.js';
import { relationKey } from './parent-keys.js';
import { queryFieldMap } from './fields.js';
import { AppError, badRequest } from '../errors.js';
import { compileQ, parseQ, type QExpr, type QueryFieldMap } from '../query/index.js';
import { listedOf, selectRows, type Reader } from './rows.js';
import { join, MAX_PARAMETERS, raw, sql, type Sql } from '../sql.js';

type Row = Record<string, unknown>;

/** The parent key batched relation rows carry beside their fields (GraphQL reads only what it selects). */
const PARENT = '__parent';

function groupBy(keys: readonly string[], rows: Row[]): Row[][] {
  const map = new Map<string, Row[]>();
  for (const r of rows) {
    const k = r[PARENT] as string;
    const list = map.get(k);
    if (list) list.push(r);
    else map.set(k, [r]);
  }
  return keys.map((k) => map.get(k) ?? []);
}

/** One page of a to-many relation for every parent: how many rows per parent, after how many. */
export interface RelationPage {
  limit: number;
  offset: number;
}

/** A parent's page of a relation and how many of its rows match, over every page. */
export interface CountedPage {
  items: Row[];
  total: number;
}

/** The rank and the parent's count a counted relation row carries (src/read/rows.ts, `perParent`). */
const RANK = '__rank';
const TOTAL = '__total';

/**
 * The `q` field map of each parent of a batch, by parent id, where the names `q` may use depend on
 * the parent: a template's forms have that template's fields (their types, its deleted keys).
 */
export type ParentFieldMaps = (reader: Reader, parentIds: readonly string[]) => Promise<Map<string, QueryFieldMap>>;
/**
 * Or `q` as one filter over a batch's rows, whose fields depend on each row rather than its parent (a
 * form's related forms: each by its own template's fields); a refusal is every parent's of the batch.
 */
export interface RowsFilter {
  filter: (reader: Reader, parentIds: readonly string[], q: string) => Promise<Sql>;
}
export type RelationQ = ParentFieldMaps | RowsFilter;

/** How a batch of parents' rows of a relation are found: `key` (SQL) names the parent of each row. */
interface ParentSide {
  key: string;
  from?: Sql;
}

function parentSide(def: ResourceDef, name: string): ParentSide {
  const parent = relationKey(def, name);
  if ('column' in parent) return { key: `t.${parent.column}` };
  const link = parent.link;
  return { key: `l.${link.from}`, from: raw(` join ${link.table} l on l.tenant_id = t.tenant_id and l.${link.to} = t.id`) };
}

/** Parameters a batch's statement keeps for its own (tenant, parent ids, page) beside its parents' filters. */
const OWN_PARAMETERS = 100;

/** Parents whose rows one statement reads, with their filter (none: every row). */
interface ParentBatch {
  ids: readonly string[];
  filter?: Sql;
}

/**
 * `q` compiled with each parent's fields, for that parent's rows, in batches whose filters fit one
 * statement's parameters: the filter is repeated per parent, and a long `q` (an `in` list of a
 * thousand values) over many parents would pass PostgreSQL's limit. A parent that refuses `q`
 * goes to `refused` and needs no rows.
 */
function perParent(ast: QExpr, ids: readonly string[], key: string, maps: Map<string, QueryFieldMap>, refused: Map<string, Error>): ParentBatch[] {
  const batches: { ids: string[]; parts: Sql[]; values: number }[] = [];
  for (const id of ids) {
    let part: Sql;
    try {
      part = sql`(${raw(key)} = ${id} and ${compileQ(ast, maps.get(id)!)})`;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      err.fieldPath ??= err.field;
      refused.set(id, err);
      continue;
    }
    let last = batches.at(-1);
    if (!last || last.values + part.values.length > MAX_PARAMETERS - OWN_PARAMETERS) batches.push((last = { ids: [], parts: [], values: 0 }));
    last.ids.push(id);
    last.parts.push(part);
    last.values += part.values.length;
  }
  return batches.map((b) => ({ ids: b.ids, filter: sql`(${join(b.parts, ' or ')})` }));
}

/** A read past `Loaders.readAtMost`'s budget: worded for REST's `expand=`, its one user. */
const tooManyRelated = (most: number) =>
  badRequest(`The relations this request expands hold more than ${most} records; one request may read at most ${most} (MAX_QUERY_ROWS). Ask for fewer records (limit) or expand fewer relations.`);

/** The key of a relation's page loader (Loaders.many, or with its total Loaders.counted). */
const pageKey = (def: ResourceDef, name: string, page: RelationPage, q: string, total: boolean) => `${def.typeName}.${name}${total ? '+total' : ''}:${page.limit}:${page.offset}:${q}`;

export class Loaders {
  private readonly made = new Map<string, DataLoader<string, unknown>>();
  /** What the request's relation pages may still read, all together (`readAtMost`). */
  private budget?: { left: number; readonly most: number };

  constructor(readonly reader: Reader) {}

  /**
   * Bounds the rows this request's relation pages read, together: REST's `expand=`, whose pages
   * no read budget counts before they run (src/rest/run-route.ts). Each statement asks for one row
   * more than is left, so a read past the budget holds at most that many before it is refused.
   */
  readAtMost(most: number): void {
    this.budget = { left: most, most };
  }

  /** The request's loader under `key`, made on first use: also for loaders of a resource's own (src/domain/). */
  cached<V>(key: string, make: () => DataLoader<string, V>): DataLoader<string, V> {
    let l = this.made.get(key) as DataLoader<string, V> | undefined;
    if (!l) this.made.set(key, (l = make()) as DataLoader<string, unknown>);
    return l;
  }

  /** Rows by id (lower-case GUIDs). */
  byId(def: ResourceDef): DataLoader<string, Row | undefined> {
    return this.byKey(def, def.idField);
  }

  /** Rows by a unique field holding GUIDs (lower case): the id field, or another key such as a document's own id. */
  byKey(def: ResourceDef, field: string): DataLoader<string, Row | undefined> {
    return this.cached(field === def.idField ? def.typeName : `${def.typeName}#${field}`, () => {
      const f = def.fields[field];
      if (!f) throw new Error(`${def.typeName} has no field ${field}`);
      return new DataLoader(async (ids) => {
        const rows = await selectRows<Row>(this.reader, def, { where: [sql`${raw(f.sql)} = any(${ids}::uuid[])`] });
        const map = new Map(rows.map((r) => [r[field] as string, r]));
        return ids.map((i) => map.get(i));
      });
    });
  }

  /**
   * A page of the rows of a to-many relation, by parent id: one statement per batch of parents.
   * `q` is the client's filter on them, over the target's fields as its root list reads them: its
   * text keys the loader, so fields with different filters never share rows, and it is compiled
   * once, as the loader is made (a bad one throws here), not once per parent. With `fields`, the
   * names depend on the parent: `q` is parsed as the loader is made and compiled per parent, and a
   * parent whose fields refuse it gets that refusal while the others get their rows.
   */
  many(def: ResourceDef, name: string, page: RelationPage, q = '', fields?: RelationQ): DataLoader<string, Row[]> {
    return this.cached(pageKey(def, name, page, q, false), () => {
      const rows = this.relationRows(def, name, page, q, (r) => r, fields);
      return new DataLoader(async (ids) => {
        // The same page with its total asked in this request too (`users` beside `usersPage`, the same
        // limit, offset and q): its one statement serves both (these parents are in its batch, or join it).
        const counted = this.made.get(pageKey(def, name, page, q, true)) as DataLoader<string, CountedPage> | undefined;
        return counted ? (await counted.loadMany(ids)).map((p) => (p instanceof Error ? p : p.items)) : rows(ids);
      });
    });
  }

  /** `many`'s page with each parent's count of the rows matching `q`, from the same one statement. */
  counted(def: ResourceDef, name: string, page: RelationPage, q = '', fields?: RelationQ): DataLoader<string, CountedPage> {
    return this.cached(pageKey(def, name, page, q, true), () =>
      new DataLoader(this.relationRows(def, name, { ...page, total: true }, q, (rows) => ({
        // The first row may be there only to carry the total (a page after it).
        items: rows.filter((r) => Number(r[RANK]) > page.offset && Number(r[RANK]) <= page.offset + page.limit),
        total: rows.length ? Number(rows[0][TOTAL]) : 0,
      }), fields)),
    );
  }

  /** The batch function of a relation's pages (made as its loader is), each parent's rows shaped by `shape`; a parent whose fields refuse `q` gets its refusal. */
  private relationRows<V>(
    def: ResourceDef, name: string, page: RelationPage & { total?: boolean }, q: string, shape: (rows: Row[]) => V, fields?: RelationQ,
  ): (ids: readonly string[]) => Promise<(V | Error)[]> {
    const target = resource(def.relations![name].target);
    const side = parentSide(def, name);
    const ast = q.trim() === '' ? undefined : parseQ(q);
    const condition = ast && !fields ? compileQ(ast, queryFieldMap(target)) : undefined;
    return async (ids) => {
      const refused = new Map<string, Error>();
      const batches = !ast || !fields
        ? [{ ids, filter: condition }]
        : typeof fields === 'function' ? perParent(ast, ids, side.key, await fields(this.reader, ids), refused) : [{ ids, filter: await fields.filter(this.reader, ids, q) }];
      const rows: Row[][] = [];
      for (const batch of batches) {
        const budget = this.budget;
        const got = await selectRows<Row>(this.reader, target, {
          extra: raw(`, ${side.key} as "${PARENT}"`),
          from: side.from,
          where: [sql`${raw(side.key)} = any(${batch.ids}::uuid[])`, ...listedOf(target), ...(batch.filter ? [batch.filter] : [])],
          order: target.order,
          perParent: { key: side.key, ...page },
          ...(budget ? { limit: Math.max(0, budget.left) + 1 } : {}),
        });
        if (budget && (budget.left -= got.length) < 0) throw tooManyRelated(budget.most);
        rows.push(got);
      }
      return groupBy(ids, rows.flat()).map((r, i) => refused.get(ids[i]) ?? shape(r));
    };
  }
}
