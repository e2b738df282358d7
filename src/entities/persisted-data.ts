import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { nowOnInsert, nowOnWrite } from '../db/clock.js';

/** A persisted data dictionary: `data` is JSON text of an object (src/domain/persisted-data.ts). */
export const PersistedData = defineEntity({
  name: 'PersistedData',
  tableName: 'persisted_data',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    name: p.string(),
    /** 0: the creator's own; 1: the whole tenant's. */
    scope: p.smallint(),
    data: p.text(),
    /** `data.length` as the clients count it (UTF-16 code units), kept so that list reads never scan `data`. */
    dataLength: p.integer(),
    dataMimeType: p.string(),
    /** Null: never expires. */
    expiresAt: p.datetime().nullable(),
    linkedObjectId: p.string().default(''),
    linkedObjectType: p.integer().default(0),
    createdAt: nowOnInsert(),
    createdById: p.uuid(),
    modifiedAt: nowOnWrite(),
    modifiedById: p.uuid(),
  }),
});
export type PersistedData = InferEntity<typeof PersistedData>;
