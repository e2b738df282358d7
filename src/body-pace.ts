/**
 * The least pace of a request body held in memory (BODY_GRACE_SECONDS, BODY_MIN_BYTES_PER_SECOND),
 * the rule of Apache's mod_reqtimeout (`body=20,MinRate=500`): a body has the grace period to
 * arrive, and one second more for every `minBytesPerSecond` bytes that have arrived. One that falls
 * behind ends its reading with `tooSlow()` (a 408, its connection closed), and what it took of the
 * budget comes back (src/body-budget.ts): a body declared and then never sent, or sent a byte a
 * minute, held it until REQUEST_TIMEOUT_SECONDS.
 */
export interface Pace {
  graceSeconds: number;
  minBytesPerSecond: number;
  /** The error a body too slow ends with. */
  tooSlow: () => Error;
}

/** A body being read to `pace`: `late` fails once it falls behind (then `behind`), `arrived` counts what came, `stop` ends the watch. */
export interface PaceWatch {
  late: Promise<never>;
  readonly behind: boolean;
  arrived(bytes: number): void;
  stop(): void;
}

/** setTimeout's longest delay: a longer one is taken as 1 ms. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Watches a body from now. One timer, set for when the body would fall behind by what has arrived
 * so far, and set again from there while it keeps up: a chunk only adds to a sum.
 */
export function watchPace({ graceSeconds, minBytesPerSecond, tooSlow }: Pace): PaceWatch {
  const started = performance.now();
  let bytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let behind = false;
  const late = new Promise<never>((_, reject) => {
    const check = () => {
      const wait = started + (graceSeconds + bytes / minBytesPerSecond) * 1000 - performance.now();
      if (wait <= 0) {
        behind = true;
        return reject(tooSlow());
      }
      // Never what keeps the process alive: the reading it watches does.
      timer = setTimeout(check, Math.min(wait, MAX_DELAY_MS)).unref();
    };
    check();
  });
  // Only a reading still going awaits it.
  late.catch(() => undefined);
  return {
    late,
    get behind() {
      return behind;
    },
    arrived: (n) => {
      bytes += n;
    },
    stop: () => clearTimeout(timer),
  };
}
