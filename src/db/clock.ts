/**
 * One clock for every persisted timestamp: the database's (docs/decisions.md, "Data integrity and
 * transactions"). SQL writes say `now()`; entities say it through the properties made here:
 *
 * - on insert the column is left out, so its default (`now()`) stamps it, and the insert's
 *   RETURNING gives the stored value back to the entity (MikroORM reloads `defaultRaw` columns);
 * - on an update through the unit of work, `nowOnWrite()` sets `now()` (a raw fragment), batched
 *   updates too, and RETURNING again puts the stored value on the entity.
 *
 * `now()` is the transaction's start, the same for every statement of a mutation, so a record
 * made and then changed in one request shows one instant twice, whichever path wrote it.
 */
import { DateTimeType, p, raw } from '@mikro-orm/core';

/**
 * A timestamptz that may hold `now()` until the flush: MikroORM compares dates by `valueOf()`,
 * which a raw fragment refuses, so an update through the unit of work would throw.
 */
export class DbTimestamp extends DateTimeType {
  override compareValues(a: unknown, b: unknown): boolean {
    return a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b;
  }
}

/** The database's clock, as an entity property's value: written as `now()`, read back after the flush. */
export const dbNow = () => raw('now()');

/** When the row was made: the column's default, `now()` (every such column has it). */
export const nowOnInsert = () => p.type(DbTimestamp).defaultRaw('now()');

/** When the row last changed: `now()` on insert (its default) and on every update. */
export const nowOnWrite = () => nowOnInsert().onUpdate(dbNow);

/** When a record was made and last changed, and by whom (a user's id; null for the system). */
export const stamps = () => ({
  createdAt: nowOnInsert(),
  createdById: p.uuid().nullable(),
  modifiedAt: nowOnWrite(),
  modifiedById: p.uuid().nullable(),
});

/** SQL for `column`'s instant as ISO 8601 in UTC (`2026-11-28T10:13:33.243Z`), for raw reads: the driver hands timestamps over as text. */
export const isoText = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
