import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { stamps } from '../db/clock.js';

/** A user's saved document search (migrations/Migration20261127020000_saved_searches.ts). */
export const SavedSearch = defineEntity({
  name: 'SavedSearch',
  tableName: 'saved_search',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    ownerId: p.uuid(),
    name: p.string(),
    description: p.string().default(''),
    q: p.text().default(''),
    folderId: p.uuid().nullable(),
    shared: p.boolean().default(false),
    ...stamps(),
  }),
});
export type SavedSearch = InferEntity<typeof SavedSearch>;
