/** Shared fixtures for the `q` tests. */
import { AppError } from '../../src/errors.js';
import { queryFields, type QueryFieldMap } from '../../src/query/index.js';
import type { Sql } from '../../src/sql.js';

/** A resource with one field of each type, plus names that need brackets. */
export const fields: QueryFieldMap = queryFields({
  id: { sql: '"t"."id"', type: 'guid' },
  name: { sql: '"t"."name"', type: 'string' },
  description: { sql: '"t"."description"', type: 'string' },
  userId: { sql: '"t"."user_id"', type: 'string' },
  'first name': { sql: '"t"."first_name"', type: 'string' },
  'odd]name': { sql: '"t"."odd"', type: 'string' },
  scope: { sql: '"t"."scope"', type: 'integer' },
  enabled: { sql: '"t"."enabled"', type: 'boolean' },
  createDate: { sql: '"t"."create_date"', type: 'datetime' },
  modifyDate: { sql: '"t"."modify_date"', type: 'datetime' },
  ownerId: { sql: '"t"."owner_id"', type: 'guid' },
});

/** Runs `fn` and returns the AppError it throws (failing the test if it throws nothing or something else). */
export function appErrorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError, but nothing was thrown');
}

/** The AppError `fn` throws, asserting it is a 400 (how the tables of refused input read their messages). */
export function badRequestOf(fn: () => unknown): AppError {
  const error = appErrorOf(fn);
  expect(error.status).toBe(400);
  return error;
}

/** A fragment as `?`-placeholder text and its values (how the compile tests state expectations). */
export function shown(s: Sql): { sql: string; params: unknown[] } {
  return { sql: s.strings.join('?'), params: [...s.values] };
}
