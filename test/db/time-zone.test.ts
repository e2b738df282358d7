/**
 * Every database session is in UTC, whatever the server's default: `q` compares timestamptz
 * columns with zone-less literals (UTC by the spec), and dates are read back as text. And none
 * compiles statements just in time (docs/decisions.md, "Running and limits").
 */
import { serverWithSettings } from './settings-server.js';

// A server whose default is far from UTC (new sessions take it).
const s = serverWithSettings('zone', { timezone: 'Asia/Kolkata' });

test('both pools\' sessions compile no statement to machine code (jit off): its 0.4 s of compiling a count of 500,000 documents saved nothing', async () => {
  expect((await s.h.services.reads.query("select current_setting('jit') as j")).rows[0].j).toBe('off');
  const [row] = await s.h.services.orm.em.fork().getConnection().execute("select current_setting('jit') as j");
  expect(row.j).toBe('off');
});

test('both pools\' sessions are in UTC though the database says otherwise', async () => {
  expect((await s.h.services.reads.query("select current_setting('TimeZone') as z")).rows[0].z).toBe('UTC');
  const [row] = await s.h.services.orm.em.fork().getConnection().execute("select current_setting('TimeZone') as z");
  expect(row.z).toBe('UTC');
});

test('q reads a zone-less date as UTC: a record made now is before now plus a minute and after now minus one', async () => {
  const name = `zone-${Date.now()}`;
  const folder = (await s.A.post('/folders', { name, description: 'zone', allowRevisions: true })).body.data;
  expect((await s.A.post('/documents', { folderId: folder.id, name, description: 'zone' })).status).toBe(200);
  const at = (ms: number) => new Date(Date.now() + ms).toISOString().slice(0, 19);
  const found = async (q: string) => (await s.A.get(`/documents?q=${encodeURIComponent(`name eq '${name}' and ${q}`)}`)).body.data.length;
  expect(await found(`createDate lt '${at(60_000)}'`)).toBe(1);
  expect(await found(`createDate gt '${at(-60_000)}'`)).toBe(1);
  const doc = (await s.A.get(`/documents?q=${encodeURIComponent(`name eq '${name}'`)}`)).body.data[0];
  expect(Math.abs(Date.parse(`${doc.createDate}Z`) - Date.now())).toBeLessThan(60_000);
});
