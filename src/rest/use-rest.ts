/**
 * The REST face as a Yoga plugin: matches legacy paths against the route table, fits query and
 * body onto the root field's arguments, builds the shared context, runs SOFA's pre-built
 * operation compiled (src/rest/execute.ts), and wraps what SOFA returns in the envelope.
 */
import type { Plugin } from 'graphql-yoga';
import { Response } from '@whatwg-node/fetch';
import {
  getNamedType,
  getNullableType,
  isInputObjectType,
  isObjectType,
  type ExecutionResult,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { buildContext, type AppContext, type Services } from '../context.js';
import type { DataTypes } from '../datatypes.js';
import { AppError, badRequest } from '../errors.js';
import { findAppError, outcomeOf, unexpected } from '../graphql-errors.js';
import { isGuid } from '../ids.js';
import { readBody, parseBody } from './body.js';
import { errorEnvelope, jsonResponse, successEnvelope, type Projection } from './envelope.js';
import { variantOf, type Variant } from './expand.js';
import { fitInput } from './input.js';
import { queryParam, RouteMatcher, segmentsOf, type Match } from './match.js';
import { isSofaRoute, routes, type SofaRoute } from './routes.js';
import { checkRouteTable } from './check-routes.js';
import { markPublicUrl } from './public-url.js';
import { createSofaHandlers, SOFA_BASE, sofaEndpoints } from './sofa-setup.js';
import { effectiveLimit } from '../read/paging.js';
import { handleToken } from './token.js';
import { requestIdOf } from './request-id.js';
import { createRestExecute } from './execute.js';
import { mapError } from '../use-error-mapping.js';

interface RouteInfo {
  field: GraphQLField<unknown, unknown>;
  recordType: string | undefined;
}

/** REST's additions to the context: the variant of the document to run, then its result. */
type RestContext = AppContext & { rest?: Variant & { result?: ExecutionResult } };

export function useRest(services: Services, schema: GraphQLSchema, dataTypes: DataTypes): Plugin {
  const matcher = new RouteMatcher();
  const endpoints = sofaEndpoints();
  const infoOf = new Map<string, RouteInfo>();
  checkRouteTable(schema, routes);
  for (const fieldName of endpoints.keys()) {
    const [op, name] = fieldName.split('.');
    const field = (op === 'Query' ? schema.getQueryType() : schema.getMutationType())!.getFields()[name];
    infoOf.set(fieldName, { field, recordType: recordTypeOf(field) });
  }

  const execute = createRestExecute();
  const sofa = createSofaHandlers(
    schema,
    (args) => {
      const ctx = args.contextValue as RestContext;
      const rest = ctx.rest!;
      const done = (raw: ExecutionResult) => {
        // Errors mapped as on /graphql (useErrorMapping does it there), with this request's id.
        const result = raw.errors?.length ? { ...raw, errors: raw.errors.map((e) => mapError(e, ctx.requestId, services.log)) } : raw;
        // Kept for the envelope, so that it need not parse back the JSON SOFA would serialise;
        // SOFA gets nulls instead, and its Response goes unread.
        rest.result = result;
        return result.data ? { ...result, data: Object.fromEntries(Object.keys(result.data).map((k) => [k, null])) } : result;
      };
      const result = execute({ ...args, schema, document: variantOf(schema, args.document, rest) });
      return result instanceof Promise ? result.then(done) : done(result);
    },
    (errors) => {
      const o = outcomeOf(errors);
      return jsonResponse(o.status, { errors: o.errors, meta: o.meta });
    },
  );

  async function handle(request: Request, url: URL, requestId: string): Promise<Response> {
    const segments = segmentsOf(url.pathname);
    if (!segments) throw badRequest('The request path is not valid percent-encoding.');
    if (segments.some((s) => s.includes('\u0000'))) throw badRequest('The request path must not contain NUL (%00) characters.');
    const result = matcher.match(request.method, segments, url.searchParams);
    if ('status' in result) {
      if (result.status === 405) {
        return errorEnvelope(request, 405, [err('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${result.allowed.join(' or ')}.`)], {}, { allow: result.allowed.join(', ') });
      }
      return errorEnvelope(request, 404, [err('NOT_FOUND', `No resource matches ${request.method} ${url.pathname}.`)]);
    }
    const { route } = result.match;
    if (!isSofaRoute(route)) return handleToken(services, request, result.match);
    return runSofa(request, url, requestId, route, result.match);
  }

  async function runSofa(request: Request, url: URL, requestId: string, route: SofaRoute, m: Match): Promise<Response> {
    const info = infoOf.get(route.field)!;
    const endpoint = endpoints.get(route.field)!;
    const page = { limit: intParam(url, 'limit'), offset: intParam(url, 'offset') };

    const body = route.body ? await requestBody(request, route.body, info.field.args.find((a) => a.name === route.body)!) : undefined;
    // Path parameters and query parameters both become SOFA route params (which it reads
    // before parsing a query string).
    const params: Record<string, string> = {};
    for (const a of info.field.args) {
      if (a.name === route.body) continue;
      const fromPath = m.params[a.name];
      const v = fromPath ?? queryParam(url.searchParams, a.name);
      if (v !== undefined && v !== '') params[a.name] = checkArg(a, v, fromPath === undefined ? 'query parameter' : 'path segment');
    }

    const built = buildContext(services, request, requestId, m.tenant);
    const ctx: RestContext = built instanceof Promise ? await built : built;
    const projection = projectionOf(url, info.recordType ? dataTypes.byTypeName.get(info.recordType) : undefined);
    ctx.rest = { recordType: info.recordType, relations: projection.relations, dropTotal: !route.paged };

    const bodyText = body ? JSON.stringify(body) : null;
    const res = await sofa.get(route.field)!(
      {
        url: `http://sofa.internal${SOFA_BASE}${endpoint.path}`,
        params,
        body: bodyText,
        text: async () => bodyText ?? '',
      },
      { contextValue: ctx },
    );
    if (!res.ok) {
      const { errors = [], meta = {} } = ((await res.json()) ?? {}) as { errors?: []; meta?: Record<string, unknown> };
      if (res.status >= 500) services.log.error({ requestId, errors }, 'request failed');
      return errorEnvelope(request, res.status, errors, meta);
    }
    return successEnvelope({
      request,
      status: route.status ?? 200,
      shape: route.shape,
      result: ctx.rest.result?.data?.[route.field.split('.')[1]] ?? null,
      dataTypes,
      recordType: info.recordType,
      projection,
      page: route.paged ? { limit: effectiveLimit(services.config, page.limit), offset: page.offset ?? 0 } : undefined,
    });
  }

  async function requestBody(request: Request, argName: string, arg: GraphQLArgument) {
    const text = await readBody(request, services.config.maxBodyBytes);
    const parsed = parseBody(text, request.headers.get('content-type'));
    const type = getNullableType(arg.type);
    return { [argName]: isInputObjectType(type) ? fitInput(type, parsed) : parsed };
  }

  function projectionOf(url: URL, dt: ReturnType<DataTypes['get']>): Projection {
    const list = (name: string) =>
      (queryParam(url.searchParams, name) ?? '')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
    const fields = list('fields');
    const expand = list('expand');
    const all = expand.includes('data') || expand.includes('true');
    const relations = dt ? expand.map((e) => dt.relations.get(e)).filter((r): r is string => !!r) : [];
    return { fields: fields.length ? new Set(fields) : undefined, all, relations };
  }

  return {
    // Not async: /graphql requests pass on synchronously.
    onRequest({ request, url, endResponse }) {
      if (/^\/graphql\/?$/i.test(url.pathname)) return;
      const requestId = requestIdOf(request);
      markPublicUrl(request, services.config.publicUrl);
      const send = suppressed(url) ? (res: Response) => endResponse(asOk(res)) : endResponse;
      return handle(request, url, requestId).then(send, (e) => send(errorResponse(request, e, requestId)));
    },
  };

  function errorResponse(request: Request, e: unknown, requestId: string): Response {
    const app = findAppError(e);
    if (app) return errorEnvelope(request, app.status, [err(app.code, app.message, app.developerMessage)], app.meta);
    const ext = (e as { extensions?: { http?: { status?: number } } })?.extensions;
    if (ext?.http?.status && ext.http.status < 500) {
      const o = outcomeOf([e]);
      return errorEnvelope(request, o.status, o.errors, o.meta);
    }
    services.log.error({ requestId, err: e }, 'unexpected error');
    const u = unexpected(requestId);
    return errorEnvelope(request, 500, [err('INTERNAL_SERVER_ERROR', u.message)]);
  }
}

const err = (code: string, message: string, developerMessage = message) => ({ code, message, developerMessage });

/** `suppress_response_codes=true` (the .NET client sends it): HTTP 200, the real status stays in `meta.status`. */
const suppressed = (url: URL) => (queryParam(url.searchParams, 'suppress_response_codes') ?? '').toLowerCase() === 'true';

const asOk = (res: Response): Response =>
  res.status === 200 ? res : new Response(res.body, { status: 200, headers: res.headers });

/** The data type of a root field's records: its type, or its page's `items` type. */
function recordTypeOf(field: GraphQLField<unknown, unknown>): string | undefined {
  const named = getNamedType(field.type);
  if (!isObjectType(named)) return undefined;
  const items = named.getFields().items;
  return items ? getNamedType(items.type).name : named.name;
}

/** `limit`/`offset` from the query string, on every route: a value that is not a whole number of 0 or more is a 400. */
function intParam(url: URL, name: string): number | undefined {
  const v = queryParam(url.searchParams, name);
  if (v === undefined || v.trim() === '') return undefined;
  if (!/^\d{1,9}$/.test(v.trim())) throw badRequest(`The query parameter '${name}' must be a whole number of 0 or more, got '${v.slice(0, 64)}'.`);
  return Number(v);
}

/** Clear 400s for arguments SOFA would otherwise reject with a terse scalar message. */
function checkArg(arg: GraphQLArgument, value: string, where: string): string {
  // PostgreSQL text cannot hold U+0000: a clear 400 instead of a failed query.
  if (value.includes('\u0000')) throw new AppError('BAD_REQUEST', `The ${where} '${arg.name}' must not contain NUL (%00) characters.`);
  const type = getNamedType(arg.type).name;
  if (type === 'UUID' && !isGuid(value as unknown)) {
    throw new AppError('BAD_REQUEST', `The ${where} '${arg.name}' must be a GUID, got '${value.slice(0, 64)}'.`);
  }
  if (type === 'Int' && !/^-?\d{1,9}$/.test(value.trim())) {
    throw new AppError('BAD_REQUEST', `The ${where} '${arg.name}' must be a whole number, got '${String(value).slice(0, 64)}'.`);
  }
  return value;
}

