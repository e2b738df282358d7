import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter } from '../db/tenant-filter.js';
import { nowOnInsert, nowOnWrite } from '../db/clock.js';

export const Site = defineEntity({
  name: 'Site',
  tableName: 'site',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().hidden().primary().onCreate(creatingTenant),
    id: p.uuid().primary(),
    name: p.string(),
    description: p.string().default(''),
    siteType: p.string().default('Location'),
    status: p.string().default('Open'),
    createdAt: nowOnInsert().hidden(),
    modifiedAt: nowOnWrite().hidden(),
  }),
});
export type Site = InferEntity<typeof Site>;
