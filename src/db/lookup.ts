/** Case-insensitive equality for the write side's lookups by name. */
import { raw } from '@mikro-orm/core';

/**
 * A MikroORM condition `lower(<column>) = lower(?)`: the form of the tenant's unique lower()
 * indexes, so a lookup by login name or group name reads one index entry, never the tenant.
 */
export function lowerEquals(column: string, value: string): Record<string, unknown[]> {
  return { [raw((alias: string) => `lower(${alias}.${column}) = lower(?)`, [value])]: [] };
}
