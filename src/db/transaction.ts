/**
 * One transaction per mutation: every root Mutation field runs inside one database transaction,
 * its ORM writes and its reads alike, so a mutation of several statements commits whole or not
 * at all, and its checks (a row exists, a group keeps an administrator) see what it writes.
 */
import type pg from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Loaders } from '../read/loaders.js';
import type { Reader } from '../read/rows.js';

/** The pg connection under the transaction MikroORM (knex) opened: the reads run on it too. */
async function connectionOf(em: EntityManager): Promise<pg.ClientBase> {
  const trx = em.getTransactionContext() as { client: { acquireConnection(): Promise<pg.ClientBase> } };
  // A transaction's client hands out its one connection and never releases it to the pool.
  return trx.client.acquireConnection();
}

/** What a transaction replaces in a request's context (src/context.ts's AppContext). */
interface TransactionParts {
  em(): EntityManager;
  reader: Reader;
  loaders: Loaders;
}

/** Runs `fn` with a copy of `ctx` whose writes (`em()`) and reads (`reader`, `loaders`) share one transaction. */
export function inTransaction<C extends TransactionParts, T>(ctx: C, fn: (tx: C) => Promise<T>): Promise<T> {
  return ctx.em().transactional(async (em) => {
    const reader: Reader = { ...ctx.reader, pool: await connectionOf(em) };
    return fn({ ...ctx, em: () => em, reader, loaders: new Loaders(reader) });
  });
}
