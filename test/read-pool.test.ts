/** The read pool outlives a dropped connection: the loss is logged and the next read gets a fresh one. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { initOrm } from '../src/db/orm.js';
import { createReadPool } from '../src/read/read-pool.js';

test('an idle read connection the server drops is logged as a warning, and reads go on', async () => {
  const orm = await initOrm(process.env.QUIRE_TEST_DATABASE_URL!, 2);
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) });
  const pool = createReadPool(orm, pino({ level: 'warn' }, sink), 100);
  try {
    const { rows } = await pool.query<{ pid: number }>('select pg_backend_pid() as pid');
    await orm.em.getConnection().execute('select pg_terminate_backend(?)', [rows[0].pid]);
    for (let i = 0; i < 500 && !lines.length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(lines).toEqual([expect.objectContaining({ level: 40, msg: 'idle read connection lost' })]);

    const again = await pool.query<{ pid: number }>('select pg_backend_pid() as pid');
    expect(again.rows[0].pid).not.toBe(rows[0].pid);
  } finally {
    await pool.end();
    await orm.close(true);
  }
});
