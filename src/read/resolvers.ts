/**
 * The resolvers a definition implies: href, dataType and relations on its GraphQL type, and its
 * declared root reads (list, get, under a parent) with their 404s.
 */
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { Config } from '../config.js';
import { AppError, notFound } from '../errors.js';
import { ZERO_GUID } from '../ids.js';
import { compileQText } from '../query/index.js';
import type { ParentScope, Relation, ResourceDef, RootRead } from './define.js';
import { queryFieldMap } from './fields.js';
import { paging, type ListArgs } from './paging.js';
import { resource, resources } from './registry.js';
import type { Loaders, RelationQ } from './loaders.js';
import { underParent } from './parent-keys.js';
import { countRows, idOf, listedOf, run, selectRows, type Reader, type RowQuery } from './rows.js';
import { raw, sql, type Sql } from '../sql.js';

type Row = Record<string, unknown>;
type Args = Record<string, unknown>;

/** What the read resolvers use of a request's context (src/context.ts's AppContext has it). */
export interface ReadContext {
  reader: Reader;
  loaders: Loaders;
  tenantId: string;
  caller: { userId: string };
  services: { config: Config };
}

type Resolver = (parent: unknown, args: Args, ctx: ReadContext) => unknown;

/** A page whose items and total are computed only when selected (see src/schema.ts). */
export interface Page<T> {
  /** `info`: the items field's, telling which of the records' fields are selected. */
  items: (info?: GraphQLResolveInfo) => Promise<T[]>;
  totalRecords: () => Promise<number>;
}

/** Whether a selection may ask for the field `name` (a fragment spread may: it counts as yes). */
export function selectionMayAsk(set: SelectionSetNode | undefined, name: string): boolean {
  return !!set?.selections.some((s) => (s.kind === Kind.FIELD ? s.name.value === name : s.kind === Kind.INLINE_FRAGMENT ? selectionMayAsk(s.selectionSet, name) : true));
}

/** Whether the selection of `info`'s field may ask for `name`. */
const mayAsk = (info: GraphQLResolveInfo, name: string): boolean => info.fieldNodes.some((n) => selectionMayAsk(n.selectionSet, name));

/** The key an id names: the all-zero GUID names the caller where the definition says so (users). */
export const idKey = (ctx: ReadContext, def: ResourceDef, id: string): string => (def.zeroIdIsCaller && id === ZERO_GUID ? ctx.caller.userId : id.toLowerCase());

/** One record by id (`idKey`), or a 404 naming it. */
export function loadRow(ctx: ReadContext, def: ResourceDef, id: string): Promise<Row> {
  const key = idKey(ctx, def, id);
  return ctx.loaders.byId(def).load(key).then((row) => {
    if (!row) throw notFound(`${def.label} '${id}' was not found.`);
    return row;
  });
}

/**
 * loadRow for a write that adds to the row or links to it (a member, a supervisor, a relation):
 * read afresh and held against its delete to the end of the mutation (RowQuery.lock 'keyShare').
 * A delete committed first is the 404 an unknown id gets, not the foreign key's, and one begun later waits.
 * `field`: the body's key that sent the id (its 404 names it, AppError), for a row the write refers to.
 */
export async function heldRow(ctx: ReadContext, def: ResourceDef, id: string, field?: string): Promise<Row> {
  const key = idKey(ctx, def, id);
  const [row] = await selectRows<Row>(ctx.reader, def, { where: [sql`${idOf(def)} = ${key}`], lock: 'keyShare' });
  if (!row) throw notFound(`${def.label} '${id}' was not found.`, { field });
  return row;
}

/** A fresh read of one record (after a write: the request's loaders may hold the old row). */
export async function reread(ctx: ReadContext, def: ResourceDef, id: string): Promise<Row> {
  const [row] = await selectRows<Row>(ctx.reader, def, { where: [sql`${idOf(def)} = ${id}`] });
  if (!row) throw notFound(`${def.label} '${id}' was not found.`);
  return row;
}

