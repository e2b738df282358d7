/**
 * One tenant of realistic size: the Home site plus 5 sites, 200 groups (Administrators plus 199),
 * 1000 users besides the admin, every group with exactly 10 members. Everything past
 * createTenant() is bulk SQL (one statement per table, arrays through unnest).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createTenant, type CreatedTenant } from '../src/domain/tenants.js';
import { newId } from '../src/ids.js';

export const SEED = { extraSites: 5, groups: 200, users: 1000, membersPerGroup: 10 } as const;

export interface Seeded extends CreatedTenant {
  password: string;
  /** `/api/v1/{customer}/{database}` */
  root: string;
  siteIds: string[];
  /** The site the by-id read asks for (not the Home site). */
  probeSiteId: string;
  groupCount: number;
  membershipCount: number;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

export async function seed(orm: MikroORM, url: string): Promise<Seeded> {
  const password = `bench-${randomUUID()}`;
  const t = await createTenant(orm.em, { customer: 'bench', database: 'main', admin: 'admin', password });

  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('begin');
    const siteIds = [t.homeSiteId];
    const sites = Array.from({ length: SEED.extraSites }, (_, i) => ({ id: newId(), name: `Site ${pad(i + 1, 2)}` }));
    siteIds.push(...sites.map((s) => s.id));
    await c.query(
      `insert into site (id, tenant_id, name, description, site_type)
         select s.id, $1, s.name, 'Benchmark site ' || s.name, 'Location' from unnest($2::uuid[], $3::text[]) as s(id, name)`,
      [t.tenantId, sites.map((s) => s.id), sites.map((s) => s.name)],
    );

    const users = Array.from({ length: SEED.users }, (_, i) => ({
      id: newId(),
      siteId: siteIds[i % siteIds.length],
      userid: `user${pad(i + 1, 4)}`,
      first: `First${i + 1}`,
      last: `Last${i + 1}`,
    }));
    await c.query(
      `insert into app_user (id, tenant_id, site_id, user_id, name, first_name, last_name, email_address, password_hash)
         select u.id, $1, u.site_id, u.userid, u.userid, u.first, u.last, u.userid || '@bench.example',
                (select password_hash from app_user where id = $2)
           from unnest($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[]) as u(id, site_id, userid, first, last)`,
      [
        t.tenantId,
        t.adminId,
        users.map((u) => u.id),
        users.map((u) => u.siteId),
        users.map((u) => u.userid),
        users.map((u) => u.first),
        users.map((u) => u.last),
      ],
    );

    // createTenant made `Administrators`; add the rest so the tenant has exactly SEED.groups.
    const groups = Array.from({ length: SEED.groups - 1 }, (_, i) => ({
      id: newId(),
      siteId: siteIds[i % siteIds.length],
      name: `Group ${pad(i + 1, 3)}`,
    }));
    await c.query(
      `insert into user_group (id, tenant_id, site_id, name, description)
         select g.id, $1, g.site_id, g.name, 'Benchmark group ' || g.name from unnest($2::uuid[], $3::uuid[], $4::text[]) as g(id, site_id, name)`,
      [t.tenantId, groups.map((g) => g.id), groups.map((g) => g.siteId), groups.map((g) => g.name)],
    );

    // Group i takes users 10i .. 10i+9 (wrapping), so every user is in two groups.
    const memberGroup: string[] = [];
    const memberUser: string[] = [];
    groups.forEach((g, i) => {
      for (let k = 0; k < SEED.membersPerGroup; k++) {
        memberGroup.push(g.id);
        memberUser.push(users[(i * SEED.membersPerGroup + k) % users.length].id);
      }
    });
    // Administrators already holds the admin: top it up to the same size.
    const adminGroup = await c.query<{ id: string }>(`select id from user_group where tenant_id = $1 and name = 'Administrators'`, [t.tenantId]);
    for (let k = 0; k < SEED.membersPerGroup - 1; k++) {
      memberGroup.push(adminGroup.rows[0].id);
      memberUser.push(users[users.length - 1 - k].id);
    }
    await c.query(
      `insert into group_member (group_id, user_id, tenant_id) select m.g, m.u, $1 from unnest($2::uuid[], $3::uuid[]) as m(g, u)`,
      [t.tenantId, memberGroup, memberUser],
    );
    await c.query('commit');
    await c.query('analyze');

    const counts = await c.query<{ groups: string; members: string; users: string; sites: string }>(
      `select (select count(*) from user_group where tenant_id = $1) as groups,
              (select count(*) from group_member where tenant_id = $1) as members,
              (select count(*) from app_user where tenant_id = $1) as users,
              (select count(*) from site where tenant_id = $1) as sites`,
      [t.tenantId],
    );
    const n = counts.rows[0];
    return {
      ...t,
      password,
      root: `/api/v1/${t.customerAlias}/${t.databaseAlias}`,
      siteIds,
      probeSiteId: siteIds[3],
      groupCount: Number(n.groups),
      membershipCount: Number(n.members),
    };
  } catch (e) {
    await c.query('rollback').catch(() => undefined);
    throw e;
  } finally {
    await c.end();
  }
}
