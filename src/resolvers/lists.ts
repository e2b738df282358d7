/**
 * Paged lists for root fields: `q` compiled against the data type's own fields, `limit`/`offset`
 * checked and capped, and a page whose items and total are computed only when selected.
 */
import type { EntityName } from '@mikro-orm/core';
import type { GraphQLResolveInfo } from 'graphql';
import type { AppContext } from '../context.js';
import type { Config } from '../config.js';
import { badRequest } from '../errors.js';
import { compileQText } from '../query/index.js';
import type { QueryFieldMap } from '../query/fields.js';
import { dataTypesOf } from './schema-info.js';
import { countRows, selectRows, type Where } from './rows.js';

export interface ListArgs {
  q?: string | null;
  limit?: number | null;
  offset?: number | null;
}

export interface Page<T> {
  items: () => Promise<T[]>;
  totalRecords: () => Promise<number>;
}

/** The page size a request gets: the default when unset, capped at the maximum. */
export function effectiveLimit(config: Pick<Config, 'defaultPageSize' | 'maxPageSize'>, limit: number | null | undefined): number {
  return Math.min(limit ?? config.defaultPageSize, config.maxPageSize);
}

export function paging(ctx: AppContext, args: ListArgs): { limit: number; offset: number } {
  const offset = args.offset ?? 0;
  if (args.limit != null && (!Number.isInteger(args.limit) || args.limit < 0)) {
    throw badRequest(`limit must be a whole number of 0 or more, got ${args.limit}.`);
  }
  if (!Number.isInteger(offset) || offset < 0) throw badRequest(`offset must be a whole number of 0 or more, got ${offset}.`);
  return { limit: effectiveLimit(ctx.services.config, args.limit), offset };
}

/** The `q` field map of a data type: its scalar fields mapped to the entity's columns. */
const fieldMaps = new WeakMap<object, Map<string, QueryFieldMap>>();

export function queryFieldMap(
  ctx: AppContext,
  info: GraphQLResolveInfo,
  typeName: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  entity: EntityName<any>,
  renames: Record<string, string> = {},
): QueryFieldMap {
  let perSchema = fieldMaps.get(info.schema);
  if (!perSchema) fieldMaps.set(info.schema, (perSchema = new Map()));
  const cached = perSchema.get(typeName);
  if (cached) return cached;
  const dt = dataTypesOf(info.schema).byTypeName.get(typeName);
  if (!dt) throw new Error(`${typeName} is not a data type`);
  const meta = ctx.reader.em.getMetadata().get(entity as never);
  const map = new Map<string, { sql: string; type: ReturnType<typeof dt.scalarTypes.get> & string }>();
  for (const [field, type] of dt.scalarTypes) {
    const prop = meta.properties[(renames[field] ?? field) as never] as { fieldNames?: string[] } | undefined;
    if (prop?.fieldNames?.[0]) map.set(field.toLowerCase(), { sql: `t.${prop.fieldNames[0]}`, type });
  }
  perSchema.set(typeName, map);
  return map;
}

export const BY_NAME = 't.name, t.id';
export const BY_USERID = 't.user_id, t.id';

/** A page of `entity` rows matching `where` (plus q) in the tenant, ordered by `orderBy` (SQL on alias t). */
export function listPage<T extends object>(
  ctx: AppContext,
  entity: EntityName<T>,
  fields: QueryFieldMap,
  args: ListArgs,
  where: Where,
  orderBy: string,
): Page<T> {
  const { limit, offset } = paging(ctx, args);
  const q = compileQText(args.q ?? undefined, fields);
  return {
    items: () => selectRows<T>(ctx.reader, entity, { where, q, orderBy, limit, offset }),
    totalRecords: () => countRows(ctx.reader, entity, { where, q }),
  };
}
