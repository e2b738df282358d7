/**
 * The caller's address under the real HTTP server: the socket's remote address, and the
 * X-Forwarded-For hop only when the socket is a trusted proxy (here the loopback address the
 * test connects from).
 */
import { randomUUID } from 'node:crypto';
import { startServer, stop, type Started } from './server-process.js';

let s: Started;
let t: { root: string; clientId: string; clientSecret: string };
const PASSWORD = `pw-${randomUUID()}`;

beforeAll(async () => {
  s = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, TRUSTED_PROXIES: '127.0.0.1' });
  const { createTenant } = await import('../src/domain/tenants.js');
  const { initOrm } = await import('../src/db/orm.js');
  const orm = await initOrm(process.env.QUIRE_TEST_DATABASE_URL!, 1);
  const created = await createTenant(orm.em, { customer: `ip${randomUUID().slice(0, 8)}`, database: 'db', admin: 'admin', password: PASSWORD });
  await orm.close(true);
  t = { root: `/api/v1/${created.customerAlias}/${created.databaseAlias}`, clientId: created.clientId, clientSecret: created.clientSecret };
}, 120_000);

afterAll(async () => {
  if (s) await stop(s);
});

async function lastIpAfterLogin(headers: Record<string, string>): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${s.port}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username: 'admin', password: PASSWORD }).toString(),
  });
  const token = ((await res.json()) as { access_token: string }).access_token;
  const me = await fetch(`http://127.0.0.1:${s.port}${t.root}/users/me`, { headers: { authorization: `Bearer ${token}` } });
  return ((await me.json()) as { data: { lastIpAddress: string } }).data.lastIpAddress;
}

test('the socket\'s address, or the trusted proxy\'s X-Forwarded-For hop', async () => {
  expect(await lastIpAfterLogin({})).toBe('127.0.0.1');
  expect(await lastIpAfterLogin({ 'x-forwarded-for': '198.51.100.5, 203.0.113.77' })).toBe('203.0.113.77');
});
