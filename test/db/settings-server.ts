/**
 * A server on a database of its own whose sessions start with `settings` (as an operator's
 * database might set them), with an administrator's API: started before the file's tests, stopped
 * and dropped after them.
 */
import { Harness } from '../harness.js';
import { ownDatabase, type OwnDatabase } from '../own-database.js';
import { adminApi, type Api } from '../rest/support.js';

export interface SettingsServer {
  db: OwnDatabase;
  h: Harness;
  A: Api;
}

/** Its fields are set once the file's `beforeAll` has run. */
export function serverWithSettings(name: string, settings: Record<string, string>): SettingsServer {
  const s = {} as SettingsServer;
  beforeAll(async () => {
    s.db = await ownDatabase(name, { settings });
    s.h = await Harness.start({ databaseUrl: s.db.url });
    s.A = await adminApi(s.h);
  }, 60_000);
  afterAll(async () => {
    await s.h?.stop();
    await s.db?.drop();
  });
  return s;
}
