/**
 * DataLoaders, one set per request: every relation of a page of N parents costs one SQL
 * statement per relation, never N. Membership relations join in SQL so they stay one statement.
 */
import DataLoader from 'dataloader';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName } from '@mikro-orm/core';
import { Group, Site, User } from '../entities/index.js';
import { TENANT_FILTER } from '../entities/tenant-filter.js';

function byId<T extends { id: string }>(em: EntityManager, entity: EntityName<T>) {
  return new DataLoader<string, T | undefined>(async (ids) => {
    const rows = (await em.find(entity, { id: { $in: [...ids] } } as never)) as T[];
    const map = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => map.get(id));
  });
}

function groupBy<T>(keys: readonly string[], rows: T[], keyOf: (r: T) => string): T[][] {
  const map = new Map<string, T[]>();
  for (const r of rows) {
    const k = keyOf(r);
    const list = map.get(k);
    if (list) list.push(r);
    else map.set(k, [r]);
  }
  return keys.map((k) => map.get(k) ?? []);
}

function byParent<T>(em: EntityManager, entity: EntityName<T>, parentKey: keyof T & string, orderBy: string) {
  return new DataLoader<string, T[]>(async (ids) => {
    const rows = (await em.find(entity as never, { [parentKey]: { $in: [...ids] } } as never, {
      orderBy: { [orderBy]: 'asc' } as never,
    })) as T[];
    return groupBy(ids, rows, (r) => r[parentKey] as string);
  });
}

/** A link table row names a target row (`target` column) for a parent (`parent` column). */
interface Link {
  table: string;
  target: string;
  parent: string;
}

/** Rows of `entity` reached through a link table, batched by the link's parent column: one statement. */
const linkSql = new Map<string, string>();

function sqlThrough(em: EntityManager, entity: EntityName<unknown>, link: Link, orderBy: string): string {
  const meta = em.getMetadata().get(entity as never) as { tableName: string; props: { fieldNames?: string[]; lazy?: boolean }[] };
  const key = `${meta.tableName}|${link.table}|${link.target}|${link.parent}|${orderBy}`;
  let sql = linkSql.get(key);
  if (!sql) {
    const columns = meta.props
      .filter((p) => p.fieldNames?.length && !p.lazy)
      .map((p) => `t.${p.fieldNames![0]}`)
      .join(', ');
    sql = `select ${columns}, l.${link.parent} as link_parent
        from ${meta.tableName} t join ${link.table} l on l.${link.target} = t.id and l.tenant_id = t.tenant_id
       where l.tenant_id = ? and l.${link.parent} = any(array[?]::uuid[])
       order by t.${orderBy}`;
    linkSql.set(key, sql);
  }
  return sql;
}

function through<T extends object>(em: EntityManager, entity: EntityName<T>, link: Link, orderBy: string) {
  const sql = sqlThrough(em, entity as EntityName<unknown>, link, orderBy);
  return new DataLoader<string, T[]>(async (ids) => {
    const tenantId = (em.getFilterParams(TENANT_FILTER) as { id: string }).id;
    const rows = await em.getConnection().execute<Record<string, unknown>[]>(sql, [tenantId, [...ids]]);
    const mapped = rows.map((r) => ({ parent: r.link_parent as string, entity: em.map(entity as never, r as never) as T }));
    return groupBy(ids, mapped, (r) => r.parent).map((list) => list.map((r) => r.entity));
  });
}

const MEMBER_USERS: Link = { table: 'group_member', target: 'user_id', parent: 'group_id' };
const MEMBER_GROUPS: Link = { table: 'group_member', target: 'group_id', parent: 'user_id' };
const SUPERVISORS: Link = { table: 'user_supervisor', target: 'supervisor_id', parent: 'user_id' };
const SUPERVISEES: Link = { table: 'user_supervisor', target: 'user_id', parent: 'supervisor_id' };

const factories = {
  site: (em: EntityManager) => byId(em, Site),
  group: (em: EntityManager) => byId(em, Group),
  user: (em: EntityManager) => byId(em, User),
  groupsBySite: (em: EntityManager) => byParent(em, Group, 'siteId', 'name'),
  usersBySite: (em: EntityManager) => byParent(em, User, 'siteId', 'userId'),
  usersByGroup: (em: EntityManager) => through(em, User, MEMBER_USERS, 'user_id'),
  groupsByUser: (em: EntityManager) => through(em, Group, MEMBER_GROUPS, 'name'),
  supervisorsByUser: (em: EntityManager) => through(em, User, SUPERVISORS, 'user_id'),
  superviseesByUser: (em: EntityManager) => through(em, User, SUPERVISEES, 'user_id'),
};

export type Loaders = { readonly [K in keyof typeof factories]: ReturnType<(typeof factories)[K]> };

/** Loaders are made on first use: most requests touch one or two of them. */
export function createLoaders(em: EntityManager): Loaders {
  const made: Partial<Record<keyof Loaders, unknown>> = {};
  const loaders = {} as Loaders;
  for (const key of Object.keys(factories) as (keyof Loaders)[]) {
    Object.defineProperty(loaders, key, { get: () => (made[key] ??= factories[key](em)) });
  }
  return loaders;
}
