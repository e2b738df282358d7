import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter } from '../db/tenant-filter.js';
import { stamps } from '../db/clock.js';

/** A user or group with a role on a folder (migrations/Migration20261125170000_folder_security.ts). */
export const FolderMember = defineEntity({
  name: 'FolderMember',
  tableName: 'folder_member',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().hidden().primary().onCreate(creatingTenant),
    folderId: p.uuid().primary(),
    /** Set by the database: the user's or the group's id. */
    memberId: p.uuid().primary().persist(false),
    userId: p.uuid().nullable(),
    groupId: p.uuid().nullable(),
    /** 1 Owner, 2 Editor, 3 Publisher, 4 Viewer. */
    role: p.smallint(),
    ...stamps(),
  }),
});
export type FolderMember = InferEntity<typeof FolderMember>;
