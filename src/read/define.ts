/**
 * The shape of a resource definition (one file per resource in src/resources/). A definition
 * says once what every face needs: from it come the select lists, the `q` field maps, loaders,
 * list / get / by-parent resolvers with their 404s, relation resolvers, href and dataType, and
 * /meta's field lists (src/read/).
 */
import { ZERO_GUID } from '../ids.js';
import type { FieldType } from '../query/fields.js';
import type { Sql } from '../sql.js';

export interface FieldDef {
  /** SQL on the row alias `t`: a column, or an expression of columns. Display and `q` both use it. */
  sql: string;
  /** The plain column behind a column field (what keys, joins and parent scopes compare, index-friendly). */
  column?: string;
  type: FieldType;
  /** Returned without `fields=`/`expand=` (and listed by /meta as a default field). */
  default: boolean;
  /** Returned whatever `fields=` names: the fields it names are added to this one. */
  always?: true;
}

interface FieldOptions {
  /** Not a default field: returned only when `fields=` names it or `expand=data` asks for all. */
  expandOnly?: boolean;
  /** Kept when `fields=` names others (the spec's base keys of a form instance). */
  always?: true;
  /** What a NULL reads as (the all-zero GUID for an unset id): shown and filtered alike. */
  nullAs?: string;
}

const castOf: Record<FieldType, string> = { string: 'text', guid: 'uuid', integer: 'bigint', numeric: 'numeric', boolean: 'boolean', datetime: 'timestamp' };

/** `col`, or `coalesce(col, <nullAs>)`: the value a NULL reads (and filters) as. */
const valueOf = (col: string, type: FieldType, nullAs: string | undefined) =>
  nullAs === undefined ? col : `coalesce(${col}, '${nullAs.replace(/'/g, "''")}'::${castOf[type]})`;

export function column(name: string, type: FieldType, o: FieldOptions = {}): FieldDef {
  return { sql: valueOf(`t.${name}`, type, o.nullAs), column: name, type, default: !o.expandOnly, ...(o.always ? { always: true } : {}) };
}

/** A field read from a joined table (`joins` of the definition), by the join's alias. */
export function joined(alias: string, name: string, type: FieldType, o: FieldOptions = {}): FieldDef {
  return { sql: valueOf(`${alias}.${name}`, type, o.nullAs), type, default: !o.expandOnly };
}

/** A computed field: any SQL expression over the row alias `t` and the joins' aliases. */
export function computed(sql: string, type: FieldType, o: Pick<FieldOptions, 'expandOnly'> = {}): FieldDef {
  return { sql, type, default: !o.expandOnly };
}

/**
 * A tenant-owned table joined to every read of the resource (LEFT JOIN, so rows without a match
 * stay): `on` is SQL over `t` and the alias; the tenant condition is added by the read path.
 */
export interface Join {
  table: string;
  on: string;
}

/** The users who made and last changed a row (`created_by_id`, `modified_by_id`), for `auditFields`. */
export const AUDIT_JOINS: Record<string, Join> = {
  cu: { table: 'app_user', on: 'cu.id = t.created_by_id' },
  mu: { table: 'app_user', on: 'mu.id = t.modified_by_id' },
};

/**
 * createDate, modifyDate, createById, modifyById, createBy, modifyBy from a table's
 * created_/modified_ columns; the names need AUDIT_JOINS. An unknown user reads as the
 * all-zero GUID and ''.
 */
export function auditFields(o: Pick<FieldOptions, 'expandOnly'> = {}): Record<string, FieldDef> {
  return {
    createDate: column('created_at', 'datetime', o),
    modifyDate: column('modified_at', 'datetime', o),
    createById: column('created_by_id', 'guid', { ...o, nullAs: ZERO_GUID }),
    modifyById: column('modified_by_id', 'guid', { ...o, nullAs: ZERO_GUID }),
    createBy: joined('cu', 'name', 'string', { ...o, nullAs: '' }),
    modifyBy: joined('mu', 'name', 'string', { ...o, nullAs: '' }),
  };
}

/** The users behind `createById` and `modifyById` (auditFields), for GraphQL: `createByUser`, `modifyByUser`. */
export const AUDIT_RELATIONS = {
  createByUser: { kind: 'one', target: 'User', key: 'createById', graphqlOnly: true },
  modifyByUser: { kind: 'one', target: 'User', key: 'modifyById', graphqlOnly: true },
} as const satisfies Record<string, Relation>;

