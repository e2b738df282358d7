import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { nowOnInsert, stamps } from '../db/clock.js';

/** A script run on a schedule (migrations/Migration20261125230000_scheduled_processes.ts). */
export const ScheduledProcess = defineEntity({
  name: 'ScheduledProcess',
  tableName: 'scheduled_process',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    name: p.string(),
    description: p.string().default(''),
    scriptId: p.uuid(),
    intervalMinutes: p.integer(),
    enabled: p.boolean().default(true),
    /** Sent, or when the process was made (the column's default: the database's clock). */
    nextRunAt: nowOnInsert(),
    ...stamps(),
  }),
});
export type ScheduledProcess = InferEntity<typeof ScheduledProcess>;

/**
 * Where a run stands: the script server took it (running), the script reported back, or it failed:
 * it could not be started, or no report came by its `report_by`.
 */
export const RUN_STATUS = { running: 0, completed: 1, failed: 2 } as const;
