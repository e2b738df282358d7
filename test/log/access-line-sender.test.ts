/**
 * The access line (src/plugins/use-request-log.ts) names who sent the request, against the real
 * server: its verified token's tenant and user ids on REST and /graphql, neither when there is no
 * valid token.
 */
import { randomUUID } from 'node:crypto';
import { startServer, stop, waitFor, type Started } from '../server-process.js';
import { serverTenant, type ServerTenant } from '../server-tenant.js';

let s: Started;
let tenant: ServerTenant;
let userId = '';

beforeAll(async () => {
  s = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL! });
  tenant = await serverTenant(s, process.env.QUIRE_TEST_DATABASE_URL!, 'accessline');
  userId = (JSON.parse(Buffer.from(tenant.token.split('.')[1], 'base64url').toString()) as { sub: string }).sub;
}, 60_000);
afterAll(async () => {
  if (s?.child.exitCode === null) await stop(s);
});

/** Sends the request, and gives back its status and its access line, parsed. */
async function accessLine(path: string, init: RequestInit = {}): Promise<{ status: number; line: Record<string, unknown> }> {
  const id = randomUUID();
  const r = await fetch(`http://127.0.0.1:${s.port}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-request-id': id } });
  await r.arrayBuffer();
  const [line] = await waitFor(s.child, s.stdout, new RegExp(`^.*"requestId":"${id}".*"msg":"request".*$`, 'm'), 5000);
  return { status: r.status, line: JSON.parse(line) as Record<string, unknown> };
}

const bearer = () => ({ authorization: `Bearer ${tenant.token}` });
const graphql = (headers: Record<string, string>) => ({ method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });

test('a REST request with a valid token: its line carries the tenant and user ids, never the token', async () => {
  const { status, line } = await accessLine(`${tenant.root}/sites`, { headers: bearer() });
  expect(status).toBe(200);
  expect(line).toMatchObject({ msg: 'request', status: 200, tenantId: tenant.tenantId, userId });
  expect(JSON.stringify(line)).not.toContain(tenant.token);
});

test('a REST request with a body (its sender checked before its body is read): the same ids', async () => {
  const { status, line } = await accessLine(`${tenant.root}/sites`, { method: 'POST', headers: { ...bearer(), 'content-type': 'application/json' }, body: '{}' });
  expect(status).toBe(400);
  expect(line).toMatchObject({ status: 400, tenantId: tenant.tenantId, userId });
});

test('a /graphql request with a valid token: its line carries the tenant and user ids', async () => {
  const { status, line } = await accessLine('/graphql', graphql(bearer()));
  expect(status).toBe(200);
  expect(line).toMatchObject({ path: '/graphql', status: 200, tenantId: tenant.tenantId, userId });
});

test('a token of another customer database (403): its line names the token\'s tenant, so the refusal can be traced', async () => {
  const other = await serverTenant(s, process.env.QUIRE_TEST_DATABASE_URL!, 'accessline');
  const { status, line } = await accessLine(`${other.root}/sites`, { headers: bearer() });
  expect(status).toBe(403);
  expect(line).toMatchObject({ status: 403, tenantId: tenant.tenantId, userId });
});

test.each([
  ['REST, no token', () => accessLine(`${tenant.root}/sites`)],
  ['REST, an invalid token', () => accessLine(`${tenant.root}/sites`, { headers: { authorization: 'Bearer nonsense' } })],
  ['/graphql, no token', () => accessLine('/graphql', graphql({}))],
])('%s (401): its line carries neither id', async (_face, send) => {
  const { status, line } = await send();
  expect(status).toBe(401);
  expect(line).toMatchObject({ msg: 'request', status: 401 });
  expect(line).not.toHaveProperty('tenantId');
  expect(line).not.toHaveProperty('userId');
});

test('the token endpoint and /healthz: neither id', async () => {
  for (const { line } of [await accessLine('/oauth/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'password' }) }), await accessLine('/healthz')]) {
    expect(line).not.toHaveProperty('tenantId');
    expect(line).not.toHaveProperty('userId');
  }
});
