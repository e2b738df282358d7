/**
 * Server children: `node [extra args] dist/bench/<script>.js` with an IPC channel; buildChildren()
 * compiles them first, so that both run as plain node, as `npm start` runs the app. The child sends
 * `{ port }` once listening; stop() asks with SIGTERM and kills after a grace period.
 * Children also stop themselves when the IPC channel closes (the parent died).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const PROJECT_DIR = path.resolve(BENCH_DIR, '..');

/**
 * tsc -p tsconfig.bench.json: src, migrations and bench into a fresh dist/ (a stale module left by
 * an earlier build would be discovered like a current one: src/discover.ts).
 */
export function buildChildren(): void {
  fs.rmSync(path.join(PROJECT_DIR, 'dist'), { recursive: true, force: true });
  execFileSync(process.execPath, [path.join(PROJECT_DIR, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.bench.json'], {
    cwd: PROJECT_DIR,
    stdio: ['ignore', process.stderr, process.stderr],
  });
}

export interface Child {
  name: string;
  port: number;
  pid: number;
  /** The child's CPU time so far (user + system), in microseconds. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

const exited = (p: ChildProcess) => p.exitCode !== null || p.signalCode !== null;

function waitExit(p: ChildProcess, ms: number): Promise<boolean> {
  if (exited(p)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    p.once('exit', () => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

function prefixLines(name: string, out: NodeJS.WritableStream) {
  let buf = '';
  return (chunk: Buffer) => {
    buf += chunk.toString();
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const l of lines) out.write(`[${name}] ${l}\n`);
  };
}

export async function startChild(
  name: string,
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  startTimeoutMs = 60_000,
): Promise<Child> {
  const compiled = path.join(PROJECT_DIR, 'dist', 'bench', script.replace(/\.ts$/, '.js'));
  const proc = spawn(process.execPath, [...nodeArgs, compiled], {
    cwd: PROJECT_DIR,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  // Child output goes to our stderr so that stdout carries only the report.
  proc.stdout!.on('data', prefixLines(name, process.stderr));
  proc.stderr!.on('data', prefixLines(name, process.stderr));

  const stop = async () => {
    if (exited(proc)) return;
    proc.kill('SIGTERM');
    if (await waitExit(proc, 10_000)) return;
    process.stderr.write(`[bench] ${name} did not stop in 10 s: killing it\n`);
    proc.kill('SIGKILL');
    await waitExit(proc, 5_000);
  };

  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not report a port within ${startTimeoutMs} ms`)), startTimeoutMs);
      proc.once('message', (m: { port?: number }) => {
        clearTimeout(timer);
        if (typeof m?.port === 'number') resolve(m.port);
        else reject(new Error(`${name} sent an unexpected message: ${JSON.stringify(m)}`));
      });
      proc.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited during start-up (code ${code}, signal ${signal})`));
      });
      proc.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    const cpuMicros = () =>
      new Promise<number>((resolve, reject) => {
        const onMessage = (m: { cpuMicros?: number }) => {
          if (typeof m?.cpuMicros !== 'number') return;
          proc.off('message', onMessage);
          resolve(m.cpuMicros);
        };
        proc.on('message', onMessage);
        if (!proc.send('cpu')) reject(new Error(`${name}: could not ask for its CPU time`));
      });
    return { name, port, pid: proc.pid!, cpuMicros, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
