/**
 * On the very first start (no tenant at all) create `demo`/`main` and print its credentials once.
 * They go to stdout for the person starting the service, never to the structured log. Processes
 * starting together on one new database take turns (an advisory lock), so exactly one creates it.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { randomSecret } from './auth/passwords.js';
import { createTenant, type CreatedTenant } from './domain/tenants.js';

export function ensureDemoTenant(orm: MikroORM, baseUrl: string): Promise<CreatedTenant | undefined> {
  return orm.em.fork().transactional(async (em) => {
    const run = <T>(sql: string) => em.getConnection().execute<T[]>(sql, [], 'all', em.getTransactionContext());
    await run(`select pg_advisory_xact_lock(hashtext('quire:first-run'))`);
    const rows = await run<{ n: string }>('select count(*) as n from customer_database');
    return Number(rows[0].n) > 0 ? undefined : createDemoTenant(orm, baseUrl);
  });
}

async function createDemoTenant(orm: MikroORM, baseUrl: string): Promise<CreatedTenant> {
  const password = randomSecret(12);
  const t = await createTenant(orm.em, { customer: 'demo', database: 'main', admin: 'admin', password });
  process.stdout.write(
    [
      '',
      'First start: created the demo tenant. These credentials are shown only this once:',
      `  base URL:       ${baseUrl}/api/v1/${t.customerAlias}/${t.databaseAlias}`,
      `  admin user:     ${t.adminUserId}`,
      `  admin password: ${password}`,
      `  client id:      ${t.clientId}`,
      `  client secret:  ${t.clientSecret}`,
      '',
      '',
    ].join('\n'),
  );
  return t;
}
