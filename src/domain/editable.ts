/** Loading rows for a write: managed entities of the request's tenant-filtered fork. */
import type { EntityName } from '@mikro-orm/core';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';

/** A managed entity for a write (change tracking and flush), or a 404 naming it. */
export async function editable<T extends object>(ctx: AppContext, entity: EntityName<T>, id: string, what: string): Promise<T> {
  const row = await ctx.em().findOne(entity, { id: id.toLowerCase() } as never);
  if (!row) throw notFound(`${what} '${id}' was not found.`);
  return row as T;
}
