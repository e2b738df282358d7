import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter } from '../db/tenant-filter.js';

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
    createdAt: p.datetime().onCreate(() => new Date()),
    createdById: p.uuid().nullable(),
    modifiedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    modifiedById: p.uuid().nullable(),
  }),
});
export type SavedSearch = InferEntity<typeof SavedSearch>;
