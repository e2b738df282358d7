/**
 * The purge deletes exactly what can never be used again: expired refresh and web tokens, login
 * throttles whose window and lock have both passed, and signing keys retired longer than their
 * tokens can live. The server's periodic job runs the same purge.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { keyRetentionSeconds, purgeExpired, startPurgeJob, type Purged } from '../src/purge.js';
import { newId } from '../src/ids.js';
import { Harness, type TestTenant } from './harness.js';
import { ownDatabase, type OwnDatabase } from './own-database.js';

// A database of its own: every server process on the shared one purges too, and would take rows
// seeded here first, so what a purge reports could not be counted.
let db0: OwnDatabase;
let h: Harness;
let t: TestTenant;
let userId: string;
beforeAll(async () => {
  db0 = await ownDatabase('purge');
  h = await Harness.start({ databaseUrl: db0.url });
  t = await h.tenant();
  [{ id: userId }] = await db().execute<{ id: string }[]>('select id from app_user where tenant_id = ? and user_id = ?', [t.tenantId, t.adminUserId]);
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await db0?.drop();
});

const db = () => h.orm.em.fork().getConnection();

/** Rows of each kind, one per label, `expired` or not as the label says; returns their ids/keys. */
async function seed() {
  const at = (seconds: number) => new Date(Date.now() + seconds * 1000);
  const ids = { refreshExpired: newId(), refreshLive: newId(), webExpired: newId(), webLive: newId() };
  for (const [id, expires] of [[ids.refreshExpired, at(-5)], [ids.refreshLive, at(3600)]] as const) {
    await db().execute(
      'insert into refresh_token (id, tenant_id, family_id, token_hash, user_id, client_id, expires_at) values (?, ?, ?, ?, ?, ?, ?)',
      [id, t.tenantId, newId(), randomUUID(), userId, t.clientId, expires],
    );
  }
  for (const [id, expires] of [[ids.webExpired, at(-5)], [ids.webLive, at(3600)]] as const) {
    await db().execute('insert into web_token (id, tenant_id, token_hash, user_id, expires_at) values (?, ?, ?, ?, ?)', [id, t.tenantId, randomUUID(), userId, expires]);
  }
  const window = h.services.config.loginLockSeconds;
  const key = (label: string) => `addr:test-purge-${label}-${randomUUID()}`;
  const throttles = {
    stale: key('stale'), // window over, never locked
    lockOver: key('lockover'), // window and lock over
    windowOpen: key('open'), // window still running
    locked: key('locked'), // window over, lock still running
  };
  const rows: [string, Date, Date | null][] = [
    [throttles.stale, at(-window - 5), null],
    [throttles.lockOver, at(-window - 5), at(-1)],
    [throttles.windowOpen, at(-1), null],
    [throttles.locked, at(-window - 5), at(60)],
  ];
  for (const [k, start, until] of rows) {
    await db().execute('insert into login_throttle (key, attempts, window_start, locked_until) values (?, 3, ?, ?)', [k, start, until]);
  }
  const retention = keyRetentionSeconds(h.services.config);
  const keys = { longRetired: newId(), recentlyRetired: newId() };
  for (const [kid, retired] of [[keys.longRetired, at(-retention - 5)], [keys.recentlyRetired, at(-retention + 600)]] as const) {
    const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    // Never unsealed: a retired key only verifies, with its public half.
    await db().execute('insert into signing_key (kid, alg, private_key_sealed, public_jwk, retired_at) values (?, ?, ?, ?, ?)', [
      kid,
      'EdDSA',
      'v1.x.y.z',
      JSON.stringify(await exportJWK(publicKey)),
      retired,
    ]);
  }
  return { ids, throttles, keys };
}

async function remaining(s: Awaited<ReturnType<typeof seed>>) {
  const ids = Object.values(s.ids);
  const { rows } = await h.services.reads.query<{ id: string }>(
    `select id::text from refresh_token where id = any($1::uuid[]) union all select id::text from web_token where id = any($1::uuid[])
     union all select key from login_throttle where key = any($2) union all select kid from signing_key where kid = any($3)`,
    [ids, Object.values(s.throttles), Object.values(s.keys)],
  );
  return rows.map((r) => r.id).sort();
}

const kept = (s: Awaited<ReturnType<typeof seed>>) => [s.ids.refreshLive, s.ids.webLive, s.throttles.windowOpen, s.throttles.locked, s.keys.recentlyRetired].sort();

test('purgeExpired deletes exactly the expired rows', async () => {
  const s = await seed();
  const purged = await purgeExpired(h.orm.em.fork(), h.services.config, h.services.files);
  expect(await remaining(s)).toEqual(kept(s));
  expect(purged).toMatchObject({ refreshTokens: 1, webTokens: 1, throttles: 2, signingKeys: 1 });
});

test('the server\'s periodic job runs the purge, and stops when told', async () => {
  const s = await seed();
  const runs: Purged[] = [];
  const job = await new Promise<ReturnType<typeof startPurgeJob>>((resolve) => {
    const j = startPurgeJob(h.services, (p) => {
      runs.push(p);
      resolve(j);
    });
  });
  job.stop();
  expect(runs).toHaveLength(1);
  expect(await remaining(s)).toEqual(kept(s));
});
