import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter } from '../db/tenant-filter.js';

export const Site = defineEntity({
  name: 'Site',
  tableName: 'site',
  filters: tenantFilter,
  properties: (p) => ({
    id: p.uuid().primary(),
    tenantId: p.uuid().hidden(),
    name: p.string(),
    description: p.string().default(''),
    siteType: p.string().default('Location'),
    status: p.string().default('Open'),
    createdAt: p.datetime().onCreate(() => new Date()).hidden(),
    modifiedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()).hidden(),
  }),
});
export type Site = InferEntity<typeof Site>;
