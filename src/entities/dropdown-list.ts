import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { stamps } from '../db/clock.js';

/** A drop-down list (migrations/Migration20261125180000_dropdown_lists.ts). */
export const DropDownList = defineEntity({
  name: 'DropDownList',
  tableName: 'dropdown_list',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    name: p.string(),
    description: p.string().default(''),
    ...stamps(),
  }),
});
export type DropDownList = InferEntity<typeof DropDownList>;

/** One item of a drop-down list, in the list's order. */
export const DropDownItem = defineEntity({
  name: 'DropDownItem',
  tableName: 'dropdown_item',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    listId: p.uuid(),
    position: p.integer(),
    name: p.string(),
    value: p.string(),
  }),
});
export type DropDownItem = InferEntity<typeof DropDownItem>;
