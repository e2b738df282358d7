/**
 * A new tenant: customer (created on first use), database, the `Home` site, an admin user in it,
 * the `Administrators` group holding that user, and an API client. And the list of tenants.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiClient } from '../entities/auth.js';
import { Customer, CustomerDatabase } from '../entities/customer.js';
import { Group, GroupMember } from '../entities/group.js';
import { Site } from '../entities/site.js';
import { badRequest, conflict } from '../errors.js';
import { newId } from '../ids.js';
import { hashPassword, randomSecret } from '../auth/passwords.js';
import { TENANT_FILTER } from '../db/tenant-filter.js';
import { isoText } from '../db/clock.js';
import { createUser } from './users.js';
import { ADMIN_GROUP } from '../roles.js';

export const HOME_SITE = 'Home';
const ALIAS = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface NewTenant {
  customer: string;
  database: string;
  admin: string;
  password: string;
  email?: string;
}

export interface CreatedTenant {
  customerAlias: string;
  databaseAlias: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  adminUserId: string;
  adminId: string;
  homeSiteId: string;
}

export function checkAlias(alias: string, what: string): string {
  if (!ALIAS.test(alias)) {
    throw badRequest(`The ${what} alias '${alias}' is not valid: use 1-64 letters, digits, '-', '_' or '.'.`);
  }
  return alias;
}

export async function createApiClient(em: EntityManager, tenantId: string, userId: string, name: string) {
  const secret = randomSecret();
  const client = em.create(ApiClient, {
    id: newId(),
    tenantId,
    name,
    secretHash: await hashPassword(secret),
    userId,
  });
  return { client, secret };
}

export async function createTenant(rootEm: EntityManager, t: NewTenant): Promise<CreatedTenant> {
  checkAlias(t.customer, 'customer');
  checkAlias(t.database, 'database');
  const tenantId = newId();
  return rootEm.fork().transactional(async (em) => {
    em.setFilterParams(TENANT_FILTER, { id: tenantId });
    const existing = await em.getConnection().execute<{ id: string; alias: string }[]>(
      'select id, alias from customer where lower(alias) = lower(?) for update',
      [t.customer],
      'all',
      em.getTransactionContext(),
    );
    let customerId = existing[0]?.id;
    if (!customerId) {
      customerId = newId();
      em.create(Customer, { id: customerId, alias: t.customer, name: t.customer });
      await em.flush();
    } else {
      const dup = await em.getConnection().execute(
        'select 1 from customer_database where customer_id = ? and lower(alias) = lower(?)',
        [customerId, t.database],
        'all',
        em.getTransactionContext(),
      );
      if (dup.length) throw conflict(`The database '${t.customer}/${t.database}' already exists.`);
    }
    em.create(CustomerDatabase, { id: tenantId, customerId, alias: t.database, name: t.database });
    // Entities hold plain foreign-key ids, so the unit of work cannot order inserts: flush by level.
    await em.flush();
    const home = em.create(Site, { id: newId(), tenantId, name: HOME_SITE, description: 'Home site' });
    await em.flush();
    const adminUser = await createUser(
      em,
      tenantId,
      home.id,
      { userid: t.admin, firstName: 'Admin', lastName: 'User', emailaddress: t.email ?? '', password: t.password },
    );
    const group = em.create(Group, {
      id: newId(),
      tenantId,
      siteId: home.id,
      name: ADMIN_GROUP,
      description: 'Tenant administrators',
    });
    await em.flush();
    em.create(GroupMember, { groupId: group.id, userId: adminUser.id, tenantId });
    const { client, secret } = await createApiClient(em, tenantId, adminUser.id, 'default');
    await em.flush();
    return {
      customerAlias: existing[0]?.alias ?? t.customer,
      databaseAlias: t.database,
      tenantId,
      clientId: client.id,
      clientSecret: secret,
      adminUserId: adminUser.userId,
      adminId: adminUser.id,
      homeSiteId: home.id,
    };
  });
}

export interface ListedTenant {
  customerAlias: string;
  databaseAlias: string;
  tenantId: string;
  /** Its user accounts, enabled or not. */
  users: number;
  createdAt: string;
}

/** Every tenant, by its aliases (`quire tenant list`). */
export async function listTenants(em: EntityManager): Promise<ListedTenant[]> {
  const rows = await em.getConnection().execute<{ c: string; d: string; id: string; users: number; created_at: string }[]>(
    `select c.alias as c, d.alias as d, d.id, (select count(*)::int from app_user u where u.tenant_id = d.id) as users, ${isoText('d.created_at')} as created_at
       from customer_database d join customer c on c.id = d.customer_id
      order by lower(c.alias), lower(d.alias)`,
  );
  return rows.map((r) => ({ customerAlias: r.c, databaseAlias: r.d, tenantId: r.id, users: r.users, createdAt: r.created_at }));
}
