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
import { clientAddressOf } from './client-address.js';
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

  const ip = clientAddressOf(request);
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

const oauthError = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['error', 'error_description', 'meta'],
        properties: { error: { type: 'string' }, error_description: { type: 'string' }, meta: { $ref: '#/components/schemas/Meta' } },
      },
    },
  },
});

/** The endpoint as the OpenAPI document (src/rest/openapi.ts) describes it. */
export const tokenOperation = {
  operationId: 'post_token',
  summary: 'Get an access token',
  description:
    'OAuth 2 token endpoint. The body is read as a form whatever its Content-Type says; a JSON object is accepted too. ' +
    '`password` logs a user in with the API client\'s credentials, `client_credentials` acts as the client\'s own user, ' +
    '`refresh_token` exchanges a refresh token (rotated on use; reusing an old one revokes its family).',
  tags: ['Oauth'],
  requestBody: {
    required: true,
    content: {
      'application/x-www-form-urlencoded': {
        schema: {
          type: 'object',
          required: ['grant_type'],
          properties: {
            grant_type: { type: 'string', enum: ['password', 'client_credentials', 'refresh_token'] },
            client_id: { type: 'string' },
            client_secret: { type: 'string' },
            username: { type: 'string' },
            password: { type: 'string' },
            refresh_token: { type: 'string' },
          },
        },
      },
    },
  },
  responses: {
    '200': {
      description: 'A bearer token and its refresh token',
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['access_token', 'token_type', 'expires_in', 'refresh_token'],
            properties: {
              access_token: { type: 'string' },
              token_type: { type: 'string', enum: ['Bearer'] },
              expires_in: { type: 'integer', description: 'Seconds' },
              refresh_token: { type: 'string' },
            },
          },
        },
      },
    },
    '400': oauthError('invalid_request, invalid_grant or unsupported_grant_type'),
    '401': oauthError('invalid_client'),
    '429': {
      description: 'Too many failed logins for this user: locked out until meta.retryTime',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    },
  },
  security: [],
};
