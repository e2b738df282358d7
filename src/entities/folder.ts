import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { stamps } from '../db/clock.js';

/** A folder of the document library (migrations/Migration20261125130000_folders.ts). */
export const Folder = defineEntity({
  name: 'Folder',
  tableName: 'folder',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    /** Null at the top level. */
    parentId: p.uuid().nullable(),
    /** The top-level folder above it; its own id at the top. */
    topId: p.uuid(),
    name: p.string(),
    description: p.string().default(''),
    /** The whole path as named, `/Top/Child`. */
    path: p.string(),
    allowRevisions: p.boolean().default(true),
    folderType: p.smallint().default(0),
    status: p.smallint().default(0),
    ...stamps(),
  }),
});
export type Folder = InferEntity<typeof Folder>;
