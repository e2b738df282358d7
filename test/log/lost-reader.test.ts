/**
 * A server whose log reader stops reading and then goes away (a supervisor's pipe that died)
 * still stops on SIGTERM. Lines left waiting for the full pipe meet EPIPE when they are flushed at
 * exit; the logger must give them up, not retry them forever (sonic-boom 4.x did: the process
 * then spun at 'stopped' and ignored every further SIGTERM).
 */
import { startServer, stop } from '../server-process.js';

test('with its log pipe full and then closed, SIGTERM still ends the server', async () => {
  const s = await startServer({ LOG_LEVEL: 'info', DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL! });
  // Stop reading: the pipe (64 KiB) fills with request lines and the logger starts to wait.
  s.child.stdout!.removeAllListeners('data');
  s.child.stdout!.pause();
  const hit = () => fetch(`http://127.0.0.1:${s.port}/api/v1/c/d/${'x'.repeat(400)}`).then((r) => r.status, () => 0);
  const statuses: number[] = [];
  for (let i = 0; i < 400; i++) statuses.push(await hit());
  expect(statuses.filter((st) => st === 404).length).toBeGreaterThan(0);
  // The reader goes away with lines still waiting: every later write meets EPIPE.
  s.child.stdout!.destroy();
  for (let i = 0; i < 20; i++) await hit();
  expect(await stop(s)).toBe(0);
}, 90_000);
