/**
 * Generated from the route table: every write route (POST, PUT, DELETE) is sent twice at once, the
 * same request in flight twice, on the records of test/rest/route-fixture.ts, and the pair of
 * answers must be one a serial order of the two could give: neither a 5xx, both envelopes whose
 * meta.status is the HTTP status, one the route's success and the other what the same request
 * answers once more after it (a create of a taken name its 409, a delete its 404, an update its
 * success). That second answer is learned by sending the request a third time, after the pair: a
 * write answers the same after one of it as after two. Besides, nothing else changes:
 * - a create or a delete changes the tables a single call of it changes, nothing else, and their
 *   row counts as that call times its twins' successes (two rows of one unique name show here);
 *   that call made on a name of its own (a create's) or on a copy of the record (a delete's: made
 *   through the POST route of its collection, or re-made through the POST or PUT on its path);
 * - an update (on a copy of the record where the POST of its collection makes one) changes what the
 *   repeat after it changes, twice, and its record is then what one twin wrote, as the GET on its
 *   path reads it, on the keys both show (each twin writes values of its own, so a mix of the two shows);
 * - a refused repeat changes nothing, and tenant B's rows never change.
 * Routes the fixture's records cannot serve twice are in SKIPPED, each with why. A new route row is
 * covered without new test code.
 */
import { getNamedType, type GraphQLNamedType } from 'graphql';
import type { Reply } from '../harness.js';
import { resources } from '../../src/read/registry.js';
import type { SofaRoute } from '../../src/rest/routes.js';
import { createGroup, createSite, createUser, GUID, uniq } from './support.js';
import { valueFor } from './input-body.js';
import { A, B, bodyOf, fieldOf, h, label, learnedByCall, pathOf, send as sendAs, sendLearning, setUpRouteFixture, tenantRoutes } from './route-fixture.js';
import { tenantRowChecksums } from './tenant-rows.js';

setUpRouteFixture('twins');

/** Writes whose generated call cannot be sent twice as it stands, each with why: they are not checked here. */
const SKIPPED: Record<string, string> = {};

/** Table name to "row count md5", of both tenants' rows. */
type Rows = Record<string, string>;
const snapshot = () => tenantRowChecksums(h.services.reads, [A.t.tenantId, B.t.tenantId]);
const ofB = () => tenantRowChecksums(h.services.reads, [B.t.tenantId]);
const count = (rows: Rows, t: string) => Number(rows[t]?.split(' ')[0] ?? 0);
/**
 * What changed from `before` to `after`, `times` over: the tables whose rows changed, and the rows
 * added (negative: removed) per table. Of these only the counts add up; the tables stay the same.
 */
function change(before: Rows, after: Rows, times = 1): string {
  const tables = Object.keys(after).filter((t) => times && after[t] !== before[t]);
  const rows = Object.fromEntries(tables.map((t) => [t, (count(after, t) - count(before, t)) * times]).filter(([, n]) => n !== 0));
  return `rows of ${tables.join(', ') || 'no table'} changed, ${JSON.stringify(rows)} added`;
}

/** Free-text values of the generated bodies: names and labels are unique, and each twin of an update writes its own, so that a mix shows. */
const FREE_TEXT = new Set(['conformance', 'refused', 'Changed']);
const ownValues = (body: Record<string, unknown> | undefined) =>
  body && Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' && FREE_TEXT.has(v) ? uniq(v) : v]));

/** The status a call answers: a route that answers refusals as 200 carries the real one in meta.status. */
const statusOf = (r: SofaRoute, reply: Reply) => (r.refusalsAs200 ? reply.body?.meta?.status : reply.status);
const succeeded = (r: SofaRoute, reply: Reply) => statusOf(r, reply) === (r.status ?? 200);
const send = (r: SofaRoute, path: string, body: Record<string, unknown> | undefined) => sendAs(A, r, body, path);

/**
 * Records made here for body keys that must name one and that the fixture's bodies hold a mere
 * value of their type for (test/rest/input-body.ts): which user or group moves to which site.
 */
let named: Record<string, string>;
beforeAll(async () => {
  named = { userId: (await createUser(A)).id, groupId: (await createGroup(A)).id, newSiteId: (await createSite(A)).id };
});

/**
 * The generated body of `r` with the keys its own answers named mandatory (by route: an update
 * given a create's would change what the fixture's record is known by, the member's userid), and
 * `named`'s records where it holds a mere value.
 */
