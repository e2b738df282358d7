/**
 * One transaction per mutation: every root Mutation field runs inside one database transaction,
 * its ORM writes and its reads alike, so a mutation of several statements commits whole or not
 * at all, and its checks (a row exists, a group keeps an administrator) see what it writes.
 *
 * A transaction PostgreSQL ends to let another through (a deadlock, a serialization failure) kept
 * nothing, so it runs again, up to TRANSACTION_ATTEMPTS times in all: of two changes that crossed,
 * both go through one after the other (or the second gets what the first left, such as a 404),
 * where the loser used to get a 409 asking its caller to try again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../log.js';
import { Loaders } from '../read/loaders.js';
import type { Reader } from '../read/rows.js';

/** The pg connection under the transaction MikroORM (knex) opened: the reads run on it too. */
async function connectionOf(em: EntityManager): Promise<pg.ClientBase> {
  const trx = em.getTransactionContext() as { client: { acquireConnection(): Promise<pg.ClientBase> } };
  // A transaction's client hands out its one connection and never releases it to the pool.
  return trx.client.acquireConnection();
}

/** What a transaction uses of a request's context (src/context.ts's AppContext): it replaces `em`, `reader` and `loaders`, and logs a run again with the request's id. */
interface TransactionParts {
  services: { log: Logger };
  requestId: string;
  em(): EntityManager;
  reader: Reader;
  loaders: Loaders;
}

export const TRANSACTION_ATTEMPTS = 3;

/** PostgreSQL's codes for a transaction it ended so that another could go on: 40P01 deadlock, 40001 serialization failure. */
const ENDED_FOR_ANOTHER = new Set(['40P01', '40001']);

/** PostgreSQL's code when `err`, or an error it wraps (MikroORM's, GraphQL's), is its ending the transaction for another. */
function endedForAnother(err: unknown): string | undefined {
  let e = err as { code?: unknown; cause?: unknown; originalError?: unknown } | null | undefined;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    if (typeof e.code === 'string' && ENDED_FOR_ANOTHER.has(e.code)) return e.code;
    e = (e.originalError ?? e.cause) as typeof e;
  }
  return undefined;
}

/**
 * Runs `fn` with a copy of `ctx` whose writes (`em()`) and reads (`reader`, `loaders`) share one
 * transaction; again, from the start, when PostgreSQL ended it for another (`endedForAnother`).
 * Inside another transaction it is a savepoint, and it is the outer one that runs again.
 */
export async function inTransaction<C extends TransactionParts, T>(ctx: C, fn: (tx: C) => Promise<T>): Promise<T> {
  const outermost = !ctx.em().isInTransaction();
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.em().transactional(async (em) => {
        const reader: Reader = { ...ctx.reader, pool: await connectionOf(em) };
        return fn({ ...ctx, em: () => em, reader, loaders: new Loaders(reader) });
      });
    } catch (err) {
      const code = endedForAnother(err);
      if (!outermost || attempt >= TRANSACTION_ATTEMPTS || !code) throw err;
      // Often two of our own orders of locking meeting: worth an operator's look when frequent.
      ctx.services.log.warn({ requestId: ctx.requestId, code, attempt }, 'transaction ended by the database for another; running it again');
      // A few milliseconds, different for each: the one that went on is then most likely done.
      await sleep(Math.random() * 20 * attempt);
    }
  }
}
