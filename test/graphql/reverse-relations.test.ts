/**
 * Relations from a record back to what it names (a subscription's user and folder, a saved
 * search's owner and folder, an attachment's message, a process's script): each resolved through
 * a loader, so a page of records costs the same number of statements however long it is.
 */
import { ALERT_EVENTS } from '../../src/alert-events.js';
import { Harness } from '../harness.js';
import { type Api, adminApi, uniq } from '../rest/support.js';

let h: Harness;
let A: Api;

beforeAll(async () => {
  h = await Harness.start();
  A = await adminApi(h);
});
afterAll(() => h.stop());

/** Runs `query(limit)` at two page sizes: the data of the larger, and whether both cost the same statements. */
async function pages(query: (limit: number) => Promise<{ body: { data: unknown; errors?: unknown } }>) {
  const small = await h.countQueries(() => query(1));
  const big = await h.countQueries(() => query(3));
  expect(big.result.body.errors).toBeUndefined();
  expect(big.statements.length).toBe(small.statements.length);
  return big.result.body.data as Record<string, { items: Record<string, unknown>[] }>;
}

test('subscriptions name their user and folder; saved searches their owner and folder', async () => {
  const folders: { id: string; name: string }[] = [];
  for (let i = 0; i < 3; i++) folders.push((await A.post('/folders', { name: uniq(`Rel${i}`) })).body.data as { id: string; name: string });
  for (const f of folders) {
    expect((await A.post(`/folders/${f.id}/alerts/${ALERT_EVENTS.documentAdded.id}`)).status).toBe(200);
    expect((await A.gql('mutation ($f: UUID, $n: String) { createSavedSearch(input: { name: $n, q: "name like \'%\'", folderId: $f }) { asid } }', { f: f.id, n: uniq('s') })).body.errors).toBeUndefined();
  }
  const names = new Set(folders.map((f) => f.name));
  const alerts = await pages((n) => A.gql(`{ alertSubscriptions(limit: ${n}) { items { user { userid } folder { name } } } }`));
  for (const a of alerts.alertSubscriptions.items) expect(a).toEqual({ user: { userid: 'admin' }, folder: { name: expect.any(String) } });
  expect(alerts.alertSubscriptions.items.every((a) => names.has((a.folder as { name: string }).name))).toBe(true);
  const searches = await pages((n) => A.gql(`{ savedSearches(limit: ${n}) { items { owner { userid } folder { name } } } }`));
  expect(searches.savedSearches.items).toHaveLength(3);
  for (const s of searches.savedSearches.items) expect(s).toEqual({ owner: { userid: 'admin' }, folder: { name: expect.any(String) } });
});

test('an attachment names its message; a scheduled process its script', async () => {
  const file = { name: 'a.txt', base64: Buffer.from('a').toString('base64') };
  for (let i = 0; i < 3; i++) {
    const r = await A.gql('mutation ($f: [FileInput!]) { sendEmail(input: { recipients: ["x@example.com"], subject: "s", body: "b", fileUpload: $f }) { success } }', { f: [file] });
    expect(r.body.errors).toBeUndefined();
  }
  const emails = await pages((n) => A.gql(`{ emails(limit: ${n}) { items { id attachments { email { id } } } } }`));
  for (const e of emails.emails.items) expect((e.attachments as { email: { id: string } }[])[0].email.id).toBe(e.id);

  for (let i = 0; i < 3; i++) {
    const s = (await A.gql('mutation ($input: ScriptInput!) { createScript(input: $input) { id } }', { input: { name: uniq('job'), source: 'module.exports.main = () => {};' } })).body.data.createScript;
    const p = await A.gql('mutation ($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { id } }', { input: { name: uniq('proc'), script: s.id, intervalMinutes: 60 } });
    expect(p.body.errors).toBeUndefined();
  }
  const processes = await pages((n) => A.gql(`{ scheduledProcesses(limit: ${n}) { items { scriptId script { id } } } }`));
  for (const p of processes.scheduledProcesses.items) expect((p.script as { id: string }).id).toBe(p.scriptId);
});
