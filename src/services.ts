/** The long-lived parts every request shares, built once from the config and the database. */
import type { Database } from './db/database.js';
import type { Config } from './config.js';
import type { Services } from './context.js';
import { loadKeyRing } from './auth/keys.js';
import { loadKek } from './auth/kek.js';
import type { Logger } from './log.js';
import { TenantDirectory } from './tenancy/tenant-directory.js';
import { createFileStore } from './storage/index.js';
import { BodyBudget } from './body-budget.js';
import { ConnectionLimits } from './connection-limits.js';
import { trustList } from './addresses.js';
import { tokenBodyBytes } from './rest/body-limit.js';

export async function createServices(config: Config, { orm, reads }: Pick<Database, 'orm' | 'reads'>, log: Logger): Promise<Services> {
  const em = orm.em.fork({ useContext: false });
  return {
    config,
    orm,
    reads,
    log,
    keys: await loadKeyRing(em, await loadKek(config)),
    jwt: { issuer: config.jwtIssuer, audience: config.jwtAudience, ttlSeconds: config.accessTokenTtlSeconds },
    tenants: new TenantDirectory(orm.em.fork({ useContext: false })),
    files: createFileStore(config),
    bodies: new BodyBudget({
      bytes: config.bodyMemoryBytes,
      tenantBytes: config.bodyMemoryTenantBytes,
      tokenBodyBytes: tokenBodyBytes(config),
      graceSeconds: config.bodyGraceSeconds,
      minBytesPerSecond: config.bodyMinBytesPerSecond,
    }),
    connections: new ConnectionLimits({ max: config.maxConnections, perAddress: config.maxConnectionsPerAddress, proxies: trustList(config.trustedProxies) }, log),
    ownUrl: config.publicUrl,
  };
}
