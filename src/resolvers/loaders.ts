/**
 * DataLoaders, one set per request: every relation of a page of N parents costs one SQL
 * statement per relation, never N. Membership relations join in SQL so they stay one statement.
 */
import DataLoader from 'dataloader';
import type { EntityName } from '@mikro-orm/core';
import { Group, Site, User } from '../entities/index.js';
import { query, selectRows, sourceOf, type Reader } from './rows.js';
import { BY_NAME, BY_USERID } from './lists.js';


function byId<T extends { id: string }>(ctx: Reader, entity: EntityName<T>) {
  return new DataLoader<string, T | undefined>(async (ids) => {
    const rows = await selectRows<T>(ctx, entity, { where: { sql: 't.id = any(?::uuid[])', params: [[...ids]] } });
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

function byParent<T>(ctx: Reader, entity: EntityName<T>, parentKey: keyof T & string, orderBy: string) {
  const column = () => sourceOf(ctx.em, entity).columns.get(parentKey)!;
  return new DataLoader<string, T[]>(async (ids) => {
    const where = { sql: `${column()} = any(?::uuid[])`, params: [[...ids]] };
    const rows = await selectRows<T>(ctx, entity, { where, orderBy });
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
function through<T extends object>(ctx: Reader, entity: EntityName<T>, link: Link, orderBy: string) {
  return new DataLoader<string, T[]>(async (ids) => {
    const s = sourceOf(ctx.em, entity);
    const sql = `select ${s.select}, l.${link.parent} as "linkParent"
        from ${s.table} t join ${link.table} l on l.${link.target} = t.id and l.tenant_id = t.tenant_id
       where l.tenant_id = ? and l.${link.parent} = any(?::uuid[])
       order by ${orderBy}`;
    // Rows keep their linkParent key: GraphQL reads only the fields it selects, and copying
    // thousands of rows to drop one key cost more than the query.
    const rows = await query<T & { linkParent: string }>(ctx, sql, [ctx.tenantId, [...ids]]);
    return groupBy(ids, rows, (r) => r.linkParent);
  });
}

const MEMBER_USERS: Link = { table: 'group_member', target: 'user_id', parent: 'group_id' };
const MEMBER_GROUPS: Link = { table: 'group_member', target: 'group_id', parent: 'user_id' };
const SUPERVISORS: Link = { table: 'user_supervisor', target: 'supervisor_id', parent: 'user_id' };
const SUPERVISEES: Link = { table: 'user_supervisor', target: 'user_id', parent: 'supervisor_id' };

const factories = {
  site: (c: Reader) => byId(c, Site),
  group: (c: Reader) => byId(c, Group),
  user: (c: Reader) => byId(c, User),
  groupsBySite: (c: Reader) => byParent(c, Group, 'siteId', BY_NAME),
  usersBySite: (c: Reader) => byParent(c, User, 'siteId', BY_USERID),
  usersByGroup: (c: Reader) => through(c, User, MEMBER_USERS, BY_USERID),
  groupsByUser: (c: Reader) => through(c, Group, MEMBER_GROUPS, BY_NAME),
  supervisorsByUser: (c: Reader) => through(c, User, SUPERVISORS, BY_USERID),
  superviseesByUser: (c: Reader) => through(c, User, SUPERVISEES, BY_USERID),
};

type Made = { [K in keyof typeof factories]: ReturnType<(typeof factories)[K]> };
export type Loaders = Readonly<Made>;

/** Loaders are made on first use (most requests touch one or two); the getters live on the prototype. */
class LoaderSet {
  readonly made: Partial<Made> = {};
  constructor(readonly reader: Reader) {}
}
for (const key of Object.keys(factories) as (keyof Made)[]) {
  Object.defineProperty(LoaderSet.prototype, key, {
    get(this: LoaderSet) {
      return (this.made[key] ??= factories[key](this.reader) as never);
    },
  });
}

export function createLoaders(reader: Reader): Loaders {
  return new LoaderSet(reader) as unknown as Loaders;
}
