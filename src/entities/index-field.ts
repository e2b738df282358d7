import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { stamps } from '../db/clock.js';

/** An index field definition (migrations/Migration20261125150000_index_fields.ts). */
export const IndexField = defineEntity({
  name: 'IndexField',
  tableName: 'index_field',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    /** Set by the database (an identity column), never written. */
    pkey: p.integer().persist(false),
    /** Null until the definitions are reordered: its order is then its pkey. */
    position: p.integer().nullable(),
    /** docs/decisions.md, "Index fields". */
    fieldType: p.smallint(),
    label: p.string(),
    description: p.string().default(''),
    required: p.boolean().default(false),
    connectionId: p.uuid().nullable(),
    queryId: p.uuid().nullable(),
    dropDownListId: p.uuid().nullable(),
    queryDisplayField: p.string().default(''),
    queryValueField: p.string().default(''),
    defaultValue: p.string().default(''),
    ...stamps(),
  }),
});
export type IndexField = InferEntity<typeof IndexField>;

/** An index field in a folder, with the folder's overrides (NULL: the definition's value). */
export const FolderIndexField = defineEntity({
  name: 'FolderIndexField',
  tableName: 'folder_index_field',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().hidden().primary().onCreate(creatingTenant),
    folderId: p.uuid().primary(),
    fieldId: p.uuid().primary(),
    position: p.integer(),
    required: p.boolean().nullable(),
    connectionId: p.uuid().nullable(),
    queryId: p.uuid().nullable(),
    dropDownListId: p.uuid().nullable(),
    queryDisplayField: p.string().nullable(),
    queryValueField: p.string().nullable(),
    defaultValue: p.string().nullable(),
    ...stamps(),
  }),
});
export type FolderIndexField = InferEntity<typeof FolderIndexField>;

/** A document revision's value of an index field (what the view `document_index_field` reads). */
export const DocumentIndexValue = defineEntity({
  name: 'DocumentIndexValue',
  tableName: 'document_index_value',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().hidden().primary().onCreate(creatingTenant),
    revisionId: p.uuid().primary(),
    fieldId: p.uuid().primary(),
    value: p.string(),
    ...stamps(),
  }),
});
export type DocumentIndexValue = InferEntity<typeof DocumentIndexValue>;
