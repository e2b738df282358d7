/**
 * On the very first start (no tenant at all) create `demo`/`main` and print its credentials once.
 * They go to stdout for the person starting the service, never to the structured log.
 */
import { UniqueConstraintViolationException, type MikroORM } from '@mikro-orm/postgresql';
import { randomSecret } from './auth/passwords.js';
import { createTenant, type CreatedTenant } from './domain/tenants.js';

export async function ensureDemoTenant(orm: MikroORM, baseUrl: string): Promise<CreatedTenant | undefined> {
  const rows = await orm.em.getConnection().execute<{ n: string }[]>('select count(*) as n from customer_database');
  if (Number(rows[0].n) > 0) return undefined;
  const password = randomSecret(12);
  // Processes started together on an empty database all get here: the one whose insert wins
  // creates the tenant, the others meet its unique key and start without printing anything.
  const t = await createTenant(orm.em, { customer: 'demo', database: 'main', admin: 'admin', password }).catch((e: unknown) => {
    if (e instanceof UniqueConstraintViolationException) return undefined;
    throw e;
  });
  if (!t) return undefined;
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
