/**
 * Resolves `{customeralias}/{databasealias}` to a tenant id. Tenants are created rarely and never
 * renamed, so hits are cached for the life of the process; misses always ask the database
 * (a tenant created by the CLI in another process is found at once).
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface TenantRef {
  id: string;
  customerAlias: string;
  databaseAlias: string;
}

export class TenantDirectory {
  private readonly cache = new Map<string, TenantRef>();
  private readonly idCache = new Map<string, TenantRef>();

  constructor(private readonly em: EntityManager) {}

  async byAliases(customerAlias: string, databaseAlias: string): Promise<TenantRef | undefined> {
    const key = `${customerAlias.toLowerCase()}/${databaseAlias.toLowerCase()}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const rows = await this.em.getConnection().execute<{ id: string; c: string; d: string }[]>(
      `select d.id, c.alias as c, d.alias as d from customer_database d join customer c on c.id = d.customer_id
        where lower(c.alias) = lower(?) and lower(d.alias) = lower(?)`,
      [customerAlias, databaseAlias],
    );
    if (rows.length === 0) return undefined;
    return this.remember(key, { id: rows[0].id, customerAlias: rows[0].c, databaseAlias: rows[0].d });
  }

  /** A tenant already looked up by this process, without waiting for anything. */
  cachedById(id: string): TenantRef | undefined {
    return this.idCache.get(id);
  }

  async byId(id: string): Promise<TenantRef | undefined> {
    const hit = this.idCache.get(id);
    if (hit) return hit;
    const rows = await this.em.getConnection().execute<{ id: string; c: string; d: string }[]>(
      `select d.id, c.alias as c, d.alias as d from customer_database d join customer c on c.id = d.customer_id where d.id = ?`,
      [id],
    );
    if (rows.length === 0) return undefined;
    const ref = { id: rows[0].id, customerAlias: rows[0].c, databaseAlias: rows[0].d };
    return this.remember(`${ref.customerAlias.toLowerCase()}/${ref.databaseAlias.toLowerCase()}`, ref);
  }

  private remember(key: string, ref: TenantRef): TenantRef {
    this.cache.set(key, ref);
    this.idCache.set(ref.id, ref);
    return ref;
  }
}
