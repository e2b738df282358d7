import { RUN_STATUS } from '../entities/scheduled-process.js';
import { ZERO_GUID } from '../ids.js';
import { column, computed, defineResource } from '../read/define.js';
import { sql } from '../sql.js';

/** A run still running when its `report_by` (its start and SCHEDULED_RUN_TIMEOUT_MINUTES) has passed: it failed. */
export const OVERDUE = `(t.status = ${RUN_STATUS.running} and t.report_by <= now())`;

/** A run that still takes a report, or an answer of the script server. */
export const OPEN = `(t.status = ${RUN_STATUS.running} and t.report_by > now())`;

/** What an overdue run says, read or closed alike. */
export const OVERDUE_MESSAGE = `format('No report came within %s minutes (SCHEDULED_RUN_TIMEOUT_MINUTES): the script stopped, or ended without reporting its run complete; its log on the script server says which. A script that runs longer needs a higher SCHEDULED_RUN_TIMEOUT_MINUTES.', round(extract(epoch from t.report_by - t.started_at) / 60))`;

/**
 * One run of a scheduled process; its id is the token the script reports back with
 * (`POST scheduledProcess/{token}`), and its href (`GET` there) reads it. `status` 0 running, 1
 * completed, 2 failed: not started (the script server could not be reached or refused it), or no
 * report by its `report_by`; `message` says which. An overdue run reads as failed, as `PUT
 * scheduledProcess/Run` then stores it, with its `report_by` as its completeDate. Administrators
 * see runs: a token is what lets a report in, so nobody else may read one (the report itself reads
 * its run `byToken`).
 */
export default defineResource({
  dataType: 'ScheduledRun',
  typeName: 'ScheduledRun',
  table: 'scheduled_run',
  href: '~/scheduledProcess/{id}',
  idField: 'id',
  label: 'Scheduled run',
  fields: {
    id: column('id', 'guid'),
    processId: column('process_id', 'guid'),
    status: computed(`case when ${OVERDUE} then ${RUN_STATUS.failed} else t.status end`, 'integer'),
    result: column('result', 'boolean'),
    message: computed(`case when ${OVERDUE} then ${OVERDUE_MESSAGE} else t.message end`, 'string'),
    startDate: column('started_at', 'datetime'),
    completeDate: computed(`case when ${OVERDUE} then t.report_by else t.completed_at end`, 'datetime'),
    startedById: column('started_by_id', 'guid', { nullAs: ZERO_GUID }),
  },
  // Newest first is what a person looks for; the index is (tenant, process, started_at).
  order: 't.process_id, t.started_at desc, t.id',
  relations: {
    process: { kind: 'one', target: 'ScheduledProcess', key: 'processId' },
    startedByUser: { kind: 'one', target: 'User', key: 'startedById', graphqlOnly: true },
  },
  queries: { scheduledRun: { op: 'get' } },
  access: { see: () => sql`false`, change: 'admin' },
});
