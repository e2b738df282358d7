/**
 * Child process: the hand-written baseline. Plain node:http plus a pg Pool, the same SQL the app
 * needs on the same data, and the same JSON envelope, with nothing else: no framework, no
 * GraphQL, no ORM. The tenant is fixed by BENCH_TENANT_ID (the app caches its tenant lookup too).
 *
 *   GET /api/v1/{c}/{d}/sites/{id}                        one query
 *   GET /api/v1/{c}/{d}/groups?limit=N&offset=M[&expand=users,site]
 *                                                         groups page; members joined with users; sites
 *
 * The Authorization header must be present (`Bearer ...`); with BASELINE_VERIFY_JWT=1 the token is
 * also verified like the app does (EdDSA, issuer, audience), to show what authentication costs.
 * Env: DATABASE_URL, BENCH_TENANT_ID, DB_POOL_SIZE (default 10, as the app), BASELINE_VERIFY_JWT.
 */
import http from 'node:http';
import pg from 'pg';
import { serveAsChild } from './child-server.js';
import { importJWK, jwtVerify, type CryptoKey, type JWK } from 'jose';

const ZERO_GUID = '00000000-0000-0000-0000-000000000000';
const url = process.env.DATABASE_URL;
const tenantId = process.env.BENCH_TENANT_ID;
if (!url || !tenantId) throw new Error('baseline: DATABASE_URL and BENCH_TENANT_ID are required');

const pool = new pg.Pool({ connectionString: url, max: Number(process.env.DB_POOL_SIZE || 10) });
// An idle client losing its connection (the database stopping first on Ctrl-C) is not a crash.
pool.on('error', (e) => process.stderr.write(`baseline: idle database client: ${e.message}\n`));
const verifyJwt = process.env.BASELINE_VERIFY_JWT === '1';
const keys = new Map<string, CryptoKey>();

const SITE_ROUTE = /^\/api\/v1\/[^/]+\/[^/]+\/sites\/([0-9a-fA-F-]{36})\/?$/;
const GROUPS_ROUTE = /^\/api\/v1\/[^/]+\/[^/]+\/groups\/?$/;

interface SiteRow {
  id: string;
  name: string;
  description: string;
  site_type: string;
  status: string;
}
interface GroupRow {
  id: string;
  site_id: string | null;
  name: string;
  description: string;
}
interface UserRow {
  group_id: string;
  id: string;
  name: string;
  user_id: string;
  first_name: string;
  middle_initial: string;
  last_name: string;
  password_expires: Date | null;
  user_id_expires: Date | null;
  email_address: string;
  site_id: string;
  user_id_never_expires: boolean;
  password_never_expires: boolean;
  enabled: boolean;
  last_ip_address: string;
  is_vault_access: boolean;
}

const dt = (d: Date | null) => (d ? d.toISOString().slice(0, 23) : null);

const site = (r: SiteRow) => ({
  href: `~/sites/${r.id}`,
  dataType: 'Site',
  id: r.id,
  name: r.name,
  description: r.description,
  siteType: r.site_type,
  status: r.status,
});

const user = (r: UserRow) => ({
  href: `~/users/${r.id}`,
  dataType: 'User',
  id: r.id,
  name: r.name,
  userid: r.user_id,
  firstName: r.first_name,
  middleInitial: r.middle_initial,
  lastName: r.last_name,
  passwordExpires: dt(r.password_expires),
  userIdExpires: dt(r.user_id_expires),
  emailAddress: r.email_address,
  siteId: r.site_id,
  userIdNeverExpires: r.user_id_never_expires,
  passwordNeverExpires: r.password_never_expires,
  enabled: r.enabled,
  lastIpAddress: r.last_ip_address,
  isVaultAccess: r.is_vault_access,
});

const SITE_COLUMNS = 'id, name, description, site_type, status';

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

const meta = (req: http.IncomingMessage, status: number) => ({
  status,
  statusMsg: http.STATUS_CODES[status],
  method: req.method,
  href: `http://${req.headers.host}${req.url}`,
});

async function authorize(req: http.IncomingMessage): Promise<boolean> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  if (!m) return false;
  if (!verifyJwt) return true;
  try {
    const { payload } = await jwtVerify(
      m[1],
      (header) => {
        const key = header.kid ? keys.get(header.kid) : undefined;
        if (!key) throw new Error('no key');
        return key;
      },
      { issuer: process.env.JWT_ISSUER || 'quire', audience: process.env.JWT_AUDIENCE || 'quire-api', algorithms: ['EdDSA'] },
    );
    return payload.tid === tenantId;
  } catch {
    return false;
  }
}

