/**
 * The pace watch (src/body-pace.ts) on jest's fake clock: when a body falls behind by what has
 * arrived, and how the read waiting then ends. Over HTTP: test/rest/body-budget.test.ts.
 */
import { jest } from '@jest/globals';
import { watchPace, type PaceWatch } from '../src/body-pace.js';

let slow: number;
let watch: PaceWatch;
/** Grace 1 s, 1000 bytes a second; `tooSlow` counts the errors it makes. */
const start = () => {
  slow = 0;
  watch = watchPace({ graceSeconds: 1, minBytesPerSecond: 1000, tooSlow: () => (slow++, new Error('too slow')) });
};
/** Moves the clock to `ms` after the watch started. */
let at = 0;
const advanceTo = (ms: number) => {
  jest.advanceTimersByTime(ms - at);
  at = ms;
};

beforeEach(() => {
  jest.useFakeTimers();
  at = 0;
  start();
});
afterEach(() => {
  watch.stop();
  jest.useRealTimers();
});

/** A read that ends when told, as a stalled body's read does. */
function pendingRead() {
  let end!: (value: string) => void;
  const reading = new Promise<string>((resolve) => (end = resolve));
  const read = watch.read(() => reading);
  const settled = read.then(
    (value) => ({ value }),
    (err: Error) => ({ err: err.message }),
  );
  return { end, settled };
}

describe('a read', () => {
  test('waiting when the body falls behind fails with tooSlow, made once', async () => {
    const { settled } = pendingRead();
    advanceTo(999);
    expect(watch.behind).toBe(false);
    advanceTo(1000);
    expect(watch.behind).toBe(true);
    expect(await settled).toEqual({ err: 'too slow' });
    expect(slow).toBe(1);
  });

  test('that ended before is its chunk, and nothing is counted; the next read fails at once', async () => {
    const { end, settled } = pendingRead();
    end('chunk');
    expect(await settled).toEqual({ value: 'chunk' });
    advanceTo(1000);
    expect(watch.behind).toBe(true);
    // No read was waiting: no refusal made.
    expect(slow).toBe(0);
    const next = jest.fn(() => Promise.resolve('never read'));
    await expect(watch.read(next)).rejects.toThrow('too slow');
    expect(next).not.toHaveBeenCalled();
    expect(slow).toBe(1);
  });

  test('that fails is its error', async () => {
    await expect(watch.read(() => Promise.reject(new Error('hung up')))).rejects.toThrow('hung up');
    expect(slow).toBe(0);
  });
});

describe('a body (grace 1 s, 1000 bytes a second)', () => {
  test('3000 bytes arrived: stalled, it is behind from 4 s (1 s of grace, 3 s for its bytes), not before', () => {
    advanceTo(500);
    watch.arrived(3000);
    advanceTo(3999);
    expect(watch.behind).toBe(false);
    advanceTo(4000);
    expect(watch.behind).toBe(true);
  });

  test('nothing arrived: behind once its grace is over', () => {
    advanceTo(999);
    expect(watch.behind).toBe(false);
    advanceTo(1000);
    expect(watch.behind).toBe(true);
  });

  test('ahead of the pace, it keeps its lead through a stall', () => {
    // 10 s of lead sent in the first second, then nothing.
    advanceTo(200);
    watch.arrived(4000);
    advanceTo(900);
    watch.arrived(6000);
    advanceTo(10_900);
    expect(watch.behind).toBe(false);
    advanceTo(11_000);
    expect(watch.behind).toBe(true);
  });

  test('keeping up, 100 bytes every 100 ms, it never falls behind', () => {
    for (let ms = 100; ms <= 20_000; ms += 100) {
      advanceTo(ms);
      watch.arrived(100);
    }
    expect(watch.behind).toBe(false);
  });
});
