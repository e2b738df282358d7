import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { stamps } from '../db/clock.js';

/** A tenant's script, run by the outside process (migrations/Migration20261125220000_scripts.ts). */
export const Script = defineEntity({
  name: 'Script',
  tableName: 'script',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    name: p.string(),
    description: p.string().default(''),
    source: p.text(),
    ...stamps(),
  }),
});
export type Script = InferEntity<typeof Script>;
