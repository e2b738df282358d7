/**
 * POST /oauth/token (any case, base or tenant-scoped). The body is read as a form whatever the
 * Content-Type says (two clients label it JSON); a real JSON object is accepted too. Failures
 * carry both the OAuth keys clients test (`error`, `error_description`) and the envelope's meta.
 */
import type { Services } from '../context.js';
import { grant, OAuthError } from '../auth/grants.js';
import { parseForm, readBody, refuseNul } from './body.js';
import { jsonResponse, statusMsg } from './envelope.js';
import { requestIdOf } from './request-id.js';
import { publicUrlOf } from './public-url.js';
import type { Match } from './match.js';

export async function handleToken(services: Services, request: Request, m: Match): Promise<Response> {
  const text = (await readBody(request, services.config.maxBodyBytes)).trim();
  let params: Record<string, unknown>;
  try {
    params = text.startsWith('{') ? JSON.parse(text) : parseForm(text);
  } catch {
    params = parseForm(text);
  }
  const p: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(params ?? {})) p[k.toLowerCase()] = flat(Array.isArray(v) ? v[0] : v);

  const ip = (request.headers.get('x-forwarded-for') ?? '').split(',')[0].trim();
  try {
    // The shared NUL check, answered in OAuth's own terms.
    try {
      refuseNul(p, 'token request');
    } catch (e) {
      throw new OAuthError(400, 'invalid_request', (e as Error).message);
    }
    const tenantId = m.tenant ? await scopedTenantId(services, m.tenant) : undefined;
    const token = await grant(services, p, tenantId, ip);
    return jsonResponse(200, token, { 'cache-control': 'no-store', pragma: 'no-cache', 'x-request-id': requestIdOf(request) });
  } catch (e) {
    if (!(e instanceof OAuthError)) throw e;
    const meta = {
      status: e.status,
      statusMsg: statusMsg(e.status),
      method: request.method,
      href: publicUrlOf(request),
      errors: [{ code: e.error, message: e.description, developerMessage: e.description }],
    };
    return jsonResponse(e.status, { error: e.error, error_description: e.description, meta }, { 'cache-control': 'no-store', 'x-request-id': requestIdOf(request) });
  }
}

/** The tenant of a scoped token address. An unknown one answers as a client of another tenant does (OAuth body, 401). */
async function scopedTenantId(services: Services, tenant: NonNullable<Match['tenant']>): Promise<string> {
  const t = await services.tenants.byAliases(tenant.customerAlias, tenant.databaseAlias);
  if (!t) throw new OAuthError(401, 'invalid_client', 'Invalid client credentials: unknown client_id or wrong client_secret.');
  return t.id;
}

/** A token parameter is text; a JSON object or nested array in its place counts as missing. */
function flat(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
}
