/**
 * Scheduled processes (client-compatibility.md: `PUT scheduledProcess/Run`, `POST
 * scheduledProcess/{token}?action=complete&result=&message=`, `GET outsideprocesses`): due
 * processes start on a real script server with a token, move to their next date, start once when
 * two callers run them at once, and the script reports back once.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Reply } from '../harness.js';
import { type Api, expectAsUnknown, expectEnvelope, expectError, GUID, uniq, UNKNOWN_ID, whileHeld } from './support.js';
import { A, B, h, origin, peer, setUpScriptServerApp, U } from './script-server-app.js';

setUpScriptServerApp();

const STARTED = 'module.exports.main = function (vvClient, response, token) { response.json(200, "started"); };';

async function script(api: Api, source = STARTED) {
  const r = await api.gql('mutation ($input: ScriptInput!) { createScript(input: $input) { id name } }', { input: { name: uniq('job'), source } });
  expect(r.body.errors).toBeUndefined();
  return r.body.data.createScript as { id: string; name: string };
}

async function process(api: Api, input: Record<string, unknown>) {
  const r = await api.gql('mutation ($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { id name scriptId scriptName intervalMinutes enabled nextRunDate } }', { input });
  expect(r.body.errors).toBeUndefined();
  return r.body.data.createScheduledProcess as { id: string; name: string; nextRunDate: string };
}

const runsOf = async (api: Api, id: string) =>
  (await api.gql('query ($id: UUID!) { scheduledProcess(id: $id) { nextRunDate runs { id status result message completeDate } } }', { id })).body.data.scheduledProcess;

/** The processes of this test that a Run started (other tests' processes in the tenant may be due too). */
type Run = { id: string; href: string; processId: string; status: number; result: boolean | null };
const startedOf = (r: { body: { data: Run[] } }, ...ids: string[]) => r.body.data.filter((run) => ids.includes(run.processId));

test('PUT scheduledProcess/Run starts what is due with a token, moves it to its next date, and leaves the rest', async () => {
  const s = await script(A);
  const due = await process(A, { name: uniq('due'), script: s.name, intervalMinutes: 60 });
  const later = await process(A, { name: uniq('later'), script: s.id, intervalMinutes: 60, nextRunDate: '2099-01-01T00:00:00' });
  const off = await process(A, { name: uniq('off'), script: s.id, intervalMinutes: 5, enabled: false });
  const r = await A.put('/scheduledProcess/Run', undefined, { headers: { 'content-type': 'application/json' } });
  expectEnvelope(r, 'PUT', A.url('/scheduledProcess/Run'));
  const [run] = startedOf(r, due.id, later.id, off.id);
  expect(startedOf(r, due.id, later.id, off.id)).toHaveLength(1);
  expect(run).toMatchObject({ dataType: 'ScheduledRun', processId: due.id, status: 0, result: null });
  expect(run.id).toMatch(GUID);
  const call = peer.calls.find((c) => c.body.token === run.id)!;
  expect(call).toMatchObject({ path: '/scheduledscripts', id: s.id, body: { script: STARTED, baseUrl: origin, token: run.id } });
  // An hour on, and not due again at once.
  const after = await runsOf(A, due.id);
  expect(Date.parse(`${after.nextRunDate}Z`) - Date.parse(`${due.nextRunDate}Z`)).toBe(3_600_000);
  expect(startedOf(await A.put('/scheduledProcess/Run'), due.id)).toEqual([]);
});

test('GET outsideprocesses lists the processes as an array (paged), for anyone in the tenant', async () => {
  const s = await script(A);
  const p = await process(A, { name: uniq('listed'), script: s.id, intervalMinutes: 1440, nextRunDate: '2099-01-01' });
  const r = await U.get('/outsideprocesses?limit=500');
  expectEnvelope(r, 'GET', U.url('/outsideprocesses?limit=500'));
  expect(Array.isArray(r.body.data)).toBe(true);
  expect(r.body.data.find((x: { id: string }) => x.id === p.id)).toMatchObject({ dataType: 'ScheduledProcess', name: p.name, scriptName: s.name, intervalMinutes: 1440, enabled: true });
  expect(r.body.pagination.totalRecords).toBeGreaterThanOrEqual(1);
  expect((await B.get('/outsideprocesses')).body.data.some((x: { id: string }) => x.id === p.id)).toBe(false);
  // Its href reads it.
  const listed = r.body.data.find((x: { id: string }) => x.id === p.id);
  expect(listed.href).toBe(`~/outsideprocesses/${p.id}`);
  expect((await U.get(listed.href.slice(1))).body.data).toEqual(listed);
  expect((await B.get(listed.href.slice(1))).status).toBe(404);
});