async function siteById(req: http.IncomingMessage, res: http.ServerResponse, id: string) {
  const { rows } = await pool.query<SiteRow>(`select ${SITE_COLUMNS} from site where tenant_id = $1 and id = $2`, [tenantId, id.toLowerCase()]);
  if (rows.length === 0) return send(res, 404, { meta: { ...meta(req, 404), errors: [{ code: 'NOT_FOUND', message: 'Not found' }] } });
  send(res, 200, { meta: meta(req, 200), data: [site(rows[0])] });
}

async function groups(req: http.IncomingMessage, res: http.ServerResponse, query: URLSearchParams) {
  const limit = Math.min(Number(query.get('limit') ?? 200), 2000);
  const offset = Number(query.get('offset') ?? 0);
  const expand = new Set((query.get('expand') ?? '').toLowerCase().split(','));
  const page = await pool.query<GroupRow>(
    `select id, site_id, name, description from user_group where tenant_id = $1 order by name asc, id asc limit $2 offset $3`,
    [tenantId, limit, offset],
  );
  const groupIds = page.rows.map((g) => g.id);
  const siteIds = [...new Set(page.rows.map((g) => g.site_id).filter((s): s is string => !!s))];
  const [members, sites] = await Promise.all([
    expand.has('users')
      ? pool.query<UserRow>(
          `select m.group_id, u.id, u.name, u.user_id, u.first_name, u.middle_initial, u.last_name, u.password_expires,
                  u.user_id_expires, u.email_address, u.site_id, u.user_id_never_expires, u.password_never_expires,
                  u.enabled, u.last_ip_address, u.is_vault_access
             from app_user u join group_member m on m.user_id = u.id
            where m.tenant_id = $1 and m.group_id = any($2::uuid[]) and u.tenant_id = m.tenant_id
            order by u.user_id`,
          [tenantId, groupIds],
        )
      : undefined,
    expand.has('site')
      ? pool.query<SiteRow>(`select ${SITE_COLUMNS} from site where tenant_id = $1 and id = any($2::uuid[])`, [tenantId, siteIds])
      : undefined,
  ]);
  const usersOf = new Map<string, ReturnType<typeof user>[]>();
  for (const r of members?.rows ?? []) {
    const list = usersOf.get(r.group_id);
    if (list) list.push(user(r));
    else usersOf.set(r.group_id, [user(r)]);
  }
  const siteOf = new Map((sites?.rows ?? []).map((s) => [s.id, site(s)]));
  const data = page.rows.map((g) => {
    const rec: Record<string, unknown> = {
      href: `~/groups/${g.id}`,
      dataType: 'Group',
      id: g.id,
      name: g.name,
      description: g.description,
      siteId: g.site_id ?? ZERO_GUID,
    };
    if (members) rec.users = usersOf.get(g.id) ?? [];
    if (sites) rec.site = g.site_id ? (siteOf.get(g.site_id) ?? null) : null;
    return rec;
  });
  send(res, 200, { meta: meta(req, 200), data });
}

const server = http.createServer((req, res) => {
  const run = async () => {
    const q = req.url!.indexOf('?');
    const pathname = q < 0 ? req.url! : req.url!.slice(0, q);
    if (req.method !== 'GET') return send(res, 405, { meta: meta(req, 405) });
    if (!(await authorize(req))) return send(res, 401, { meta: meta(req, 401) });
    let m: RegExpExecArray | null;
    if ((m = SITE_ROUTE.exec(pathname))) return siteById(req, res, m[1]);
    if (GROUPS_ROUTE.test(pathname)) return groups(req, res, new URLSearchParams(q < 0 ? '' : req.url!.slice(q + 1)));
    send(res, 404, { meta: meta(req, 404) });
  };
  run().catch((e) => {
    process.stderr.write(`baseline: ${e instanceof Error ? e.stack : String(e)}\n`);
    if (!res.headersSent) send(res, 500, { meta: meta(req, 500) });
    else res.destroy();
  });
});
server.keepAliveTimeout = 65_000;

async function main() {
  if (verifyJwt) {
    const { rows } = await pool.query<{ kid: string; public_jwk: JWK }>('select kid, public_jwk from signing_key');
    for (const r of rows) keys.set(r.kid, (await importJWK(r.public_jwk, 'EdDSA')) as CryptoKey);
  }
  await serveAsChild(server, () => pool.end());
}

main().catch((e) => {
  process.stderr.write(`baseline failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