/** A page of the tenant's rows matching `where` and the client's `q` (over `fields`), in the definition's order. */
export function listPage(
  ctx: ReadContext,
  def: ResourceDef,
  args: ListArgs,
  where: Sql[] = [],
  fields = queryFieldMap(def),
  /** A table joined to the rows (`from`) and an order of its own instead of the definition's. */
  within: Pick<RowQuery, 'from' | 'order'> = {},
): Page<Row> {
  const { limit, offset } = paging(ctx.services.config, args);
  const q = compileQText(args.q ?? undefined, fields);
  const list = listQuery(def, where, within);
  const r: RowQuery = { ...list, where: [...list.where!, ...(q ? [q] : [])] };
  return {
    items: (info) => selectRows<Row>(ctx.reader, def, { ...r, limit, offset, withoutDynamic: !!def.dynamic && !!info && !mayAsk(info, def.dynamic.field) }),
    totalRecords: () => countRows(ctx.reader, def, r),
  };
}

/** The rows of a list page (listPage, before its limit): `where` and the definition's listed condition, in its order or `within`'s. */
export function listQuery(def: ResourceDef, where: Sql[], within: Pick<RowQuery, 'from' | 'order'> = {}): RowQuery {
  return { from: within.from, where: [...where, ...listedOf(def)], order: within.order ?? def.order };
}

async function assertUnderParent(ctx: ReadContext, def: ResourceDef, scope: ParentScope, parent: Row, row: Row, asked: string) {
  const parentDef = resource(scope.resource);
  const parentId = parent[parentDef.idField] as string;
  let inside: boolean;
  if ('field' in scope) {
    inside = row[scope.field] === parentId;
  } else {
    const l = scope.link;
    const hit = await run(ctx.reader, sql`select 1 from ${raw(l.table)} where tenant_id = ${ctx.tenantId} and ${raw(l.from)} = ${parentId} and ${raw(l.to)} = ${row[def.idField]}`);
    inside = hit.length > 0;
  }
  if (inside) return;
  const where = 'notInParent' in scope && scope.notInParent
    ? `${scope.notInParent} '${(parent.name as string | undefined) ?? parentId}'`
    : `was not found in ${parentDef.label.toLowerCase()} '${parentId}'`;
  throw notFound(`${def.label} '${asked}' ${where}.`);
}

function rootRead(def: ResourceDef, read: RootRead): Resolver {
  const parentOf = (ctx: ReadContext, args: Args) => (read.parent ? loadRow(ctx, resource(read.parent.resource), args[read.parent.arg] as string) : undefined);
  if (read.op === 'list') {
    if (!read.parent) return (_, args, ctx) => listPage(ctx, def, args);
    const scope = read.parent;
    return async (_, args, ctx) => {
      const parent = (await parentOf(ctx, args))!;
      return listPage(ctx, def, args, [underParent(def, scope, parent[resource(scope.resource).idField] as string)]);
    };
  }
  const arg = read.arg ?? 'id';
  if (!read.parent) return async (_, args, ctx) => matchingQ(ctx, def, await loadRow(ctx, def, args[arg] as string), args.q, args[arg] as string);
  const scope = read.parent;
  return async (_, args, ctx) => {
    const parent = (await parentOf(ctx, args))!;
    const row = await loadRow(ctx, def, args[arg] as string);
    await assertUnderParent(ctx, def, scope, parent, row, args[arg] as string);
    return matchingQ(ctx, def, row, args.q, args[arg] as string);
  };
}

/**
 * A read by id with a `q` (the spec's `GET groups/{id}?q=`): the record when it matches, else a
 * 404 saying so; a bad `q` is a 400 as on lists. No `q`, no statement.
 */
export async function matchingQ(ctx: ReadContext, def: ResourceDef, row: Row, q: unknown, asked: string): Promise<Row> {
  if (typeof q !== 'string' || q.trim() === '') return row;
  const condition = compileQText(q, queryFieldMap(def))!;
  const [hit] = await selectRows<Row>(ctx.reader, def, { where: [sql`${idOf(def)} = ${row[def.idField] as string}`, condition] });
  if (!hit) throw notFound(`${def.label} '${asked}' does not match the query (q).`);
  return row;
}