test('the script reports back over HTTP with its token: complete once, result and message kept; a second report is a 409', async () => {
  const s = await script(A, `module.exports.main = function (vvClient, response, token) {
    response.json(200, 'started');
    fetch(baseUrl + '${A.t.root}/scheduledProcess/' + token + '?action=Complete&result=true&message=' + encodeURIComponent('3 forms closed'),
      { method: 'POST', headers: { authorization: 'Bearer ${A.token}', 'content-type': 'application/json' } });
  };`);
  const p = await process(A, { name: uniq('reports'), script: s.id, intervalMinutes: 10 });
  // Through the real socket, so the script's callback reaches this service.
  const run = await fetch(`${origin}${A.t.root}/scheduledProcess/Run`, { method: 'PUT', headers: { authorization: `Bearer ${A.token}` } }).then((r) => r.json());
  const [started] = startedOf({ body: run }, p.id);
  for (;;) {
    const [latest] = (await runsOf(A, p.id)).runs;
    if (latest.status !== 0) break;
  }
  const [done] = (await runsOf(A, p.id)).runs;
  expect(done).toMatchObject({ id: started.id, status: 1, result: true, message: '3 forms closed' });
  expect(done.completeDate).toMatch(/^\d{4}-/);
  expectError(await A.post(`/scheduledProcess/${started.id}?action=complete&result=false`), 409, 'has ended already');
  expect((await runsOf(A, p.id)).runs[0]).toMatchObject({ result: true });
});

test('a report with another action, an unknown token or another tenant\'s token is refused', async () => {
  const s = await script(A);
  const p = await process(A, { name: uniq('refused'), script: s.id, intervalMinutes: 10 });
  const [run] = startedOf(await A.put('/scheduledProcess/Run'), p.id);
  expectError(await A.post(`/scheduledProcess/${run.id}?action=start`), 400, "'action' must be 'complete'");
  expectError(await A.post(`/scheduledProcess/${run.id}`), 400, 'action');
  expectError(await A.post(`/scheduledProcess/${UNKNOWN_ID}?action=complete`), 404, 'No scheduled run has the token');
  expectError(await B.post(`/scheduledProcess/${run.id}?action=complete`), 404);
  expectError(await A.post(`/scheduledProcess/${run.id}?action=complete&result=maybe`), 400, 'true or false');
  // An ordinary user of the tenant (the script's own login) may report.
  const ok = await U.post(`/scheduledProcess/${run.id}?action=complete&result=false&message=nothing%20to%20do`);
  expectEnvelope(ok, 'POST', U.url(`/scheduledProcess/${run.id}?action=complete&result=false&message=nothing%20to%20do`));
  expect(ok.body.data).toMatchObject({ id: run.id, status: 1, result: false, message: 'nothing to do' });
  expectError(await U.post(`/scheduledProcess/${run.id}?action=complete`), 409, 'has ended already');
});

/** A run of a new process, started on the script server, waiting for its report. */
async function waitingRun(api: Api = A) {
  const p = await process(api, { name: uniq('report'), script: (await script(api)).id, intervalMinutes: 10 });
  const [run] = startedOf(await api.put('/scheduledProcess/Run'), p.id);
  return { ...run, processId: p.id };
}

/** The report of a run as each client sends it (file and lines in docs/decisions.md, "Scheduled processes"). */
const REPORTS: [string, { path?: string; query: string; headers: Record<string, string>; raw?: string }, { result: boolean; message: string }][] = [
  [
    'the Node client (postCompletion): the query string, a JSON Content-Type and no body',
    { query: '?action=complete&result=true&message=3+forms+closed', headers: { 'content-type': 'application/json' } },
    { result: true, message: '3 forms closed' },
  ],
  [
    'the .NET client (CallCompleteScheduledProcessUsingQueryString): the query string, result as bool.ToString(), an empty JSON body',
    { path: '/ScheduledProcess/', query: '?action=Complete&message=Test+Message&result=True', headers: { 'content-type': 'application/json; charset=utf-8' }, raw: '' },
    { result: true, message: 'Test Message' },
  ],
  [
    'the .NET client (CallCompleteScheduledProcessUsingPostedData): an indented JSON body, result a string, no query string',
    { path: '/ScheduledProcess/', query: '', headers: { 'content-type': 'application/json; charset=utf-8' }, raw: '{\r\n  "action": "Complete",\r\n  "message": "Test Message",\r\n  "result": "true"\r\n}' },
    { result: true, message: 'Test Message' },
  ],
  [
    'the .NET client\'s posted data without a message (it leaves a blank one out), result false',
    { path: '/ScheduledProcess/', query: '', headers: { 'content-type': 'application/json; charset=utf-8' }, raw: '{\r\n  "action": "Complete",\r\n  "result": "false"\r\n}' },
    { result: false, message: '' },
  ],
  [
    'a form-encoded body, its keys in any case',
    { query: '', headers: { 'content-type': 'application/x-www-form-urlencoded' }, raw: 'Action=complete&Result=false&Message=nothing+to+do' },
    { result: false, message: 'nothing to do' },
  ],
  [
    'multipart parts',
    {
      query: '',
      headers: { 'content-type': 'multipart/form-data; boundary=b0' },
      raw: ['--b0', 'Content-Disposition: form-data; name="action"', '', 'complete', '--b0', 'Content-Disposition: form-data; name="result"', '', 'true', '--b0--', ''].join('\r\n'),
    },
    { result: true, message: '' },
  ],
  [
    'a JSON body with a JSON boolean, beside a query string that agrees',
    { query: '?action=complete&result=true', headers: { 'content-type': 'application/json' }, raw: JSON.stringify({ action: 'complete', result: true, message: 'both' }) },
    { result: true, message: 'both' },
  ],
];

