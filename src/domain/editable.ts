/** Loading rows for a write: managed entities of the request's tenant-filtered fork. */
import { LockMode, type EntityName } from '@mikro-orm/core';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';

/**
 * A managed entity for a write (change tracking and flush), or a 404 naming it. `lock`: its row is
 * locked to the end of the mutation, so writes that check what they read (an old password) run
 * one after the other, each reading what the one before wrote. `field`: the body's key that sent
 * the id, which the 404 names (AppError), where a body, not the path, names the row.
 */
export async function editable<T extends object>(ctx: AppContext, entity: EntityName<T>, id: string, what: string, lock = false, field?: string): Promise<T> {
  const row = await ctx.em().findOne(entity, { id: id.toLowerCase() } as never, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!row) throw notFound(`${what} '${id}' was not found.`, { field });
  return row as T;
}
