/**
 * A statement PostgreSQL stops at its statement timeout (DB_STATEMENT_TIMEOUT_MS) answers a 503
 * that says so, and that nothing was changed, not that the database is away (it answered).
 * Runs on a database of its own whose sessions stop statements after 300 ms; a change waits there
 * for a row another connection holds.
 */
import pg from 'pg';
import { expectError, uniq } from '../rest/support.js';
import { serverWithSettings } from './settings-server.js';

const s = serverWithSettings('stmttimeout', { statement_timeout: '300ms' });

test('a change stopped while it waits for a held row: 503 naming DB_STATEMENT_TIMEOUT_MS, Retry-After, and the row as it was', async () => {
  const group = (await s.A.post('/groups', { name: uniq('Held'), description: 'before' })).body.data;
  const holder = new pg.Client({ connectionString: s.db.url });
  await holder.connect();
  try {
    await holder.query('begin');
    await holder.query('select 1 from user_group where id = $1 for update', [group.id]);
    const r = await s.A.put(`/groups/${group.id}`, { description: 'after' });
    expectError(r, 503, /^The database stopped this request: it ran longer than one statement may \(DB_STATEMENT_TIMEOUT_MS\)\. Nothing was changed\./);
    expect(r.headers.get('retry-after')).toBe('5');
    expect(r.body.meta.errors[0].developerMessage).toMatch(/statement_timeout/);
    expect(r.body.meta.errors[0].message).not.toMatch(/not available/);
  } finally {
    await holder.query('rollback');
    await holder.end();
  }
  expect((await s.A.get(`/groups/${group.id}`)).body.data[0].description).toBe('before');
});