test.each(REPORTS)('a report as %s completes the run', async (_, shape, expected) => {
  const run = await waitingRun();
  const path = `${shape.path ?? '/scheduledProcess/'}${run.id}${shape.query}`;
  const r = await U.post(path, undefined, { headers: shape.headers, raw: shape.raw });
  expectEnvelope(r, 'POST', U.url(path));
  expect(r.body.data).toMatchObject({ id: run.id, status: 1, ...expected });
  expect((await runsOf(A, run.processId)).runs[0]).toMatchObject({ id: run.id, status: 1, ...expected });
  // Once: a second report, by the same means, is the 409.
  expectError(await U.post(path, undefined, { headers: shape.headers, raw: shape.raw }), 409, 'has ended already');
});

test('a report in the body is checked as one in the query string; given in both, a value must agree, else a 400 naming it', async () => {
  const run = await waitingRun();
  const post = (query: string, body: unknown) => A.post(`/scheduledProcess/${run.id}${query}`, body);
  expectError(await post('', { action: 'start' }), 400, "'action' must be 'complete'");
  expectError(await post('', { Action: 'complete', Result: 'maybe' }), 400, "The field 'Result' must be true or false, got 'maybe'.");
  expectError(await post('', { action: 'complete', result: 2 }), 400, "The field 'result' must be true or false, got 2.");
  expectError(await post('', { action: ['complete'] }), 400, "The field 'action' takes one value, not a list or an object");
  expectError(await post('', { action: 'complete', message: 'x'.repeat(4001) }), 400, 'message');
  expectError(await post('', {}), 400, "The mandatory parameter 'action' is missing: send it in the query string or the request body.");
  expectError(await A.post(`/scheduledProcess/${run.id}`, undefined, { raw: '{"action": "complete"', headers: { 'content-type': 'application/json' } }), 400, 'not valid JSON');
  expectError(await post('?action=complete&result=true', { result: false }), 400, "The query string and the request body give 'result' different values (true and false)");
  expectError(await post('?action=complete&message=a', { action: 'complete', message: 'b' }), 400, "give 'message' different values");
  expectError(await post('?action=complete', { action: 'Complete' }), 400, "give 'action' different values");
  // None of these reported anything.
  expect((await runsOf(A, run.processId)).runs[0]).toMatchObject({ id: run.id, status: 0, result: null });
  // A token in the body is not the path's: the path names the run.
  const ok = await post('', { action: 'complete', result: true, token: UNKNOWN_ID });
  expect(ok.body.data).toMatchObject({ id: run.id, status: 1, result: true });
  expectError(await post('', { action: 'complete' }), 409, 'has ended already');
  expectError(await A.post(`/scheduledProcess/${UNKNOWN_ID}`, { action: 'complete' }), 404, 'No scheduled run has the token');
  expectError(await B.post(`/scheduledProcess/${run.id}`, { action: 'complete' }), 404);
});

test("GraphQL: a run names the user who started it", async () => {
  const s = await script(A);
  const p = await process(A, { name: uniq('named'), script: s.id, intervalMinutes: 10 });
  const [run] = startedOf(await A.put('/scheduledProcess/Run'), p.id);
  const r = await A.gql('query ($id: UUID!) { scheduledRun(id: $id) { startedById startedByUser { id userid } } }', { id: run.id });
  expect(r.body.errors).toBeUndefined();
  expect(r.body.data.scheduledRun).toEqual({ startedById: expect.any(String), startedByUser: { id: r.body.data.scheduledRun.startedById, userid: 'admin' } });
});

test('only administrators see runs: a token lets a report in, so an ordinary user reads none (REST, GraphQL, by id)', async () => {
  const s = await script(A);
  const p = await process(A, { name: uniq('secret'), script: s.id, intervalMinutes: 10 });
  const [run] = startedOf(await A.put('/scheduledProcess/Run'), p.id);
  const expanded = async (api: Api) => (await api.get(`/outsideprocesses/${p.id}?expand=runs`)).body.data.runs;
  expect((await expanded(A)).map((r: { id: string }) => r.id)).toEqual([run.id]);
  expect(await expanded(U)).toEqual([]);
  expect((await runsOf(U, p.id)).runs).toEqual([]);
  const byId = await U.gql('query ($id: UUID!) { scheduledRun(id: $id) { id } }', { id: run.id });
  expect(byId.body.errors[0].extensions.code).toBe('FORBIDDEN');
  expectError(await U.get(run.href.slice(1)), 403);
  // Nothing was reported through what the user could read: the run still waits for its script.
  expect((await runsOf(A, p.id)).runs[0]).toMatchObject({ id: run.id, status: 0 });
});

