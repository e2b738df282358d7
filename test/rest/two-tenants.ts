/**
 * The two tenants of a test file (see twoTenants): `setUpTwoTenants()` at the file's top makes
 * them before its tests and stops their app after them; the file imports the ones it reads. Jest
 * loads modules afresh for each test file, so these bindings are that file's alone.
 */
import type { Harness } from '../harness.js';
import { type Api, type TwoTenants, twoTenants } from './support.js';

export let h: Harness;
export let A: Api;
export let B: Api;
export let plain: TwoTenants['plain'];

export function setUpTwoTenants() {
  beforeAll(async () => ({ h, A, B, plain } = await twoTenants()));
  afterAll(() => h.stop());
}
