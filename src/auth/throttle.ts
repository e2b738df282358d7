/**
 * Login throttling, counted in the database so that every process shares it (table login_throttle).
 *
 * An attempt is claimed before any password is hashed: one statement adds it to each of its keys'
 * counters and returns them, so concurrent attempts are counted one by one and a key over its limit
 * is refused without a hash. A failed attempt stays counted; a successful one gives its claims back.
 * When a key's count reaches its limit it is locked for LOGIN_LOCK_SECONDS. Keys:
 * - `addr:<address>`: every failure from one source address (also unknown clients and bad secrets);
 * - `client:<id>`: every failure through one API client;
 * - `user:<tenant>:<name>:<address>`: wrong passwords for one user name from one address. Per
 *   address, so that someone who knows a username cannot lock its owner out from elsewhere. The
 *   name tried, as its `name_key` (any case, any Unicode normal form), whether or not a user has
 *   it: an unknown name locks as a known one does, so the lock-out tells nobody which names exist.
 *   Keyed as the user is found (`name_key(user_id) = name_key(?)`): every spelling that finds a
 *   user is one key.
 */
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { ReadPool } from '../read/read-pool.js';
import { join, sql, statement, type Sql } from '../sql.js';

/** What throttling uses of the long-lived services (src/context.ts's Services has it). */
export interface ThrottleServices {
  config: Config;
  reads: ReadPool;
}

export interface ThrottleKey {
  /** An SQL expression of text: the key is made in the statement that counts it. */
  key: Sql;
  limit: number;
}

export interface Claim {
  keys: string[];
  /** The keys this attempt brought to their limit: if it fails, they lock. */
  reached: string[];
}

export const addressKey = (services: ThrottleServices, address: string): ThrottleKey => ({
  key: sql`${`addr:${address}`}::text`,
  limit: services.config.tokenMaxFailuresPerAddress,
});
export const clientKey = (services: ThrottleServices, clientId: string): ThrottleKey => ({
  key: sql`${`client:${clientId}`}::text`,
  limit: services.config.tokenMaxFailuresPerClient,
});
/**
 * A user name is at most 128 characters (src/domain/users.ts); a longer one tried counts as its
 * first 128. Lower-cased by the database, not by JavaScript: JavaScript makes "İ" (U+0130) "i"
 * and a combining dot where PostgreSQL makes it "i", which gave each spelling a counter of its own.
 */
export const userKey = (services: ThrottleServices, tenantId: string, username: string, address: string): ThrottleKey => ({
  key: sql`${`user:${tenantId}:`}::text || name_key(${username.slice(0, 128)}::text) || ${`:${address}`}::text`,
  limit: services.config.loginMaxFailures,
});

export function tooManyFailures(until: Date): AppError {
  return new AppError('TOO_MANY_REQUESTS', 'Too many failed logins: wait until retryTime and try again.', undefined, {
    retryTime: until.toISOString(),
  });
}

interface Row {
  key: string;
  attempts: number;
  /** A string: the pool reads timestamps as MikroORM's connection does. */
  locked_until: string | null;
}

interface ClaimRow extends Row {
  /** The key's limit. */
  lim: number;
}

const time = (t: string | null): number => (t === null ? 0 : new Date(t).getTime());

/** Not tenant-owned (an address or a client spans tenants): run as it is on the shared pool. */
async function exec<R extends Row = Row>(services: ThrottleServices, q: Sql): Promise<R[]> {
  const { text, values } = statement(q);
  return (await services.reads.query<R>(text, values)).rows;
}

/**
 * Counts one attempt on every key (a window restarts once LOGIN_LOCK_SECONDS have passed since it
 * began) or throws a 429 when a key is locked or already at its limit with attempts in flight.
 */
export async function claim(services: ThrottleServices, keys: ThrottleKey[]): Promise<Claim> {
  const window = services.config.loginLockSeconds;
  const rows = await exec<ClaimRow>(
    services,
    sql`with k (key, lim) as (values ${join(keys.map((k) => sql`(${k.key}, ${k.limit}::int)`), ', ')}),
        counted as (
        insert into login_throttle as t (key, attempts, window_start)
          select key, 1, now() from k
        on conflict (key) do update set
          attempts = case when t.locked_until > now() then t.attempts
                          when t.window_start <= now() - make_interval(secs => ${window}) then 1
                          else t.attempts + 1 end,
          window_start = case when t.locked_until > now() then t.window_start
                              when t.window_start <= now() - make_interval(secs => ${window}) then now()
                              else t.window_start end
        returning key, attempts, locked_until)
        select key, attempts, locked_until, lim from counted join k using (key)`,
  );
  const lockedUntil = Math.max(...rows.map((r) => time(r.locked_until)));
  if (lockedUntil > Date.now()) throw tooManyFailures(new Date(lockedUntil));
  const over = rows.filter((r) => r.attempts > r.lim).map((r) => r.key);
  // Attempts in flight already reach the limit: this one would be past it.
  if (over.length) throw tooManyFailures(await lock(services, over));
  return { keys: rows.map((r) => r.key), reached: rows.filter((r) => r.attempts === r.lim).map((r) => r.key) };
}

/** A failed attempt: keys it brought to their limit lock now. Throws the answer to give. */
export async function failed(services: ThrottleServices, c: Claim, error: Error): Promise<never> {
  if (!c.reached.length) throw error;
  throw tooManyFailures(await lock(services, c.reached));
}

/** Locks the keys (those already locked keep their end) and returns when the last lock ends. */
async function lock(services: ThrottleServices, keys: string[]): Promise<Date> {
  const rows = await exec(
    services,
    sql`update login_throttle
           set locked_until = case when locked_until > now() then locked_until else now() + make_interval(secs => ${services.config.loginLockSeconds}) end
         where key = any(${keys}::text[])
        returning key, attempts, locked_until`,
  );
  return new Date(rows.length ? Math.max(...rows.map((r) => time(r.locked_until))) : Date.now() + services.config.loginLockSeconds * 1000);
}

/** A successful attempt: the user's own counter starts again, the shared ones give the claim back. */
export async function succeeded(services: ThrottleServices, c: Claim): Promise<void> {
  const users = c.keys.filter((k) => k.startsWith('user:'));
  const shared = c.keys.filter((k) => !k.startsWith('user:'));
  await exec(
    services,
    sql`with gone as (delete from login_throttle where key = any(${users}::text[]))
        update login_throttle set attempts = greatest(attempts - 1, 0) where key = any(${shared}::text[])`,
  );
}
