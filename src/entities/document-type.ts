import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { stamps } from '../db/clock.js';

/** A tenant's document type (migrations/Migration20261127000000_document_types.ts). */
export const DocumentType = defineEntity({
  name: 'DocumentType',
  tableName: 'document_type',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    name: p.string(),
    description: p.string().default(''),
    ...stamps(),
  }),
});
export type DocumentType = InferEntity<typeof DocumentType>;
