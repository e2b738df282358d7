/** A tenant for a server process: made straight in its database, as the CLI makes one, its administrator logged in over HTTP. */
import { randomUUID } from 'node:crypto';
import { initOrm } from '../src/db/orm.js';
import { createTenant } from '../src/domain/tenants.js';
import type { Started } from './server-process.js';

export interface ServerTenant {
  tenantId: string;
  /** Its REST root, `/api/v1/{customer}/{database}`. */
  root: string;
  /** Its administrator's bearer token. */
  token: string;
}

/** A fresh tenant (customer `${prefix}` and a random suffix) in `databaseUrl`, the database `s` serves. */
export async function serverTenant(s: Started, databaseUrl: string, prefix: string): Promise<ServerTenant> {
  const orm = await initOrm(databaseUrl, 1);
  const password = `pw-${randomUUID()}`;
  const t = await createTenant(orm.em, { customer: `${prefix}${randomUUID().slice(0, 8)}`, database: 'db', admin: 'admin', password });
  await orm.close(true);
  const form = new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username: 'admin', password });
  const r = await fetch(`http://127.0.0.1:${s.port}/oauth/token`, { method: 'POST', body: form });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${await r.text()}`);
  const token = ((await r.json()) as { access_token: string }).access_token;
  return { tenantId: t.tenantId, root: `/api/v1/${t.customerAlias}/${t.databaseAlias}`, token };
}
