/**
 * The legacy envelope: `{meta:{status,statusMsg,method,href}, data, pagination}` for successes,
 * `{meta:{..., errors:[{code,message,developerMessage}]}}` for failures. The HTTP status equals
 * meta.status but where `httpOk` is asked for, and every body is sent with a Content-Length (never chunked).
 */
import { STATUS_CODES } from 'node:http';
import { Response } from '@whatwg-node/fetch';
import { AppError } from '../errors.js';
import { requestIdOf } from './request-id.js';
import { publicUrlOf } from './public-url.js';
import type { DataTypeInfo, DataTypes } from '../datatypes.js';
import type { EnvelopeError } from '../graphql-errors.js';
import type { Shape, SofaRoute } from './routes.js';

export const statusMsg = (status: number) => STATUS_CODES[status] ?? 'Unknown';

/**
 * The method an answer is written for: HEAD is answered as GET would be, `meta.method` and messages
 * too, so that its Content-Length is GET's (RFC 9110 9.3.2).
 */
export const answeredMethod = (method: string | undefined) => (method === 'HEAD' ? 'GET' : method);

/**
 * Built with the same fetch implementation as the server adapter (not Node's global Response):
 * a string body and plain-object headers then go out as one head write and one body write,
 * instead of being pumped through a web stream.
 */
export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const text = JSON.stringify(body);
  return new Response(text, {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    },
  });
}

/** The same answer as HTTP 200, `meta.status` keeping the real one (`suppress_response_codes`, refusals of `POST emails`). */
export const httpOk = (response: Response): Response => new Response(response.body, { status: 200, headers: response.headers });

/** What `refusalsAs200` routes answer as HTTP 200: refusals of what was sent, not of who sent it (401, 403, 429, 5xx). */
export const REFUSALS = new Set([400, 404, 413]);

/**
 * An answer as its route sends it: on a `refusalsAs200` row a refusal of what was sent goes out as
 * HTTP 200, whichever step refused it (the body limit on the head, or the route's operation).
 */
export const asRouteSends = (route: Pick<SofaRoute, 'refusalsAs200'> | undefined, response: Response): Response =>
  route?.refusalsAs200 && REFUSALS.has(response.status) ? httpOk(response) : response;

function meta(status: number, request: Request, extra: Record<string, unknown> = {}) {
  return { status, statusMsg: statusMsg(status), method: answeredMethod(request.method), href: publicUrlOf(request), ...extra };
}

export function errorEnvelope(
  request: Request,
  status: number,
  errors: EnvelopeError[],
  metaExtra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(status, { meta: meta(status, request, { ...metaExtra, errors }) }, { 'x-request-id': requestIdOf(request), ...headers });
}

/** The 405 of a path that answers only `allowed` methods, which Allow lists, with HEAD wherever GET is (it is answered as GET). */
export function methodRefusal(method: string, allowed: string[]): AppError {
  const methods = allowed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
  const message = `${answeredMethod(method)} is not allowed here; use ${methods.join(' or ')}.`;
  return new AppError('METHOD_NOT_ALLOWED', message, message, {}, { allow: methods.join(', ') });
}

/** `methodRefusal` answered in the envelope. */
export function methodNotAllowed(request: Request, allowed: string[]): Response {
  const e = methodRefusal(request.method, allowed);
  return errorEnvelope(request, 405, [{ code: e.code, message: e.message, developerMessage: e.developerMessage }], {}, e.headers);
}

export interface Projection {
  /** Lower-cased names from `fields=`; undefined when not sent. */
  fields?: Set<string>;
  /** `expand=data` / `expand=true`: all available fields. */
  all: boolean;
  /** Relations named in `expand=`, by their schema names. */
  relations: string[];
}

/** Keeps href, dataType, the requested (or default) fields and the expanded relations. */
export function project(record: Record<string, unknown>, dt: DataTypeInfo | undefined, p: Projection, types?: DataTypes): Record<string, unknown> {
  if (!dt || record === null || typeof record !== 'object') return record;
  if (dt.dynamic) record = spread(record, dt.dynamic, recordKeysOf(dt));
  if (types && p.relations.length) record = spreadRelated(record, p.relations, types);
  // The common case keeps every key: no copy.
  if (!p.fields && (p.all || dt.defaultFields.length === dt.availableFields.length)) return record;
  const keep = p.fields
    ? (k: string) => p.fields!.has(k.toLowerCase()) || dt.alwaysFields.includes(k)
    : p.all
      ? () => true
      : (k: string) => dt.defaultFields.includes(k);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    if (k === 'href' || k === 'dataType' || keep(k) || p.relations.includes(k)) out[k] = v;
  }
  return out;
}

const recordKeys = new WeakMap<DataTypeInfo, ReadonlySet<string>>();

/** A data type's own keys (its fields but the dynamic one, which REST spreads, `href` and `dataType`) in lower case. */
function recordKeysOf(dt: DataTypeInfo): ReadonlySet<string> {
  let keys = recordKeys.get(dt);
  if (!keys) recordKeys.set(dt, (keys = new Set(['href', 'datatype', ...dt.availableFields.filter((f) => f !== dt.dynamic).map((f) => f.toLowerCase())])));
  return keys;
}

/**
 * The dynamic field's keys as the record's own, after its declared fields, which win a clash in
 * any case (`formid` beside `formId` would be one key to a client that reads keys without regard
 * to case, as `q` and `fields=` name them). Own keys only: a form key such as `constructor` is no
 * clash, and `__proto__` (a deleted `proto__`) is a key, not the record's prototype.
 */
