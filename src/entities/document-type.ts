import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter } from '../db/tenant-filter.js';
import { nowOnInsert, nowOnWrite } from '../db/clock.js';

/** A tenant's document type (migrations/Migration20261127000000_document_types.ts). */
export const DocumentType = defineEntity({
  name: 'DocumentType',
  tableName: 'document_type',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().hidden().primary().onCreate(creatingTenant),
    id: p.uuid().primary(),
    name: p.string(),
    description: p.string().default(''),
    createdAt: nowOnInsert(),
    createdById: p.uuid().nullable(),
    modifiedAt: nowOnWrite(),
    modifiedById: p.uuid().nullable(),
  }),
});
export type DocumentType = InferEntity<typeof DocumentType>;
