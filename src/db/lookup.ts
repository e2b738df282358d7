/** Name equality for the write side's lookups by name. */
import { raw } from '@mikro-orm/core';

/**
 * A MikroORM condition `name_key(<column>) = name_key(?)`: a name in any case and Unicode normal
 * form (migrations/Migration20261205000000_name_key.ts), the form of the tenant's unique name
 * indexes, so a lookup by login name or group name reads one index entry, never the tenant.
 */
export function nameEquals(column: string, value: string): Record<string, unknown[]> {
  return { [raw((alias: string) => `name_key(${alias}.${column}) = name_key(?)`, [value])]: [] };
}