/** Keys of a JSONB column that `q` may name beside the declared fields (form values). */
export interface DynamicFields {
  column: string;
  type: FieldType;
  /** The GraphQL field (a JSON object) that carries the column; REST spreads its keys into the record. */
  field: string;
  /** A lower-cased copy of the column under a GIN (jsonb_path_ops) index: `key eq 'v'` probes it first. */
  search?: string;
}

/** A link table row joins a parent row (`from` column) to a target row (`to` column, holding the target table's `id`). */
export interface Link {
  table: string;
  from: string;
  to: string;
}

export type Relation = (
  /**
   * The row this one names in `key` (a field of this resource): the target's row whose `targetKey`
   * (a column field, default its id field) holds that value, such as a document by its own id
   * (`documentId`), which is not its id field.
   */
  | { kind: 'one'; target: string; key: string; targetKey?: string }
  /** Rows of `target` whose `column` names this row (its `parentKey` field, default the id field). */
  | { kind: 'many'; target: string; column: string; parentKey?: string }
  /** Rows of `target` reached through a link table (from this row's `parentKey` field, default the id field). */
  | { kind: 'through'; target: string; link: Link; parentKey?: string }
) & {
  /** A GraphQL field only: REST's `expand=` does not offer it (the REST face keeps the relations it always had). */
  graphqlOnly?: true;
};

/**
 * How a child is found under its parent in a nested route (`/sites/{siteId}/users`): a column
 * field of the child naming the parent, or a link table. `arg` is the root field's argument.
 */
export type ParentScope =
  | { resource: string; arg: string; field: string }
  | { resource: string; arg: string; link: Link; notInParent?: string };

/** Root fields whose resolvers the definition generates. */
export type RootRead =
  /** A page of rows (args `q`, `limit`, `offset`), optionally under a parent. */
  | { op: 'list'; parent?: ParentScope }
  /** One row by id (arg `arg`, default `id`), optionally checked to lie under a parent. */
  | { op: 'get'; arg?: string; parent?: ParentScope };

/**
 * A row condition on alias `t` for a caller (the caller's user id, a parameter, or SQL naming
 * users) in a tenant (a parameter: a subquery that names `t` only to find the tenant would run per row).
 */
export type RowRule = (callerId: Sql, tenantId: Sql) => Sql;

export interface ResourceDef {
  /** The legacy `dataType` of its records. */
  dataType: string;
  /** Its GraphQL object type in schema/. */
  typeName: string;
  /** Its table; every resource table is tenant-owned (`tenant_id`). */
  table: string;
  /** Its records' `href`: `{field}` placeholders name fields of the record (`~/sites/{id}`). */
  href: string;
  /** The field that identifies a record (`href` ends with it). */
  idField: string;
  /** What a missing record is called in a 404 ("Site 'x' was not found."). */
  label: string;
  fields: Record<string, FieldDef>;
  /** Tables joined by alias, for `joined` fields. */
  joins?: Record<string, Join>;
  /** ORDER BY of lists: SQL on `t`, matching an index (test/db/list-orders.test.ts checks every list read but a saved search's runs). */
  order: string;
  relations?: Record<string, Relation>;
  dynamic?: DynamicFields;
  queries?: Record<string, RootRead>;
  /**
   * Who may see and who may change rows, for every read (src/read/rows.ts) and the bulk access
   * check (src/permissions/access.ts): 'tenant' is anyone in the tenant, 'admin' a tenant administrator,
   * a `RowRule` the rows it admits, and every row to an administrator.
   */
  access: { see: 'tenant' | RowRule; change: 'tenant' | 'admin' | RowRule };
  /** SQL on `t` that a row must meet to exist at all, for everyone (not expired); the rest wait for the purge. */
  live?: string;
  /**
   * SQL on `t` that a row must meet to appear in lists and to-many relations; a read by id finds
   * it either way (a deleted document stays readable by its id).
   */
  listed?: string;
  /** The all-zero GUID as an id names the caller (users). */
  zeroIdIsCaller?: boolean;
}

export const defineResource = (def: ResourceDef): ResourceDef => def;
