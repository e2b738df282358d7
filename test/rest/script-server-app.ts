/**
 * The app of a test file whose scripts run on a real script server (see withScriptServer):
 * `setUpScriptServerApp()` at the file's top starts it before its tests and stops it after them;
 * the file imports the bindings it reads. Jest loads modules afresh for each test file, so these
 * bindings are that file's alone.
 */
import type { Harness } from '../harness.js';
import type { TestScriptServer } from '../script-server.js';
import { type Api, withScriptServer } from './support.js';

export let peer: TestScriptServer;
export let h: Harness;
export let A: Api;
export let B: Api;
export let U: Api;
/** The app on a real socket, so scripts can call it back. */
export let origin: string;

export function setUpScriptServerApp(scriptTimeoutSeconds?: number) {
  let stop: () => Promise<void>;
  beforeAll(async () => ({ peer, h, A, B, U, origin, stop } = await withScriptServer(scriptTimeoutSeconds)));
  afterAll(() => stop());
}
