import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { nowOnInsert, stamps } from '../db/clock.js';

/** A document with its current revision's fields (migrations/Migration20261125140000_documents.ts). */
export const Document = defineEntity({
  name: 'Document',
  tableName: 'document',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    folderId: p.uuid(),
    revisionId: p.uuid(),
    revision: p.string(),
    name: p.string(),
    description: p.string().default(''),
    /** docs/decisions.md, "Documents": 1 released, 0 not. */
    releaseState: p.smallint().default(1),
    /** docs/decisions.md, "Check-out": who has it checked out, and since when. */
    checkedOutById: p.uuid().nullable(),
    checkedOutAt: p.datetime().nullable(),
    /** Who last checked it in (null until someone does: its creator reads as that). */
    checkedInById: p.uuid().nullable(),
    /** When the document is due for review, and when it expires; null when none. */
    reviewDate: p.datetime().nullable(),
    expireDate: p.datetime().nullable(),
    archive: p.smallint().default(0),
    abstract: p.string().default(''),
    keywords: p.string().default(''),
    changeText: p.string().nullable(),
    ...stamps(),
  }),
});
export type Document = InferEntity<typeof Document>;

/** One kept revision of a document, the current one included. */
export const DocumentRevision = defineEntity({
  name: 'DocumentRevision',
  tableName: 'document_revision',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    documentId: p.uuid(),
    revision: p.string(),
    name: p.string(),
    description: p.string().default(''),
    changeText: p.string().nullable(),
    createdAt: nowOnInsert(),
    createdById: p.uuid().nullable(),
  }),
});
export type DocumentRevision = InferEntity<typeof DocumentRevision>;

/** A revision's file; its bytes are in the file store (migrations/Migration20261126000000_file_store.ts). */
export const DocumentFile = defineEntity({
  name: 'DocumentFile',
  tableName: 'document_file',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    revisionId: p.uuid(),
    fileName: p.string(),
    contentType: p.string(),
    size: p.bigint(),
    sha256: p.string(),
    // Only files stored before the file store (src/storage/) keep their bytes here.
    content: p.blob().lazy().nullable(),
    createdAt: nowOnInsert(),
    createdById: p.uuid().nullable(),
  }),
});
export type DocumentFile = InferEntity<typeof DocumentFile>;