test("a run's href reads it (GET scheduledProcess/{token}), for administrators of its tenant", async () => {
  const s = await script(A);
  const p = await process(A, { name: uniq('read'), script: s.id, intervalMinutes: 10 });
  const [run] = startedOf(await A.put('/scheduledProcess/Run'), p.id);
  expect(run.href).toBe(`~/scheduledProcess/${run.id}`);
  const r = await A.get(run.href.slice(1));
  expectEnvelope(r, 'GET', A.url(run.href.slice(1)));
  expect(r.body.data).toMatchObject({ href: run.href, dataType: 'ScheduledRun', id: run.id, processId: p.id, status: 0 });
  expect(r.body.data.startDate).toMatch(/^\d{4}-/);
  // The same record whoever answers it: the Run's answer and the read agree.
  expect((await A.get(`/scheduledProcess/${run.id}?fields=id,status`)).body.data).toEqual({ href: run.href, dataType: 'ScheduledRun', id: run.id, status: 0 });
  expectError(await A.get(`/scheduledProcess/${UNKNOWN_ID}`), 404);
  expectError(await B.get(`/scheduledProcess/${run.id}`), 404);
  // Named as the path names it: the row fills the field's `id` with its `{token}`.
  expectError(await A.get('/scheduledProcess/not-a-token'), 400, "The path segment 'token' must be a GUID, got 'not-a-token'.");
});

test('two callers at once start each due process once', async () => {
  const s = await script(A);
  const ps = [];
  for (let i = 0; i < 5; i++) ps.push(await process(A, { name: uniq('race'), script: s.id, intervalMinutes: 30 }));
  const ids = ps.map((p) => p.id);
  const [r1, r2] = await Promise.all([A.put('/scheduledProcess/Run'), A.put('/scheduledProcess/Run')]);
  const started = [...startedOf(r1, ...ids), ...startedOf(r2, ...ids)].map((r) => r.processId).sort();
  expect(started).toEqual([...ids].sort());
  for (const p of ps) expect((await runsOf(A, p.id)).runs).toHaveLength(1);
});

test('a script server that fails to take a run: the run is marked not started with the reason, and the rest still start', async () => {
  const broken = await script(A, 'module.exports.main = function (vvClient, response) { response.json(500, "no"); };');
  const fine = await script(A);
  const [a, b] = [await process(A, { name: uniq('broken'), script: broken.id, intervalMinutes: 10 }), await process(A, { name: uniq('fine'), script: fine.id, intervalMinutes: 10 })];
  const r = await A.put('/scheduledProcess/Run');
  expect(r.status).toBe(200);
  expect(startedOf(r, a.id, b.id)).toHaveLength(2);
  expect((await runsOf(A, a.id)).runs[0]).toMatchObject({ status: 2, message: expect.stringContaining('HTTP 500') });
  expect((await runsOf(A, b.id)).runs[0]).toMatchObject({ status: 0 });
});

test('a script server that answers {code, error} (HTTP 200, as the public one reports a failure): the run is marked not started with it', async () => {
  const s = await script(A, 'module.exports.main = function (vvClient, response) { response.json(200, { code: 401, error: "Unable to acquire access token" }); };');
  const p = await process(A, { name: uniq('refused'), script: s.id, intervalMinutes: 10 });
  expect(startedOf(await A.put('/scheduledProcess/Run'), p.id)).toHaveLength(1);
  expect((await runsOf(A, p.id)).runs[0]).toMatchObject({ status: 2, message: 'The outside process reported code 401: Unable to acquire access token' });
  // An error that is no text is shown as its JSON, not as [object Object].
  const o = await script(A, 'module.exports.main = function (vvClient, response) { response.json(200, { code: 500, error: { reason: "down" } }); };');
  const q = await process(A, { name: uniq('refusedObject'), script: o.id, intervalMinutes: 10 });
  expect(startedOf(await A.put('/scheduledProcess/Run'), q.id)).toHaveLength(1);
  expect((await runsOf(A, q.id)).runs[0]).toMatchObject({ status: 2, message: 'The outside process reported code 500: {"reason":"down"}' });
});

test('a script that answers two values, the first a boolean (as the public samples do: {success, message}): the answer completes the run; other answers leave it waiting for a report', async () => {
  const answering = async (answer: string) => {
    const s = await script(A, `module.exports.main = function (vvClient, response, token) { response.json(200, ${answer}); };`);
    const p = await process(A, { name: uniq('answers'), script: s.id, intervalMinutes: 10 });
    const [started] = startedOf(await A.put('/scheduledProcess/Run'), p.id);
    return { token: started.id, run: (await runsOf(A, p.id)).runs[0] };
  };
  // scripts/test-scripts/scheduled/CreateUser.js of the public script server: the names do not matter.
  expect((await answering("{ success: false, message: 'Scheduled script finished with error' }")).run).toMatchObject({ status: 1, result: false, message: 'Scheduled script finished with error' });
  expect((await answering('{ ok: true }')).run).toMatchObject({ status: 1, result: true, message: '' });
  expect((await answering("[true, 'done', 'more']")).run).toMatchObject({ status: 1, result: true, message: 'done' });
  expect((await answering('{ success: false, message: { reason: "down" } }')).run).toMatchObject({ status: 1, result: false, message: '{"reason":"down"}' });
  const long = await answering("{ success: true, message: 'x'.repeat(5000) }");
  expect(long.run).toMatchObject({ status: 1, result: true, message: 'x'.repeat(4000) });
  // Completed by its answer, the run takes no later report.
  expectError(await A.post(`/scheduledProcess/${long.token}?action=complete&result=false`), 409, /has ended already/);
  // A text, or values that do not start with a boolean: the run waits for the script's report.
  for (const answer of ["'User account created'", "{ code: 200, error: '' }", "{ message: 'done', success: true }"]) {
    expect((await answering(answer)).run).toMatchObject({ status: 0, result: null, message: '', completeDate: null });
  }
});