function spread(record: Record<string, unknown>, field: string, own: ReadonlySet<string>): Record<string, unknown> {
  const { [field]: values, ...rest } = record;
  for (const [k, v] of Object.entries((values ?? {}) as Record<string, unknown>)) {
    if (own.has(k.toLowerCase())) continue;
    if (k === '__proto__') Object.defineProperty(rest, k, { value: v, enumerable: true, writable: true, configurable: true });
    else rest[k] = v;
  }
  return rest;
}

/**
 * The expanded relations' records with their dynamic field spread, as a read of each shows it (a
 * related form's values as its keys, not under `values`); each names its type in `dataType`.
 */
function spreadRelated(record: Record<string, unknown>, relations: readonly string[], types: DataTypes): Record<string, unknown> {
  const shown = (r: unknown) => {
    const dt = r && typeof r === 'object' ? types.get(String((r as Record<string, unknown>).dataType)) : undefined;
    return dt?.dynamic ? spread(r as Record<string, unknown>, dt.dynamic, recordKeysOf(dt)) : r;
  };
  const out = { ...record };
  for (const k of relations) if (Object.hasOwn(out, k)) out[k] = Array.isArray(out[k]) ? (out[k] as unknown[]).map(shown) : shown(out[k]);
  return out;
}

export interface PageInfo {
  totalRecords: number;
  limit: number;
  offset: number;
}

function pageHref(url: URL, limit: number, offset: number): string {
  const u = new URL(url);
  for (const k of [...u.searchParams.keys()]) if (/^(limit|offset)$/i.test(k)) u.searchParams.delete(k);
  u.searchParams.set('limit', String(limit));
  u.searchParams.set('offset', String(offset));
  return u.toString();
}

/**
 * The offsets the links name, in step with the page asked for: `last` is the last page that has
 * records among offset ± a multiple of limit (0 when none has), as next and previous step; past
 * the end, `previous` is that page, not offset - limit (which may be as empty). Undefined: no link.
 */
export function pageOffsets({ limit, offset, totalRecords }: PageInfo): { last: number; next?: number; previous?: number } {
  if (limit === 0) return { last: 0 };
  const step = offset % limit;
  const last = totalRecords > step ? step + Math.floor((totalRecords - 1 - step) / limit) * limit : 0;
  return {
    last,
    next: offset + limit < totalRecords ? offset + limit : undefined,
    previous: offset === 0 ? undefined : offset >= totalRecords ? (totalRecords > 0 ? last : undefined) : Math.max(0, offset - limit),
  };
}

export function pagination(request: Request, p: PageInfo) {
  const href = publicUrlOf(request);
  const url = new URL(href);
  const { limit, totalRecords } = p;
  const { last, next, previous } = pageOffsets(p);
  return {
    dataType: 'PagedData',
    href,
    first: pageHref(url, limit, 0),
    last: pageHref(url, limit, last),
    next: next === undefined ? '' : pageHref(url, limit, next),
    previous: previous === undefined ? '' : pageHref(url, limit, previous),
    limit,
    totalRecords,
  };
}

export interface SuccessInput {
  request: Request;
  status: number;
  shape: Shape;
  result: unknown;
  dataTypes: DataTypes;
  recordType: string | undefined;
  /** The field answers a page: its items are the records. Not any value with `items`: a drop-down list has its own. */
  answersPage: boolean;
  projection: Projection;
  page?: { limit: number; offset: number };
  /** The keys a record leads with, in this order (the route's `keyOrder`). */
  keyOrder?: readonly string[];
}

/** The record with `keys` (those it has) first, in that order, then the rest as they were. */
function leading(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return { ...Object.fromEntries(keys.filter((k) => Object.hasOwn(record, k)).map((k) => [k, record[k]])), ...record };
}

type PageResult = { items: unknown[]; totalRecords?: number };

/** The body of a success: `meta`, the records shaped and projected as the route says, and `pagination`. */
export function successBody(s: SuccessInput): Record<string, unknown> {
  const dt = s.recordType ? s.dataTypes.byTypeName.get(s.recordType) : undefined;
  // A page (`{totalRecords, items}`) unwraps to its items.
  const page = s.answersPage && s.result ? (s.result as PageResult) : undefined;
  let records = page ? page.items : s.result;
  const shapeOne = (r: unknown) => {
    if (!dt) return r;
    const record = project(r as Record<string, unknown>, dt, s.projection, s.dataTypes);
    return s.keyOrder && record ? leading(record, s.keyOrder) : record;
  };
  const body: Record<string, unknown> = { meta: meta(s.status, s.request) };
  // A one-element array is a list of one record.
  if (s.shape === 'one') records = [Array.isArray(records) ? records[0] : records];
  // A paged list whose field answers every record (a plain list, not a page): the page is cut
  // here, also the one record of a paged one-element array, which pagination counts as a list.
  const whole = s.page && s.shape !== 'object' && !page && Array.isArray(records) ? records.length : undefined;
  if (whole !== undefined) records = (records as unknown[]).slice(s.page!.offset, s.page!.offset + s.page!.limit);
  if (s.shape === 'list' || s.shape === 'one') body.data = (Array.isArray(records) ? records : [records]).map(shapeOne);
  else if (s.shape === 'object') body.data = shapeOne(records);
  if (s.page) {
    const total = typeof page?.totalRecords === 'number'
      ? page.totalRecords
      : (whole ?? (Array.isArray(body.data) ? body.data.length : 1));
    body.pagination = pagination(s.request, { totalRecords: total, ...s.page });
  }
  return body;
}
