import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter } from '../db/tenant-filter.js';

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
    createdAt: p.datetime().onCreate(() => new Date()),
    createdById: p.uuid().nullable(),
    modifiedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    modifiedById: p.uuid().nullable(),
  }),
});
export type DocumentType = InferEntity<typeof DocumentType>;