test('a script that answers only after SCRIPT_TIMEOUT_SECONDS, when its work is done: the run waits, and takes its later report', async () => {
  const s = await script(A, `module.exports.main = function (vvClient, response, token) {
    setTimeout(async () => {
      await fetch(baseUrl + '${A.t.root}/scheduledProcess/' + token + '?action=complete&result=true&message=late', { method: 'POST', headers: { authorization: 'Bearer ${A.token}' } });
      response.json(200, 'done');
    }, 6000);
  };`);
  const p = await process(A, { name: uniq('slow'), script: s.id, intervalMinutes: 10 });
  expect(startedOf(await fetch(`${origin}${A.t.root}/scheduledProcess/Run`, { method: 'PUT', headers: { authorization: `Bearer ${A.token}` } }).then((r) => r.json()).then((body) => ({ body })), p.id)).toHaveLength(1);
  expect((await runsOf(A, p.id)).runs[0]).toMatchObject({ status: 0, message: expect.stringContaining('waits for its script') });
  let run = (await runsOf(A, p.id)).runs[0];
  for (let i = 0; i < 200 && run.status === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    run = (await runsOf(A, p.id)).runs[0];
  }
  expect(run).toMatchObject({ status: 1, result: true, message: 'late' });
});

test('a script that reports its run complete and then answers an HTTP error: the run keeps the completion it reported', async () => {
  const s = await script(A, `module.exports.main = async function (vvClient, response, token) {
    const reported = await fetch(baseUrl + '${A.t.root}/scheduledProcess/' + token + '?action=complete&result=true&message=' + encodeURIComponent('done first'),
      { method: 'POST', headers: { authorization: 'Bearer ${A.token}', 'content-type': 'application/json' } });
    response.json(500, 'reported ' + reported.status + ', then failed');
  };`);
  const p = await process(A, { name: uniq('reported'), script: s.id, intervalMinutes: 10 });
  // Through the real socket, so the script's report reaches this service before its HTTP 500 does.
  const run = await fetch(`${origin}${A.t.root}/scheduledProcess/Run`, { method: 'PUT', headers: { authorization: `Bearer ${A.token}` } }).then((r) => r.json());
  const [started] = startedOf({ body: run }, p.id);
  expect(peer.calls.find((c) => c.body.token === started.id)).toBeDefined();
  // The Run has answered: what the HTTP 500 would write is written (or not) by now.
  expect((await runsOf(A, p.id)).runs).toEqual([expect.objectContaining({ id: started.id, status: 1, result: true, message: 'done first' })]);
});

/** What a run with no report within SCHEDULED_RUN_TIMEOUT_MINUTES (the default, 360) says. */
const OVERDUE = "No report came within 360 minutes (SCHEDULED_RUN_TIMEOUT_MINUTES): the script stopped, or ended without reporting its run complete; its log on the script server says which. A script that runs longer needs a higher SCHEDULED_RUN_TIMEOUT_MINUTES.";
const LATE = 'no report came within SCHEDULED_RUN_TIMEOUT_MINUTES, so it failed';

/** Runs as stored, not as read: whether `PUT scheduledProcess/Run` has closed them. */
async function stored(...ids: string[]) {
  const r = await h.services.reads.query(
    `select id, status, result, message, completed_at = report_by as "endedAtLimit", extract(epoch from report_by - started_at)::int as "limitSeconds"
       from scheduled_run where tenant_id = $1 and id = any($2::uuid[]) order by array_position($2::uuid[], id)`,
    [A.t.tenantId, ids],
  );
  return r.rows as { id: string; status: number; result: boolean | null; message: string; endedAtLimit: boolean | null; limitSeconds: number }[];
}

/** Moves runs' dates back in SQL, so that their limit ended `ago` (an interval) ago. */
const lapse = (ids: string[], ago = '1 minute') =>
  h.services.reads.query(
    `update scheduled_run set started_at = started_at - (report_by - now() + $3::interval), completed_at = completed_at - (report_by - now() + $3::interval), report_by = now() - $3::interval
      where tenant_id = $1 and id = any($2::uuid[])`,
    [A.t.tenantId, ids, ago],
  );

const RUN_FIELDS = 'id status result message startDate completeDate';
const runRead = async (id: string) => {
  const rest = (await A.get(`/scheduledProcess/${id}`)).body.data;
  const gql = (await A.gql(`query ($id: UUID!) { scheduledRun(id: $id) { ${RUN_FIELDS} } }`, { id })).body.data.scheduledRun;
  // REST and GraphQL read one record.
  expect(gql).toEqual(Object.fromEntries(RUN_FIELDS.split(' ').map((k) => [k, rest[k]])));
  return rest;
};

