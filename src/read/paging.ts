/** `limit` and `offset` of list reads: checked, defaulted and capped. */
import type { Config } from '../config.js';
import { badRequest } from '../errors.js';

export interface ListArgs {
  q?: string | null;
  limit?: number | null;
  offset?: number | null;
}

/** The page size a request gets: the default when unset, capped at the maximum. */
export function effectiveLimit(config: Pick<Config, 'defaultPageSize' | 'maxPageSize'>, limit: number | null | undefined): number {
  return Math.min(limit ?? config.defaultPageSize, config.maxPageSize);
}

export function paging(config: Pick<Config, 'defaultPageSize' | 'maxPageSize'>, args: ListArgs): { limit: number; offset: number } {
  const offset = args.offset ?? 0;
  if (args.limit != null && (!Number.isInteger(args.limit) || args.limit < 0)) {
    throw badRequest(`limit must be a whole number of 0 or more, got ${args.limit}.`, { field: 'limit' });
  }
  if (!Number.isInteger(offset) || offset < 0) throw badRequest(`offset must be a whole number of 0 or more, got ${offset}.`, { field: 'offset' });
  return { limit: effectiveLimit(config, args.limit), offset };
}
