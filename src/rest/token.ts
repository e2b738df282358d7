/**
 * POST /oauth/token (any case, base or tenant-scoped). The body is read as a form whatever the
 * Content-Type says (two clients label it JSON), unless it says multipart; a real JSON object is accepted too. Failures
 * carry both the OAuth keys clients test (`error`, `error_description`) and the envelope's meta.
 */
import { tokenBodyBytes } from './body-limit.js';
import type { Services } from '../context.js';
import { TOKEN_READ_SECONDS, type BodyShare } from '../body-budget.js';
import { grant, isBasic, OAuthError } from '../auth/grants.js';
import { AppError } from '../errors.js';
import type { EnvelopeError } from '../graphql-errors.js';
import { isMultipart, parseForm, parseMultipart, readBody, RepeatedKey, refuseNul, refuseRepeatedKeys, sentMoreThanOnce, withFiles } from './body.js';
import { answeredMethod, jsonResponse, statusMsg } from './envelope.js';
import { numberAsText } from './input.js';
import { requestIdOf } from './request-id.js';
import { clientAddressOf } from './client-address.js';
import { publicUrlOf } from './public-url.js';
import type { Match } from './match.js';

export async function handleToken(services: Services, request: Request, m: Match): Promise<Response> {
  const ip = clientAddressOf(request);
  try {
    const p = await tokenParams(request, tokenBodyBytes(services.config), services.bodies.anonymous);
    if (!p.grant_type) refuseQueryParams(request);
    const tenantId = m.tenant ? await scopedTenantId(services, m.tenant) : undefined;
    const token = await grant(services, p, tenantId, ip, request.headers.get('authorization'));
    return jsonResponse(200, token, { 'cache-control': 'no-store', pragma: 'no-cache', 'x-request-id': requestIdOf(request) });
  } catch (e) {
    if (!(e instanceof OAuthError)) throw e;
    // RFC 6749 5.2: a client that tried the Authorization header is told its scheme with the 401.
    const challenge: Record<string, string> = e.status === 401 && isBasic(request.headers.get('authorization')) ? { 'www-authenticate': 'Basic realm="quire"' } : {};
    return oauthErrorResponse(request, e.status, e.error, [{ code: e.error, message: e.description, developerMessage: e.description }], {}, challenge);
  }
}

/**
 * A token request whose parameters came in the query string: RFC 6749 takes them from the body
 * only, and a secret in a URL is written into access logs on the way. Told so, where it was told
 * that grant_type, which it sent, was missing.
 */
function refuseQueryParams(request: Request): void {
  const sent = [...new URL(request.url).searchParams.keys()].some((key) => PARAMS.has(key.toLowerCase()));
  if (sent) throw new OAuthError(400, 'invalid_request', 'Send the token parameters (grant_type and the rest) in the request body, form-encoded, not in the query string.');
}

/** The parameters a token request takes; each must be one text value (a number is taken as its text). */
const PARAMS = new Set(['grant_type', 'client_id', 'client_secret', 'username', 'password', 'refresh_token']);

/**
 * The body's parameters, keys lower-cased. Its refusals (text that is not UTF-8, JSON that does
 * not parse, a parameter that is not one text value, NUL) are OAuth's `invalid_request`; a body
 * over the limit stays the 413 it is, and one its share of bodies held cannot take the 503 it is
 * (answered with the OAuth keys too: `oauthErrorCode`). That share (`budget`) is the token
 * endpoint's own (src/body-budget.ts): anyone may send one, and a budget anonymous senders
 * could fill would refuse every signed-in caller's body; it has TOKEN_READ_SECONDS to arrive, then is the 408 it is.
 */
async function tokenParams(request: Request, maxBytes: number, budget: BodyShare): Promise<Record<string, string | undefined>> {
  const invalid = (e: unknown) => (e instanceof AppError && e.status === 400 ? new OAuthError(400, 'invalid_request', e.message) : e);
  let params: Record<string, unknown>;
  try {
    // A multipart body as REST reads one (a malformed one says so, not that grant_type is missing).
    params = isMultipart(request.headers.get('content-type'))
      ? await parseMultipart(request, maxBytes, budget).then(({ texts, files }) => withFiles(texts, files))
      : parseParams((await readBody(request, maxBytes, budget)).trim());
  } catch (e) {
    throw invalid(e);
  }
  const p: Record<string, string | undefined> = {};
  const spelled = new Map<string, string>();
  for (const [k, v] of Object.entries(params)) {
    const key = k.toLowerCase();
    // Two spellings of one parameter are one sent twice: which counted was the order's chance.
    const other = spelled.get(key);
    if (other !== undefined && PARAMS.has(key)) {
      throw new OAuthError(400, 'invalid_request', `The parameter '${key}' must be one text value, not sent more than once (as '${other.slice(0, 64)}' and '${k.slice(0, 64)}').`);
    }
    spelled.set(key, k);
    try {
      p[key] = PARAMS.has(key) ? param(k, v) : lenient(v);
    } catch (e) {
      throw invalid(e);
    }
  }
  // The shared NUL check, answered in OAuth's own terms.
  try {
    refuseNul(p, 'token request');
  } catch (e) {
    throw invalid(e);
  }
  return p;
}

