/**
 * A tenant's API clients as the CLI lists and revokes them (`quire client list`, `client
 * revoke`): a client whose secret leaked, or that is no longer used, is revoked rather than
 * deleted, so that what it did stays attributable. A revoked client authenticates nothing (the
 * token endpoint reads only clients without `revoked_at`, and a refresh checks its client under a
 * lock that waits for a revocation in progress), and its refresh tokens are revoked with it; access
 * tokens it already got are refused by the session check (src/read/rows.ts SessionCheck).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { isoText as iso } from '../db/clock.js';
import { notFound } from '../errors.js';

export interface ListedClient {
  clientId: string;
  name: string;
  /** The user a client_credentials grant acts as. */
  userid: string;
  createdAt: string;
  revokedAt: string | null;
}

export async function listApiClients(em: EntityManager, tenantId: string): Promise<ListedClient[]> {
  const rows = await em.getConnection().execute<{ id: string; name: string; userid: string | null; created_at: string; revoked_at: string | null }[]>(
    `select c.id, c.name, u.user_id as userid, ${iso('c.created_at')} as created_at, ${iso('c.revoked_at')} as revoked_at
       from api_client c left join app_user u on u.tenant_id = c.tenant_id and u.id = c.user_id
      where c.tenant_id = ? order by c.created_at, c.id`,
    [tenantId],
  );
  return rows.map((r) => ({ clientId: r.id, name: r.name, userid: r.userid ?? '', createdAt: r.created_at, revokedAt: r.revoked_at }));
}

export interface RevokedClient {
  clientId: string;
  revokedAt: string;
  /** Refresh tokens of the client that this revocation ended (0 when it had been revoked before). */
  refreshTokensRevoked: number;
}

/** Revokes the client `clientId` of the tenant and its refresh tokens, in one transaction; again, it changes nothing. */
export async function revokeApiClient(em: EntityManager, tenantId: string, clientId: string): Promise<RevokedClient> {
  return em.transactional(async (tx) => {
    const c = tx.getConnection();
    const ctx = tx.getTransactionContext();
    const found = await c.execute<{ revoked_at: string; was: boolean }[]>(
      `update api_client n set revoked_at = coalesce(o.revoked_at, now()) from api_client o
        where n.tenant_id = ? and n.id = ? and o.tenant_id = n.tenant_id and o.id = n.id
        returning ${iso('n.revoked_at')} as revoked_at, o.revoked_at is not null as was`,
      [tenantId, clientId],
      'all',
      ctx,
    );
    if (found.length === 0) throw notFound(`no API client '${clientId}' in this tenant (quire client list shows them)`);
    const ended = found[0].was
      ? 0
      : (await c.execute<{ n: number }[]>(
          'with r as (update refresh_token set revoked_at = now() where tenant_id = ? and client_id = ? and revoked_at is null returning 1) select count(*)::int as n from r',
          [tenantId, clientId],
          'all',
          ctx,
        ))[0].n;
    return { clientId, revokedAt: found[0].revoked_at, refreshTokensRevoked: ended };
  });
}
