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

/** A row's path, compiled once: each segment's parameter name, or its literal in lower case. */
interface Compiled {
  route: Route;
  /** The parameter's name at each place the row takes one, else undefined. */
  params: (string | undefined)[];
  /** The literal at each place the row spells one out, in lower case, else undefined. */
  literals: (string | undefined)[];
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
  /** Rows by their number of segments: a path is compared with rows of its own length only. */
  private readonly tenant: Map<number, Compiled[]>;
  private readonly root: Map<number, Compiled[]>;

  constructor(routes: Route[] = allRoutes) {
    const byLength = (rows: Route[]) => {
      const out = new Map<number, Compiled[]>();
      for (const c of rows.map(compile).sort((a, b) => b.literalCount - a.literalCount)) {
        const list = out.get(c.params.length) ?? [];
        list.push(c);
        out.set(c.params.length, list);
      }
      return out;
    };
    this.tenant = byLength(routes.filter((r) => r.scope !== 'root'));
    this.root = byLength(routes.filter((r) => r.scope === 'root'));
  }

  /** Root-scoped rows first, on the whole path: `/api/v1/resource/area` is never read as a tenant. */
  match(method: string, segments: string[], query: URLSearchParams): MatchResult {
    const lower = segments.map((s) => s.toLowerCase());
    const upper = method.toUpperCase();
    const root = this.matchIn(this.root, upper, segments, lower, query, undefined);
    if ('match' in root || root.status === 405) return root;
    const isApi = segments.length >= 4 && lower[0] === API_PREFIX[0] && lower[1] === API_PREFIX[1];
    if (!isApi) return root;
    return this.matchIn(this.tenant, upper, segments.slice(4), lower.slice(4), query, { customerAlias: segments[2], databaseAlias: segments[3] });
  }

  private matchIn(rows: Map<number, Compiled[]>, method: string, rest: string[], lower: string[], query: URLSearchParams, tenant: Match['tenant']): MatchResult {
    const matching = (rows.get(rest.length) ?? []).filter((c) => c.literals.every((l, i) => l === undefined || l === lower[i]));
    const allowed = new Set<Method>();
    for (const c of matching) {
      // A row that spells out a segment this row takes as a parameter owns the path: its other
      // methods are a 405, not this row with that word as an id (`GET documents/CreateDocumentZipFile`).
      if (matching.some((other) => outranks(other, c))) continue;
      if (c.route.method !== method) {
        allowed.add(c.route.method);
        continue;
      }
      const when = 'when' in c.route ? c.route.when : undefined;
      if (when && !whenHolds(when, queryParam(query, when.param))) continue;
      return { match: { route: c.route, params: paramsOf(c, rest), tenant } };
    }
    return allowed.size ? { status: 405, allowed: [...allowed] } : { status: 404 };
  }
}

function compile(route: Route): Compiled {
  const segments = route.path.split('/').filter(Boolean);
  const params = segments.map((s) => (s.startsWith(':') ? s.slice(1) : undefined));
  const literals = segments.map((s) => (s.startsWith(':') ? undefined : s.toLowerCase()));
  return { route, params, literals, literalCount: literals.filter((l) => l !== undefined).length };
}

/** The values of a matching row's parameters, as sent. */
function paramsOf(c: Compiled, rest: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  c.params.forEach((name, i) => {
    if (name !== undefined) params[name] = rest[i];
  });
  return params;
}

/**
 * `a` spells out every segment `b` spells out and more, where `b` has parameters (both matched one
 * path, so their spelled-out segments agree): `/documents/CreateDocumentZipFile` outranks
 * `/documents/:documentId`; rows with literals in different places (`/documents/revisions/:id`,
 * `/documents/:id/indexfields`) outrank neither.
 */
function outranks(a: Compiled, b: Compiled): boolean {
  let more = false;
  for (let i = 0; i < b.literals.length; i++) {
    const aParam = a.literals[i] === undefined;
    const bParam = b.literals[i] === undefined;
    if (aParam && !bParam) return false;
    if (!aParam && bParam) more = true;
  }
  return more;
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
