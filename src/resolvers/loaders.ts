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

/** Rows of `entity` joined through a link table; `parent` is the link column the batch keys on. */
function through<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  sql: (columns: string) => string,
  orderBy: string,
) {
  const meta = em.getMetadata().get(entity as never) as { props: { fieldNames?: string[]; lazy?: boolean }[] };
  const columns = meta.props
    .filter((p) => p.fieldNames?.length && !p.lazy)
    .map((p) => `t.${p.fieldNames![0]}`)
    .join(', ');
  return new DataLoader<string, T[]>(async (ids) => {
    const tenantId = (em.getFilterParams(TENANT_FILTER) as { id: string }).id;
    const rows = await em
      .getConnection()
      .execute<Record<string, unknown>[]>(`${sql(columns)} order by ${orderBy}`, [tenantId, [...ids]]);
    const mapped = rows.map((r) => ({ parent: r.link_parent as string, entity: em.map(entity as never, r as never) as T }));
    return groupBy(ids, mapped, (r) => r.parent).map((list) => list.map((r) => r.entity));
  });
}

export function createLoaders(em: EntityManager) {
  return {
    site: byId(em, Site),
    group: byId(em, Group),
    user: byId(em, User),
    groupsBySite: byParent(em, Group, 'siteId', 'name'),
    usersBySite: byParent(em, User, 'siteId', 'userId'),
    usersByGroup: through(
      em,
      User,
      (c) => `select ${c}, m.group_id as link_parent from app_user t join group_member m on m.user_id = t.id
               where m.tenant_id = ? and m.group_id = any(array[?]::uuid[]) and t.tenant_id = m.tenant_id`,
      't.user_id',
    ),
    groupsByUser: through(
      em,
      Group,
      (c) => `select ${c}, m.user_id as link_parent from user_group t join group_member m on m.group_id = t.id
               where m.tenant_id = ? and m.user_id = any(array[?]::uuid[]) and t.tenant_id = m.tenant_id`,
      't.name',
    ),
    supervisorsByUser: through(
      em,
      User,
      (c) => `select ${c}, s.user_id as link_parent from app_user t join user_supervisor s on s.supervisor_id = t.id
               where s.tenant_id = ? and s.user_id = any(array[?]::uuid[]) and t.tenant_id = s.tenant_id`,
      't.user_id',
    ),
    superviseesByUser: through(
      em,
      User,
      (c) => `select ${c}, s.supervisor_id as link_parent from app_user t join user_supervisor s on s.user_id = t.id
               where s.tenant_id = ? and s.supervisor_id = any(array[?]::uuid[]) and t.tenant_id = s.tenant_id`,
      't.user_id',
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
