import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { nowOnInsert, nowOnWrite } from '../db/clock.js';

export const Site = defineEntity({
  name: 'Site',
  tableName: 'site',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    name: p.string(),
    description: p.string().default(''),
    siteType: p.string().default('Location'),
    status: p.string().default('Open'),
    createdAt: nowOnInsert().hidden(),
    modifiedAt: nowOnWrite().hidden(),
  }),
});
export type Site = InferEntity<typeof Site>;
