import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { stamps } from '../db/clock.js';

export const FormTemplate = defineEntity({
  name: 'FormTemplate',
  tableName: 'form_template',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    name: p.string(),
    description: p.string().default(''),
    /** Instance names are this prefix and the next sequence number (the forms slice). */
    instancePrefix: p.string().default(''),
    nextInstanceSeq: p.bigint('number').default(1),
    latestRevisionId: p.uuid().nullable(),
    /** The revision a get answers; null until the first release. */
    releasedRevisionId: p.uuid().nullable(),
    ...stamps(),
  }),
});
export type FormTemplate = InferEntity<typeof FormTemplate>;

export const FormTemplateRevision = defineEntity({
  name: 'FormTemplateRevision',
  tableName: 'form_template_revision',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    templateId: p.uuid(),
    revision: p.integer(),
    templateRevision: p.string(),
    /** src/domain/form-templates.ts: STATUS. */
    status: p.smallint(),
    ...stamps(),
  }),
});
export type FormTemplateRevision = InferEntity<typeof FormTemplateRevision>;

export const FormTemplateField = defineEntity({
  name: 'FormTemplateField',
  tableName: 'form_template_field',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    revisionId: p.uuid(),
    /** The field's own id, the same in every revision (the designer's `ID`). */
    fieldId: p.uuid(),
    key: p.string(),
    label: p.string(),
    /** src/domain/form-fields.ts: FIELD_TYPES. */
    fieldType: p.smallint(),
    required: p.boolean().default(false),
    options: p.array(),
    ord: p.integer(),
    deleted: p.boolean().default(false),
  }),
});
export type FormTemplateField = InferEntity<typeof FormTemplateField>;
