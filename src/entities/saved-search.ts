import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter } from '../db/tenant-filter.js';
import { nowOnInsert, nowOnWrite } from '../db/clock.js';

/** A user's saved document search (migrations/Migration20261127020000_saved_searches.ts). */
export const SavedSearch = defineEntity({
  name: 'SavedSearch',
  tableName: 'saved_search',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().hidden().primary().onCreate(creatingTenant),
    id: p.uuid().primary(),
    ownerId: p.uuid(),
    name: p.string(),
    description: p.string().default(''),
    q: p.text().default(''),
    folderId: p.uuid().nullable(),
    shared: p.boolean().default(false),
    createdAt: nowOnInsert(),
    createdById: p.uuid().nullable(),
    modifiedAt: nowOnWrite(),
    modifiedById: p.uuid().nullable(),
  }),
});
export type SavedSearch = InferEntity<typeof SavedSearch>;
