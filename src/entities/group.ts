import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { nowOnInsert, nowOnWrite } from '../db/clock.js';

export const Group = defineEntity({
  name: 'Group',
  tableName: 'user_group',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    /** Null for a group without a site (rendered as the all-zero GUID). */
    siteId: p.uuid().nullable(),
    name: p.string(),
    description: p.string().default(''),
    createdAt: nowOnInsert().hidden(),
    modifiedAt: nowOnWrite().hidden(),
  }),
});
export type Group = InferEntity<typeof Group>;

export const GroupMember = defineEntity({
  name: 'GroupMember',
  tableName: 'group_member',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().primary().onCreate(creatingTenant),
    groupId: p.uuid().primary(),
    userId: p.uuid().primary(),
    createdAt: nowOnInsert().hidden(),
  }),
});
export type GroupMember = InferEntity<typeof GroupMember>;
