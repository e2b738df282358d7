import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { DbTimestamp, nowOnInsert, nowOnWrite } from '../db/clock.js';

export const User = defineEntity({
  name: 'User',
  tableName: 'app_user',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    siteId: p.uuid(),
    /** The login name ("userid" on the wire); unique per tenant, case-insensitive. */
    userId: p.string(),
    name: p.string(),
    firstName: p.string().default(''),
    middleInitial: p.string().default(''),
    lastName: p.string().default(''),
    emailAddress: p.string().default(''),
    passwordHash: p.string().hidden(),
    /** `mustChangePassword` sets it to now(): DbTimestamp holds that raw value until the flush. */
    passwordExpires: p.type(DbTimestamp).nullable(),
    userIdExpires: p.datetime().nullable(),
    userIdNeverExpires: p.boolean().default(true),
    passwordNeverExpires: p.boolean().default(true),
    enabled: p.boolean().default(true),
    /** The account owner's flag (`isVaultAccess` on the wire). */
    isVaultAccess: p.boolean().default(false),
    lastIpAddress: p.string().default(''),
    /** Bumped by the database when `enabled` or the password changes: older tokens stop working. */
    sessionEpoch: p.integer().default(0).hidden(),
    createdAt: nowOnInsert().hidden(),
    modifiedAt: nowOnWrite().hidden(),
  }),
});
export type User = InferEntity<typeof User>;

/** Who supervises whom (many to many within a tenant). */
export const UserSupervisor = defineEntity({
  name: 'UserSupervisor',
  tableName: 'user_supervisor',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().primary().onCreate(creatingTenant),
    userId: p.uuid().primary(),
    supervisorId: p.uuid().primary(),
  }),
});
export type UserSupervisor = InferEntity<typeof UserSupervisor>;
