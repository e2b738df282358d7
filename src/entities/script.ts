import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter } from '../db/tenant-filter.js';
import { nowOnInsert, nowOnWrite } from '../db/clock.js';

/** A tenant's script, run by the outside process (migrations/Migration20261125220000_scripts.ts). */
export const Script = defineEntity({
  name: 'Script',
  tableName: 'script',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().hidden().primary().onCreate(creatingTenant),
    id: p.uuid().primary(),
    name: p.string(),
    description: p.string().default(''),
    source: p.text(),
    createdAt: nowOnInsert(),
    createdById: p.uuid().nullable(),
    modifiedAt: nowOnWrite(),
    modifiedById: p.uuid().nullable(),
  }),
});
export type Script = InferEntity<typeof Script>;
