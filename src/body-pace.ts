/**
 * The least pace of a request body held in memory, and of an upload's whole (src/rest/upload.ts)
 * (BODY_GRACE_SECONDS, BODY_MIN_BYTES_PER_SECOND), the rule of Apache's mod_reqtimeout
 * (`body=20,MinRate=500`): a body has the grace period to arrive, and one second more for every
 * `minBytesPerSecond` bytes that have arrived. One that falls behind ends its reading with
 * `tooSlow()` (a 408, its connection closed), and what it took of the budget comes back
 * (src/body-budget.ts): a body declared and then never sent, or sent a byte a minute, held it
 * until REQUEST_TIMEOUT_SECONDS.
 */
export interface Pace {
  graceSeconds: number;
  minBytesPerSecond: number;
  /** The error a body too slow ends with; called only when that error is thrown (it may count it). */
  tooSlow: () => Error;
}

/** A body being read to `pace`: `read` reads a chunk, `arrived` counts what came, `behind` says it fell behind, `stop` ends the watch. */
export interface PaceWatch {
  /** `reading()`, or `tooSlow()` when the body is behind or falls behind before the chunk comes. */
  read<T>(reading: () => Promise<T>): Promise<T>;
  readonly behind: boolean;
  arrived(bytes: number): void;
  stop(): void;
}

/** setTimeout's longest delay: a longer one is taken as 1 ms. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Watches a body from now. One timer, set for when the body would fall behind by what has arrived
 * so far, and set again from there while it keeps up: a chunk only adds to a sum. The read waiting
 * when it falls behind is failed through one slot, cleared as each read ends: nothing that lives as
 * long as the body keeps a trace of every read (a promise raced by each would).
 */
export function watchPace({ graceSeconds, minBytesPerSecond, tooSlow }: Pace): PaceWatch {
  const started = performance.now();
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let behind = false;
  let fail: ((e: Error) => void) | undefined;
  const check = () => {
    const wait = started + (graceSeconds + bytes / minBytesPerSecond) * 1000 - performance.now();
    if (wait <= 0) {
      behind = true;
      return fail?.(tooSlow());
    }
    // Never what keeps the process alive: the reading it watches does.
    timer = setTimeout(check, Math.min(wait, MAX_DELAY_MS)).unref();
  };
  check();
  return {
    read: <T>(reading: () => Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        if (behind) return reject(tooSlow());
        fail = reject;
        reading().then(
          (value) => {
            fail = undefined;
            resolve(value);
          },
          (err: unknown) => {
            fail = undefined;
            reject(err);
          },
        );
      }),
    get behind() {
      return behind;
    },
    arrived: (n) => {
      bytes += n;
    },
    stop: () => clearTimeout(timer),
  };
}