function generatedBody(r: SofaRoute) {
  if (!r.body) return undefined;
  const body = { ...bodyOf(r), ...learnedByCall(label(r)) };
  const mere = (k: string) => GUID.test(String(body[k])) && body[k] === valueFor(fieldOf(h.app.schema, r), r.body!, k, label(r));
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, k in named && mere(k) ? named[k] : v]));
}

/** The write `r` once, with free-text values of its own, on `path` (a copy's), learning the mandatory keys its answer names: its answer. */
const once = async (r: SofaRoute, path = pathOf(r)): Promise<Reply> => (await sendLearning(A, r, () => ownValues(generatedBody(r)), path, true)).reply;

const typeOf = (r: SofaRoute): GraphQLNamedType => getNamedType(fieldOf(h.app.schema, r).type);

/**
 * The route that makes a copy of the record the PUT or DELETE `r` writes, so the fixture's stays as
 * it was for the routes after it: for a path `/{segment}/:{param}` (literal segments after it
 * allowed), the POST route `/{segment}`; for any other DELETE, the POST or PUT on its own path,
 * which makes again what it deletes. Undefined where neither is: the fixture's record serves.
 */
function makerOf(r: SofaRoute): SofaRoute | undefined {
  if (r.method !== 'PUT' && r.method !== 'DELETE') return undefined;
  const [, segment, param, ...rest] = r.path.split('/');
  // A PUT writes the record or a literal under it (its password); a DELETE's copy is of the record itself, as one under it (a list's item, a group's member) is in no new record.
  const ofRecord = param?.startsWith(':') && (r.method === 'PUT' ? !rest.some((s) => s.startsWith(':')) : !rest.length);
  const collection = ofRecord ? tenantRoutes.find((c) => c.method === 'POST' && c.body && c.path.toLowerCase() === `/${segment.toLowerCase()}`) : undefined;
  if (collection || r.method === 'PUT') return collection;
  return tenantRoutes.find((m) => (m.method === 'POST' || m.method === 'PUT') && m.path === r.path && !m.when);
}

/** `r`'s path on a new copy of its record, made through `maker` (makerOf): the fixture's path where the maker re-makes what `r` names. */
async function copyFor(r: SofaRoute, maker: SofaRoute): Promise<string> {
  const made = await once(maker);
  if (!succeeded(maker, made)) throw new Error(`${label(maker)}, making a copy of what ${label(r)} writes, answered ${made.status} ${made.text.slice(0, 400)}`);
  if (maker.path === r.path) return pathOf(r);
  const param = r.path.split('/')[2].slice(1);
  const id = made.body.data[param] ?? made.body.data[resources.find((d) => d.typeName === typeOf(maker).name)?.idField ?? 'id'];
  const [path, query] = pathOf(r).split('?');
  const segments = path.split('/');
  segments[2] = id;
  return [segments.join('/'), query].filter(Boolean).join('?');
}

/** What the GET on a PUT's path answers now, if one answers the same type; undefined else. */
async function readBack(r: SofaRoute, path: string): Promise<unknown> {
  const get = tenantRoutes.find((g) => g.method === 'GET' && g.path === r.path && !g.when && typeOf(g) === typeOf(r));
  if (r.method !== 'PUT' || r.shape === 'none' || !get) return undefined;
  const data = (await A.get(path.split('?')[0])).body?.data;
  return get.shape === 'one' ? data[0] : data;
}
/** `now` as `written` shows it: the keys both have, element by element for a list. */
function asWritten(now: unknown, written: unknown): unknown {
  if (Array.isArray(now) && Array.isArray(written)) return now.map((n, i) => asWritten(n, written[i]));
  if (!now || !written || typeof now !== 'object' || typeof written !== 'object') return now;
  return Object.fromEntries(Object.keys(written).filter((k) => k in now).map((k) => [k, (now as Record<string, unknown>)[k]]));
}

