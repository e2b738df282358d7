/** The compiled server as a separate process, started and stopped as an operator would. */
import { spawn, type ChildProcess } from 'node:child_process';

export const ROOT = process.cwd();

export interface Started {
  child: ChildProcess;
  port: number;
  stdout: () => string;
}

/** Resolves when the output so far matches `pattern`; rejects after `ms` or when the process exits first. */
export function waitFor(child: ChildProcess, output: () => string, pattern: RegExp, ms = 60_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = pattern.exec(output());
      if (!m) return false;
      done();
      resolve(m);
      return true;
    };
    const onData = () => void check();
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`process exited with ${code} before printing ${pattern}:\n${output()}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no ${pattern} within ${ms} ms:\n${output()}`));
    }, ms);
    const done = () => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
    };
    if (check()) return;
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * `command` under `bash`'s `ulimit` (`-f 64`: files of at most 64 KiB; `-n 64`: 64 descriptors;
 * soft and hard): Node has no call that lowers its own limits, so the child starts under them.
 */
export const underLimit = (ulimit: string, command: string, args: string[]): [string, string[]] => [
  'bash',
  ['-c', `ulimit ${ulimit} && exec "$0" "$@"`, command, ...args],
];

/**
 * The compiled server as `npm start` runs it after its build (global-setup built dist/), or
 * `npm start` itself without the rebuild (`viaNpm`); `ulimit`: under those limits (`underLimit`).
 */
export async function startServer(env: Record<string, string>, { viaNpm = false, ulimit }: { viaNpm?: boolean; ulimit?: string } = {}): Promise<Started> {
  // `--ignore-scripts` skips prestart's rebuild: it would delete dist/ under the other test files'
  // servers (global-setup built it once for the run); `start` itself runs as the README's command.
  const [program, programArgs] = viaNpm ? ['npm', ['start', '--ignore-scripts']] : [process.execPath, ['dist/src/server.js']];
  const [command, args] = ulimit ? underLimit(ulimit, program, programArgs) : [program, programArgs];
  // A server on the run's database uses the run's file store, as processes on one database do: its
  // zip builder and purge may take rows other test files made.
  const shared = env.DATABASE_URL !== undefined && env.DATABASE_URL === process.env.QUIRE_TEST_DATABASE_URL;
  const files = shared && process.env.QUIRE_TEST_FILES_DIR ? { FILES_DIR: process.env.QUIRE_TEST_FILES_DIR } : {};
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', PORT: '0', HOST: '127.0.0.1', ...files, ...env },
    // Its own process group, so that a server that ignores its signal can still be killed whole.
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  // The server logs "listening" last, after its signal handlers and any first-run credentials.
  const m = await waitFor(child, () => out, /"port":(\d+),"graphql".*"msg":"listening"/).catch((e: unknown) => {
    // A server that never said it listens is nobody's to stop: end its whole group here.
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // it exited already
    }
    throw e;
  });
  return { child, port: Number(m[1]), stdout: () => out };
}

const groupAlive = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Sends `signal` to the started process alone and returns its exit code, or 'still running' after
 * 20 s. Either way nothing of its process group outlives the call (a server orphaned by a wrapper
 * that exited would otherwise keep its port and database): after the exit the group is given
 * up to 5 s to empty, then killed.
 */
export async function stop(s: Started, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null | 'still running'> {
  const pid = s.child.pid!;
  const code = await new Promise<number | null | 'still running'>((resolve) => {
    const timer = setTimeout(() => resolve('still running'), 20_000);
    // 'close', not 'exit': by then its output is all read, so stdout() holds its last lines.
    s.child.once('close', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
    s.child.kill(signal);
  });
  for (let i = 0; i < 100 && groupAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
  return code;
}
