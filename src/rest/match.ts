/**
 * Matches a request path against the route table the way legacy clients need: case-insensitive,
 * trailing and doubled slashes ignored, literal segments preferred over parameters
 * (`/users/me` before `/users/:id`; `PUT /users/me` is a 405, not `/users/:id` with the id `me`).
 */
import { requireAgreement } from '../errors.js';
import { routes as allRoutes, type Method, type Route } from './routes.js';

const API_PREFIX = ['api', 'v1'];

export interface Match {
  route: Route;
  params: Record<string, string>;
  tenant?: { customerAlias: string; databaseAlias: string };
}

export type MatchResult = { match: Match } | { status: 404 } | { status: 405; allowed: Method[] };

interface Compiled {
  route: Route;
  segments: string[];
  literalCount: number;
}

/** The path without trailing slashes, in one pass (`/\/+$/` backtracks: 60,000 slashes cost seconds). */
export function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  return path.slice(0, end);
}

/** Splits a raw path into decoded segments; `undefined` when a segment is not valid percent-encoding. */
export function segmentsOf(pathname: string): string[] | undefined {
  try {
    return pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s.replace(/\+/g, ' ')));
  } catch {
    return undefined;
  }
}

export class RouteMatcher {
  private readonly tenant: Compiled[];
  private readonly root: Compiled[];

  constructor(routes: Route[] = allRoutes) {
    const compile = (r: Route): Compiled => {
      const segments = r.path.split('/').filter(Boolean);
      return { route: r, segments, literalCount: segments.filter((s) => !s.startsWith(':')).length };
    };
    const byLiterals = (a: Compiled, b: Compiled) => b.literalCount - a.literalCount;
    this.tenant = routes.filter((r) => r.scope !== 'root').map(compile).sort(byLiterals);
    this.root = routes.filter((r) => r.scope === 'root').map(compile).sort(byLiterals);
  }

  /** Root-scoped rows first, on the whole path: `/api/v1/resource/area` is never read as a tenant. */
  match(method: string, segments: string[], query: URLSearchParams): MatchResult {
    const root = this.matchIn(this.root, method, segments, query, undefined);
    if ('match' in root || root.status === 405) return root;
    const isApi = segments.length >= 4 && segments[0].toLowerCase() === API_PREFIX[0] && segments[1].toLowerCase() === API_PREFIX[1];
    if (!isApi) return root;
    return this.matchIn(this.tenant, method, segments.slice(4), query, { customerAlias: segments[2], databaseAlias: segments[3] });
  }

  private matchIn(candidates: Compiled[], method: string, rest: string[], query: URLSearchParams, tenant: Match['tenant']): MatchResult {
    const matching: { c: Compiled; params: Record<string, string> }[] = [];
    for (const c of candidates) {
      const params = matchSegments(c.segments, rest);
      if (params) matching.push({ c, params });
    }
    const allowed = new Set<Method>();
    for (const { c, params } of matching) {
      // A row that spells out a segment this row takes as a parameter owns the path: its other
      // methods are a 405, not this row with that word as an id (`GET documents/CreateDocumentZipFile`).
      if (matching.some((other) => outranks(other.c.segments, c.segments))) continue;
      if (c.route.method !== method.toUpperCase()) {
        allowed.add(c.route.method);
        continue;
      }
      const when = 'when' in c.route ? c.route.when : undefined;
      if (when && !whenHolds(when, queryParam(query, when.param))) continue;
      return { match: { route: c.route, params, tenant } };
    }
    return allowed.size ? { status: 405, allowed: [...allowed] } : { status: 404 };
  }
}

/**
 * `a` spells out every segment `b` spells out and more, where `b` has parameters (both matched one
 * path, so their spelled-out segments agree): `/documents/CreateDocumentZipFile` outranks
 * `/documents/:documentId`; rows with literals in different places (`/documents/revisions/:id`,
 * `/documents/:id/indexfields`) outrank neither.
 */
function outranks(a: string[], b: string[]): boolean {
  let more = false;
  for (let i = 0; i < b.length; i++) {
    const aParam = a[i].startsWith(':');
    const bParam = b[i].startsWith(':');
    if (aParam && !bParam) return false;
    if (!aParam && bParam) more = true;
  }
  return more;
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith(':')) params[p.slice(1)] = actual[i];
    else if (p.toLowerCase() !== actual[i].toLowerCase()) return undefined;
  }
  return params;
}

/**
 * A row's `when`: the parameter has one of its values (any case, spaces around it and repeated
 * slashes aside, so `folderPath=//` is `/`), or any value at all for `*`.
 */
function whenHolds(when: { values: string[] }, value: string | undefined): boolean {
  if (when.values.includes('*')) return value !== undefined && value.trim() !== '';
  return when.values.includes((value ?? '').trim().replace(/\/{2,}/g, '/').toLowerCase());
}

/** Every value of a query parameter, by case-insensitive name, in order. */
export function queryParams(query: URLSearchParams, name: string): string[] {
  const lower = name.toLowerCase();
  const values: string[] = [];
  for (const [k, v] of query) if (k.toLowerCase() === lower) values.push(v);
  return values;
}

/**
 * A query parameter by case-insensitive name. Sent more than once (`limit=5&Limit=-1`), its copies
 * must agree, else a 400 naming it: taking one copy left the others unread, so a second filter or
 * a bad value was dropped without a word, and which copy counted was the order's chance.
 */
export function queryParam(query: URLSearchParams, name: string): string | undefined {
  return oneValue(name, queryParams(query, name));
}

/** The value of the parameter `name` sent as `values` (its copies, in order), which must agree (`queryParam`). */
export function oneValue(name: string, values: readonly string[]): string | undefined {
  requireAgreement(`query parameter '${name}'`, values.map((v) => ({ sent: v, kept: v })));
  return values[0];
}