/** The twins of `r`: the faults found. */
async function twins(r: SofaRoute): Promise<string[]> {
  const at = label(r);
  const faults: string[] = [];
  const maker = makerOf(r);
  const path = maker ? await copyFor(r, maker) : pathOf(r);
  /** What a single call changes, where one is made: a create's, a delete's. */
  let single: ((times: number) => string) | undefined;
  if (r.method !== 'DELETE' && r.body) {
    // A single call made first: it learns the body's mandatory keys. A create's second single call
    // changes what each successful twin's must: the first may find a state the twins do not (a
    // document's first file joins its revision, a later one makes a revision of its own).
    const first = await once(r, path);
    if (!succeeded(r, first)) return [`${at}: a single call answered ${first.status} ${first.text.slice(0, 400)} (if the fixture cannot give it what it needs, list it in SKIPPED with why)`];
    if (r.method === 'POST') {
      const before = await snapshot();
      const second = await once(r, path);
      if (!succeeded(r, second)) return [`${at}: a second single call answered ${second.status} ${second.text.slice(0, 400)}`];
      const after = await snapshot();
      single = (times) => change(before, after, times);
    }
  }
  // One body for the twins and the repeat (a create's names new, but the same in all three); an update's twins write values of their own.
  const shared = r.method === 'POST' ? ownValues(generatedBody(r)) : generatedBody(r);
  const bodyOfTwin = () => (r.method === 'PUT' ? ownValues(generatedBody(r)) : shared);
  const bBefore = await ofB();
  const before = await snapshot();
  const replies = await Promise.all([bodyOfTwin(), bodyOfTwin()].map((b) => send(r, path, b)));
  const after = await snapshot();
  const now = await readBack(r, path);
  const repeat = await send(r, path, bodyOfTwin());
  const afterRepeat = await snapshot();

  for (const reply of [...replies, repeat]) {
    if (reply.status >= 500) faults.push(`${at}: answered ${reply.status} ${reply.text.slice(0, 300)}`);
    else if (!r.refusalsAs200 && reply.body?.meta?.status !== reply.status) faults.push(`${at}: answered ${reply.status} with the envelope ${reply.text.slice(0, 300)}`);
  }
  const got = replies.map((x) => statusOf(r, x)).sort();
  const serial = [r.status ?? 200, statusOf(r, repeat)].sort();
  if (got.join() !== serial.join()) {
    return [...faults, `${at}: the twins answered ${got.join(' and ')}, which no serial order does (${serial.join(' and ')}): ${replies.map((x) => x.text.slice(0, 500)).join(' | ')}`];
  }
  const won = replies.filter((x) => succeeded(r, x)).length;
  if (r.method === 'DELETE' && maker) {
    // The single call, on another copy (after the pair, which took the first).
    const other = await copyFor(r, maker);
    const b = await snapshot();
    const alone = await send(r, other, shared);
    const a = await snapshot();
    if (!succeeded(r, alone)) faults.push(`${at}: the single call on a copy answered ${alone.status} ${alone.text.slice(0, 300)}`);
    single = (times) => change(b, a, times);
  }
  if (single && change(before, after) !== single(won)) faults.push(`${at}: of ${won} twin(s) succeeding ${change(before, after)}; of a single call ${single(1)}`);
  // An update's twins, like its repeat, come after a call of it (the single one): each changes what the repeat does.
  if (r.method === 'PUT' && r.body && succeeded(r, repeat) && change(before, after) !== change(after, afterRepeat, 2)) {
    faults.push(`${at}: of the twins ${change(before, after)}; of the repeat after them ${change(after, afterRepeat)}`);
  }
  // On the keys both show: a write may answer more of the record than its GET does (a dictionary's text).
  const asRead = (written: unknown) => JSON.stringify(asWritten(written, asWritten(now, written)));
  if (now !== undefined && !replies.some((x) => JSON.stringify(asWritten(now, x.body?.data)) === asRead(x.body?.data))) {
    faults.push(`${at}: the record afterwards ${JSON.stringify(now)} is neither twin's: ${replies.map((x) => JSON.stringify(x.body?.data)).join(' | ')}`);
  }
  if (!succeeded(r, repeat) && JSON.stringify(afterRepeat) !== JSON.stringify(after)) faults.push(`${at}: the refused repeat (${repeat.status}) changed rows`);
  if (JSON.stringify(await ofB()) !== JSON.stringify(bBefore)) faults.push(`${at}: tenant B's rows changed`);
  return faults;
}

// Its time grows with the route table's write rows, past jest's 30 s default on a loaded host: a hang guard, not a timing.
test('every write sent twice at once answers as some serial order of the two, and leaves what that order leaves', async () => {
  const writes = tenantRoutes.filter((r) => r.method !== 'GET' && !(label(r) in SKIPPED));
  // Deletes last, the later rows first (a document's revision before the document), so the fixture's records serve the writes before them.
  const ordered = [...writes.filter((r) => r.method !== 'DELETE'), ...writes.filter((r) => r.method === 'DELETE').reverse()];
  const faults: string[] = [];
  for (const r of ordered) faults.push(...(await twins(r).catch((e: Error) => [e.message])));
  expect(faults).toEqual([]);
  expect(writes.length).toBeGreaterThan(60);
  // The exceptions stay exceptions: one whose route is gone leaves the list.
  expect(Object.keys(SKIPPED).filter((l) => !tenantRoutes.some((w) => label(w) === l))).toEqual([]);
}, 180_000);