/**
 * A form, whatever the Content-Type says (two clients label it JSON); a body that starts as JSON
 * must be a JSON object, no key in it sent twice at any depth (REST's rule, `refuseRepeatedKeys`:
 * JSON.parse would keep the last), answered as a form parameter sent twice is.
 */
function parseParams(text: string): Record<string, unknown> {
  if (!text.startsWith('{') && !text.startsWith('[')) return parseForm(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new OAuthError(400, 'invalid_request', `The request body is not valid JSON: ${(err as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new OAuthError(400, 'invalid_request', 'The request body must be form-encoded (or a JSON object of the parameters).');
  }
  refuseRepeatedKeys(text, value, (repeated) =>
    PARAMS.has(repeated.key.toLowerCase())
      ? new OAuthError(400, 'invalid_request', `The parameter '${repeated.key}' must be one text value, not sent more than once.`)
      : new OAuthError(400, 'invalid_request', sentMoreThanOnce(repeated)),
  );
  return value as Record<string, unknown>;
}

/** A parameter the grants read: one text value, or a 400 saying what it is instead. */
function param(key: string, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return numberAsText(v, key);
  if (typeof v === 'boolean') return String(v);
  const what = v instanceof RepeatedKey ? 'sent more than once' : Array.isArray(v) ? 'a JSON array' : 'a JSON object';
  throw new OAuthError(400, 'invalid_request', `The parameter '${key.slice(0, 64)}' must be one text value, not ${what}.`);
}

/** Other keys (`scope`, `audience`) are not read: taken as they come, a list as its first value. */
function lenient(v: unknown): string | undefined {
  const one = Array.isArray(v) ? v[0] : v;
  if (typeof one === 'string') return one;
  return typeof one === 'number' || typeof one === 'boolean' ? String(one) : undefined;
}

/** Whether a path is the token endpoint's (`/oauth/token`, or under a tenant's root), in any case. */
export function isTokenPath(url: URL): boolean {
  const s = url.pathname.toLowerCase().split('/').filter(Boolean);
  const n = s.length;
  return n >= 2 && s[n - 2] === 'oauth' && s[n - 1] === 'token' && (n === 2 || (n === 6 && s[0] === 'api' && s[1] === 'v1'));
}

/**
 * The OAuth error code for an answer of the token endpoint that no grant gave (a body over the
 * limit, NUL in the path, the database away, too many failures), so that every error it answers
 * carries `error` and `error_description`.
 */
export function oauthErrorCode(status: number): string {
  if (status === 401) return 'invalid_client';
  if (status === 429 || status === 503) return 'temporarily_unavailable';
  return status >= 500 ? 'server_error' : 'invalid_request';
}

/** An error of the token endpoint: the OAuth keys clients test, and the envelope's meta. */
export function oauthErrorResponse(request: Request, status: number, error: string, errors: EnvelopeError[], metaExtra: Record<string, unknown>, headers: Record<string, string> = {}): Response {
  const meta = { status, statusMsg: statusMsg(status), method: answeredMethod(request.method), href: publicUrlOf(request), ...metaExtra, errors };
  return jsonResponse(status, { error, error_description: errors[0]?.message ?? statusMsg(status), meta }, { ...headers, 'cache-control': 'no-store', 'x-request-id': requestIdOf(request) });
}

/** The tenant of a scoped token address. An unknown one answers as a client of another tenant does (OAuth body, 401). */
async function scopedTenantId(services: Services, tenant: NonNullable<Match['tenant']>): Promise<string> {
  const t = await services.tenants.byAliases(tenant.customerAlias, tenant.databaseAlias);
  if (!t) throw new OAuthError(401, 'invalid_client', 'Invalid client credentials: unknown client_id or wrong client_secret.');
  return t.id;
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

const TOKEN_PARAMS = {
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
};

/** The endpoint as the OpenAPI document (src/rest/openapi.ts) describes it. */
export const tokenOperation = {
  operationId: 'post_token',
  summary: 'Get an access token',
  description:
    'OAuth 2 token endpoint. The body is read as a form whatever its Content-Type says, unless it says multipart; a JSON object is accepted too. ' +
    'The client authenticates with client_id/client_secret in the body or with HTTP Basic (`Authorization: Basic base64(urlencode(client_id):urlencode(client_secret))`), not both (a client_id beside the header must name the same client). ' +
    '`password` logs a user in with the API client\'s credentials, `client_credentials` acts as the client\'s own user, ' +
    '`refresh_token` exchanges a refresh token (rotated on use; reusing an old one revokes its family).',
  tags: ['Oauth'],
  requestBody: {
    required: true,
    content: {
      'application/x-www-form-urlencoded': { schema: TOKEN_PARAMS },
      'multipart/form-data': { schema: TOKEN_PARAMS },
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
    '408': oauthError(`invalid_request: the body did not arrive within ${TOKEN_READ_SECONDS} seconds`),
    '413': oauthError('invalid_request: the body is over MAX_BODY_BYTES'),
    '415': oauthError('invalid_request: the body was sent compressed (a Content-Encoding other than identity)'),
    '429': oauthError('temporarily_unavailable: too many failed logins, locked out until meta.retryTime'),
    '503': oauthError('temporarily_unavailable: the database is not available right now, or the server is receiving too many token requests at once (their share of BODY_MEMORY_BYTES); try again after Retry-After seconds'),
  },
  security: [],
};
