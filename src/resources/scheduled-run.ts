import { ZERO_GUID } from '../ids.js';
import { column, defineResource } from '../read/define.js';
import { sql } from '../sql.js';

/**
 * One run of a scheduled process; its id is the token the script reports back with
 * (`POST scheduledProcess/{token}`), and its href (`GET` there) reads it. `status` 0 running, 1 completed, 2 not started (the script
 * server could not be reached or refused it; `message` says why). Administrators see runs: a
 * token is what lets a report in, so nobody else may read one (the report itself reads its run
 * `byToken`).
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
    status: column('status', 'integer'),
    result: column('result', 'boolean'),
    message: column('message', 'string'),
    startDate: column('started_at', 'datetime'),
    completeDate: column('completed_at', 'datetime'),
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
