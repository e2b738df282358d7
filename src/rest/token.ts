/**
 * POST /oauth/token (any case, base or tenant-scoped). The body is read as a form whatever the
 * Content-Type says (two clients label it JSON); a real JSON object is accepted too. Failures
 * carry both the OAuth keys clients test (`error`, `error_description`) and the envelope's meta.
 */
import type { Services } from '../context.js';
import { forbidden } from '../errors.js';
import { grant, OAuthError } from '../auth/grants.js';
import { parseForm, readBody } from './body.js';
import { jsonResponse, statusMsg } from './envelope.js';
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
  for (const [k, v] of Object.entries(params ?? {})) p[k.toLowerCase()] = Array.isArray(v) ? String(v[0]) : v == null ? undefined : String(v);

  let tenantId: string | undefined;
  if (m.tenant) {
    const t = await services.tenants.byAliases(m.tenant.customerAlias, m.tenant.databaseAlias);
    // An unknown tenant and a client of another tenant answer alike: the client cannot log in here.
    if (!t) throw forbidden('These client credentials are not valid for this customer database.');
    tenantId = t.id;
  }
  const ip = (request.headers.get('x-forwarded-for') ?? '').split(',')[0].trim();
  try {
    const token = await grant(services, p, tenantId, ip);
    return jsonResponse(200, token, { 'cache-control': 'no-store', pragma: 'no-cache' });
  } catch (e) {
    if (!(e instanceof OAuthError)) throw e;
    const meta = {
      status: e.status,
      statusMsg: statusMsg(e.status),
      method: request.method,
      href: request.url,
      errors: [{ code: e.error, message: e.description, developerMessage: e.description }],
    };
    return jsonResponse(e.status, { error: e.error, error_description: e.description, meta }, { 'cache-control': 'no-store' });
  }
}
