/**
 * The loop of a server's background jobs (the e-mail sender, the zip builder): `work` runs at
 * once, then `intervalMs` after each run ends, until stopped. A run that fails is logged through
 * `failed` and the next interval tries again. Its timer never keeps the process alive.
 */
export interface Repeating {
  /** Stops the timer, aborts `work`'s signal and waits for the run in flight. */
  stop(): Promise<void>;
}

export function repeat(intervalMs: number, work: (signal: AbortSignal) => Promise<void>, failed: (err: unknown) => void): Repeating {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      await work(abort.signal);
    } catch (err) {
      failed(err);
    }
    if (!abort.signal.aborted) timer = setTimeout(() => (running = tick()), intervalMs).unref();
  };
  timer = setTimeout(() => (running = tick()), 0).unref();
  return {
    async stop() {
      abort.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
