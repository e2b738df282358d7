import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter } from './tenant-filter.js';

export const Site = defineEntity({
  name: 'Site',
  tableName: 'site',
  filters: tenantFilter,
  properties: (p) => ({
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    description: p.string().default(''),
    siteType: p.string().default('Location'),
    status: p.string().default('Open'),
    createdAt: p.datetime().onCreate(() => new Date()),
    modifiedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type Site = InferEntity<typeof Site>;