/** The href template as a function of a record: `~/formtemplates/{templateId}/forms/{revisionId}`. */
export function hrefOf(template: string): (r: Row) => string {
  const parts = template.split(/\{(\w+)\}/);
  return (r) => parts.map((p, i) => (i % 2 ? String(r[p]) : p)).join('');
}

/** The field of a to-many relation's page type (`users`: `usersPage`), its rows with their total. */
export const relationPageField = (relation: string): string => `${relation}Page`;

/**
 * A to-many relation's loader for the page and `q` its field's arguments ask (`make`). A refusal
 * (a bad `q`, `limit` or `offset`: the 400 a root list's is) names the argument as sent on that
 * field (`extensions.field`: `q`, `limit`, `offset`), as a root list's does, its error's path
 * saying which field: placed here, where it is raised, since `withFieldPaths` (src/field-paths.ts)
 * wraps root fields only and the relation resolvers are the reads' hot path.
 */
function relationLoader<T>(make: () => T): T {
  try {
    return make();
  } catch (err) {
    if (err instanceof AppError) err.fieldPath ??= err.field;
    throw err;
  }
}

const qText = (q: unknown): string => (typeof q === 'string' ? q : '');

function typeResolvers(def: ResourceDef): Record<string, Resolver> {
  const href = hrefOf(def.href);
  const out: Record<string, Resolver> = {
    dataType: () => def.dataType,
    href: (r) => href(r as Row),
  };
  for (const [name, rel] of Object.entries(def.relations ?? {})) {
    if (rel.kind === 'one') {
      const target = resource(rel.target);
      out[name] = (r, _, ctx) => {
        const id = (r as Row)[rel.key] as string | null;
        return id && id !== ZERO_GUID ? ctx.loaders.byKey(target, rel.targetKey ?? target.idField).load(id).then((row) => row ?? null) : null;
      };
    } else {
      Object.assign(out, relationResolvers(def, name));
    }
  }
  return out;
}

/**
 * The resolvers of a to-many relation `name` and of its page (`usersPage`). Paged like a list read
 * (DEFAULT_PAGE_SIZE, at most MAX_PAGE_SIZE): no relation reads a whole tenant; filtered as the
 * target's root list is (its fields), or, with `fields`, as each parent's root list of them is
 * (src/resolvers/ passes it where the names depend on the parent), or as `fields.filter` makes it of
 * each batch (where they depend on the row).
 */
export function relationResolvers(def: ResourceDef, name: string, fields?: RelationQ): Record<string, Resolver> {
  const rel = def.relations![name] as Extract<Relation, { kind: 'many' | 'through' }>;
  const key = rel.parentKey ?? def.idField;
  return {
    [name]: (r, args, ctx) => relationLoader(() => ctx.loaders.many(def, name, paging(ctx.services.config, args), qText(args.q), fields)).load((r as Row)[key] as string),
    // The same page with its total: one statement, which serves the list too where both are selected alike (Loaders.many).
    [relationPageField(name)]: (r, args, ctx): Page<Row> => {
      const page = relationLoader(() => ctx.loaders.counted(def, name, paging(ctx.services.config, args), qText(args.q), fields)).load((r as Row)[key] as string);
      return { items: () => page.then((p) => p.items), totalRecords: () => page.then((p) => p.total) };
    },
  };
}

/** Every definition's resolvers, to merge with the hand-written ones of src/resolvers/. */
export function generatedResolvers(): Record<string, Record<string, Resolver>> {
  const out: Record<string, Record<string, Resolver>> = { Query: {} };
  for (const def of resources) {
    out[def.typeName] = typeResolvers(def);
    for (const [field, read] of Object.entries(def.queries ?? {})) out.Query[field] = rootRead(def, read);
  }
  return out;
}