describe('a run with no report within SCHEDULED_RUN_TIMEOUT_MINUTES', () => {
  test('reads as failed at once (REST, GraphQL, q); PUT scheduledProcess/Run stores it as read; a report after it is a 409 saying so', async () => {
    const run = await waitingRun();
    expect(await stored(run.id)).toEqual([expect.objectContaining({ status: 0, limitSeconds: 360 * 60 })]);
    await lapse([run.id]);
    const read = await runRead(run.id);
    expect(read).toMatchObject({ id: run.id, status: 2, result: null, message: OVERDUE });
    expect(read.completeDate > read.startDate).toBe(true);
    const byStatus = async (status: number) =>
      (await A.gql(`query ($id: UUID!) { scheduledProcess(id: $id) { runs(q: "status eq ${status}") { id } } }`, { id: run.processId })).body.data.scheduledProcess.runs;
    expect([await byStatus(2), await byStatus(0)]).toEqual([[{ id: run.id }], []]);
    expect(await stored(run.id)).toEqual([expect.objectContaining({ status: 0 })]);
    // Not yet stored as failed: the report is refused all the same.
    expectError(await U.post(`/scheduledProcess/${run.id}?action=complete&result=true&message=late`), 409, LATE);

    expect((await A.put('/scheduledProcess/Run')).status).toBe(200);
    expect(await stored(run.id)).toEqual([{ id: run.id, status: 2, result: null, message: OVERDUE, endedAtLimit: true, limitSeconds: 360 * 60 }]);
    expect(await runRead(run.id)).toEqual(read);
    expectError(await U.post(`/scheduledProcess/${run.id}?action=complete&result=true`), 409, LATE);
    const gql = await U.gql('mutation ($token: UUID!) { completeScheduledRun(token: $token, action: "complete", result: true) { id } }', { token: run.id });
    expect(gql.body.errors[0]).toMatchObject({ message: `The scheduled run '${run.id}' has ended already (${LATE}).`, extensions: { code: 'CONFLICT' } });
    expect(await runRead(run.id)).toEqual(read);
  });

  test('a run within its limit is left running, and one that could not be started still says so to a late report', async () => {
    const running = await waitingRun();
    const broken = await process(A, { name: uniq('broken'), script: (await script(A, 'module.exports.main = function (vvClient, response) { response.json(500, "no"); };')).id, intervalMinutes: 10 });
    const [failed] = startedOf(await A.put('/scheduledProcess/Run'), broken.id);
    await lapse([failed.id]);
    expect((await A.put('/scheduledProcess/Run')).status).toBe(200);
    expect(await stored(running.id, failed.id)).toEqual([
      expect.objectContaining({ status: 0, message: '' }),
      expect.objectContaining({ status: 2, message: expect.stringContaining('HTTP 500'), endedAtLimit: false }),
    ]);
    expectError(await U.post(`/scheduledProcess/${failed.id}?action=complete`), 409, 'it could not be started');
  });

  test('two Run calls at once: each overdue run is closed as read, each due process started once', async () => {
    const overdue = [await waitingRun(), await waitingRun(), await waitingRun()];
    const ids = overdue.map((r) => r.id);
    await lapse(ids);
    const reads = await Promise.all(ids.map(runRead));
    const s = await script(A);
    const due = [];
    for (let i = 0; i < 3; i++) due.push((await process(A, { name: uniq('dueToo'), script: s.id, intervalMinutes: 30 })).id);
    const [r1, r2] = await Promise.all([A.put('/scheduledProcess/Run'), A.put('/scheduledProcess/Run')]);
    expect([r1.status, r2.status]).toEqual([200, 200]);
    expect([...startedOf(r1, ...due), ...startedOf(r2, ...due)].map((r) => r.processId).sort()).toEqual([...due].sort());
    expect(await stored(...ids)).toEqual(ids.map((id) => ({ id, status: 2, result: null, message: OVERDUE, endedAtLimit: true, limitSeconds: 360 * 60 })));
    expect(await Promise.all(ids.map(runRead))).toEqual(reads);
  });

  test('reports racing a Run as their runs reach the limit: each run ends once, as its report was answered, and a report that won keeps its result', async () => {
    const runs = [];
    for (let i = 0; i < 12; i++) runs.push(await waitingRun());
    const ids = runs.map((r) => r.id);
    // Four well past the limit, four reaching it about now, four well within it.
    await lapse(ids.slice(0, 4));
    await h.services.reads.query(
      `update scheduled_run r set report_by = now() + make_interval(secs => x.i * 0.02), started_at = now() + make_interval(secs => x.i * 0.02) - interval '360 minutes'
         from unnest($2::uuid[]) with ordinality x(id, i) where r.tenant_id = $1 and r.id = x.id`,
      [A.t.tenantId, ids.slice(4, 8)],
    );
    const [run, ...reports] = await Promise.all([
      A.put('/scheduledProcess/Run'),
      ...ids.map((id) => U.post(`/scheduledProcess/${id}?action=complete&result=true&message=in%20time`)),
    ]);
    expect(run.status).toBe(200);
    expect(reports.map((r) => r.status).slice(0, 4)).toEqual([409, 409, 409, 409]);
    expect(reports.map((r) => r.status).slice(8)).toEqual([200, 200, 200, 200]);
    for (const [i, id] of ids.entries()) {
      const won = reports[i].status === 200;
      if (!won) expectError(reports[i], 409, LATE);
      expect(await runRead(id)).toMatchObject(won ? { status: 1, result: true, message: 'in time' } : { status: 2, result: null, message: OVERDUE });
    }
    // The next Run stores what was read, and changes no report.
    expect((await A.put('/scheduledProcess/Run')).status).toBe(200);
    expect((await stored(...ids)).map((r) => [r.status, r.result])).toEqual(reports.map((r) => (r.status === 200 ? [1, true] : [2, null])));
  });

  test.each([
    ['a report committed while the close waits for the run: the report stays', 'PUT', `update scheduled_run set status = 1, result = true, message = 'just in time', completed_at = now() where tenant_id = $1 and id = $2`, { status: 1, result: true, message: 'just in time' }],
    ['a close committed while the report waits for the run: the report is the 409', 'POST', `update scheduled_run t set status = 2, message = 'closed', completed_at = t.report_by where tenant_id = $1 and id = $2`, { status: 2, result: null, message: 'closed' }],
  ] as const)('%s', async (_, method, other, after) => {
    const run = await waitingRun();
    // Past its limit for the close; for the report, still within it, as a report begun a moment before the close's clock passed it.
    if (method === 'PUT') await lapse([run.id]);
    const r = await whileHeld(h, { text: other, values: [A.t.tenantId, run.id] }, () =>
      method === 'PUT' ? A.put('/scheduledProcess/Run') : U.post(`/scheduledProcess/${run.id}?action=complete&result=false`),
    );
    if (method === 'PUT') expect(r.status).toBe(200);
    else expectError(r, 409, 'has ended already');
    expect(await stored(run.id)).toEqual([expect.objectContaining(after)]);
  });

  test("the script server's answer after the limit changes nothing: the run has failed", async () => {
    // A gate the script waits at, released once the run's limit has been moved into the past.
    const waiting: http.ServerResponse[] = [];
    const gate = http.createServer((_, res) => void waiting.push(res));
    await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
    const gateUrl = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
    try {
      const s = await script(A, `module.exports.main = async function (vvClient, response, token) {
        await fetch('${gateUrl}/' + token);
        response.json(200, { success: true, message: 'answered late' });
      };`);
      const p = await process(A, { name: uniq('late'), script: s.id, intervalMinutes: 10 });
      const ran = A.put('/scheduledProcess/Run');
      while (waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const [started] = (await runsOf(A, p.id)).runs;
      await lapse([started.id]);
      waiting[0].end('go');
      expect(startedOf(await ran, p.id)).toHaveLength(1);
      expect(await stored(started.id)).toEqual([expect.objectContaining({ status: 0, result: null })]);
      expect(await runRead(started.id)).toMatchObject({ status: 2, result: null, message: OVERDUE });
    } finally {
      gate.closeAllConnections();
      await new Promise((resolve) => gate.close(resolve));
    }
  });
});

describe('managing processes (administrators)', () => {
  test('bad input is a 400 naming the field; names are unique without case; a script in use cannot be deleted', async () => {
    const s = await script(A);
    const name = uniq('managed');
    for (const [input, message] of [
      [{ name, intervalMinutes: 5 }, "'script' is missing"],
      [{ name, script: 'no such script', intervalMinutes: 5 }, "'script' names no script"],
      [{ name, script: s.id }, "'intervalMinutes' is missing"],
      [{ name, script: s.id, intervalMinutes: 0 }, "'intervalMinutes' must be a whole number of minutes"],
      [{ name, script: s.id, intervalMinutes: 5, nextRunDate: '2030-02-30' }, "'nextRunDate' must be an ISO 8601 date-time"],
      [{ name: ' ', script: s.id, intervalMinutes: 5 }, "'name' must not be blank"],
      [{ script: s.id, intervalMinutes: 5 }, "The mandatory field 'name' is missing."],
    ] as const) {
      const r = await A.gql('mutation ($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { id } }', { input });
      expect([message, r.body.errors?.[0]?.message]).toEqual([message, expect.stringContaining(message)]);
    }
    const p = await process(A, { name, script: s.id, intervalMinutes: 5 });
    const dup = await A.gql('mutation ($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { id } }', { input: { name: name.toUpperCase(), script: s.id, intervalMinutes: 5 } });
    expect(dup.body.errors[0].extensions.code).toBe('CONFLICT');
    const del = await A.gql('mutation ($id: UUID!) { deleteScript(id: $id) { success } }', { id: s.id });
    expect(del.body.errors[0].extensions.code).toBe('CONFLICT');
    expect(del.body.errors[0].message).toBe(`Script '${s.name}' is run by the scheduled process '${name}': delete it or give it another script first.`);
    const upd = await A.gql('mutation ($id: UUID!) { updateScheduledProcess(id: $id, input: { enabled: false, intervalMinutes: 15 }) { enabled intervalMinutes } }', { id: p.id });
    expect(upd.body.data.updateScheduledProcess).toEqual({ enabled: false, intervalMinutes: 15 });
    expect((await A.gql('mutation ($id: UUID!) { deleteScheduledProcess(id: $id) { success } }', { id: p.id })).body.data.deleteScheduledProcess).toEqual({ success: true });
    expect((await A.gql('mutation ($id: UUID!) { deleteScript(id: $id) { success } }', { id: s.id })).body.data.deleteScript).toEqual({ success: true });
  });

  test('a delete that waits for another delete of the process finds it gone: NOT_FOUND, not a second success', async () => {
    const s = await script(A);
    const p = await process(A, { name: uniq('gone'), script: s.id, intervalMinutes: 5, nextRunDate: '2099-01-01' });
    // The other delete, committed while this one waits for the process's row.
    const other = { text: 'delete from scheduled_process where tenant_id = $1 and id = $2', values: [A.t.tenantId, p.id] };
    const r = await whileHeld(h, other, () => A.gql('mutation ($id: UUID!) { deleteScheduledProcess(id: $id) { success } }', { id: p.id }));
    expect(r.body.errors?.[0]).toMatchObject({ message: `Scheduled process '${p.id}' was not found.`, extensions: { code: 'NOT_FOUND' } });
  });

  test.each([
    ['createScheduledProcess', 'id'],
    ['createScheduledProcess', 'name'],
    ['updateScheduledProcess', 'id'],
    ['updateScheduledProcess', 'name'],
  ] as const)("%s naming the script by its %s, racing the script's delete committed meanwhile: the 400 of an unknown script, not the foreign key's 404; nothing written", async (mutation, by) => {
    const kept = await script(A);
    const p = await process(A, { name: uniq('racer'), script: kept.id, intervalMinutes: 5, nextRunDate: '2099-01-01' });
    const name = uniq('made');
    const send = (ref: string) =>
      mutation === 'createScheduledProcess'
        ? A.gql('mutation ($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { id } }', { input: { name, script: ref, intervalMinutes: 5 } })
        : A.gql('mutation ($id: UUID!, $input: ScheduledProcessInput!) { updateScheduledProcess(id: $id, input: $input) { id } }', { id: p.id, input: { script: ref } });
    const doomed = await script(A);
    const ref = doomed[by];
    // The delete, committed while the write waits for the script's row.
    const other = { text: 'delete from script where tenant_id = $1 and id = $2', values: [A.t.tenantId, doomed.id] };
    const r = await whileHeld(h, other, () => send(ref));
    expect(r.body.errors?.[0]).toMatchObject({ message: `The field 'script' names no script: '${ref}'.`, extensions: { code: 'BAD_REQUEST' } });
    // Now the script is gone: the same request names an unknown script.
    expectAsUnknown(r, await send(ref), doomed.id);
    expect(r.body.data).toEqual({ [mutation]: null });
    const processes = (await A.gql('query { scheduledProcesses(limit: 1000) { items { id name scriptId } } }')).body.data.scheduledProcesses.items;
    expect(processes.filter((x: { name: string }) => x.name === name)).toEqual([]);
    expect(processes.find((x: { id: string }) => x.id === p.id)).toMatchObject({ scriptId: kept.id });
  });

  test('at once, 15 rounds (these writes are /graphql only, so no route sends them twice): two scripts or two processes renamed to one name, one wins; a script deleted while a process is made on it, one of the two wins', async () => {
    const codeOf = (r: Reply) => r.body.errors?.[0]?.extensions?.code ?? 'ok';
    for (let round = 0; round < 15; round++) {
      const [s1, s2] = [await script(A), await script(A)];
      const name = uniq('same');
      const scripts = await Promise.all([s1, s2].map((s) => A.gql('mutation ($id: UUID!, $name: String) { updateScript(id: $id, input: { name: $name }) { id } }', { id: s.id, name })));
      expect(scripts.map(codeOf).sort()).toEqual(['CONFLICT', 'ok']);
      expect(scripts.find((r) => r.body.errors)!.body.errors[0].message).toBe(`A script named '${name}' already exists.`);
      const later = { intervalMinutes: 5, nextRunDate: '2099-01-01' };
      const [p1, p2] = [await process(A, { name: uniq('p'), script: s2.id, ...later }), await process(A, { name: uniq('p'), script: s2.id, ...later })];
      const processes = await Promise.all([p1, p2].map((p) => A.gql('mutation ($id: UUID!, $name: String) { updateScheduledProcess(id: $id, input: { name: $name }) { id } }', { id: p.id, name })));
      expect(processes.map(codeOf).sort()).toEqual(['CONFLICT', 'ok']);
      const doomed = await script(A);
      const [del, made] = await Promise.all([
        A.gql('mutation ($id: UUID!) { deleteScript(id: $id) { success } }', { id: doomed.id }),
        A.gql('mutation ($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { id } }', { input: { name: uniq('on'), script: doomed.id, ...later } }),
      ]);
      // Deleted first, the process names no script (400); made first, the script is in use (409).
      expect([codeOf(del), codeOf(made)]).toEqual(codeOf(del) === 'ok' ? ['ok', 'BAD_REQUEST'] : ['CONFLICT', 'ok']);
    }
  }, 60_000);

  test('an ordinary user neither runs nor changes processes (403)', async () => {
    expectError(await U.put('/scheduledProcess/Run'), 403);
    const r = await U.gql('mutation { createScheduledProcess(input: { name: "mine", script: "x", intervalMinutes: 5 }) { id } }');
    expect(r.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
