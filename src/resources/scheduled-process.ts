import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, defineResource, joined } from '../read/define.js';

/**
 * A scheduled process (dataType ScheduledProcess; the clients list them as `outsideprocesses`):
 * a script run every `intervalMinutes` once due, by `PUT scheduledProcess/Run`. Anyone in the
 * tenant reads them (never the script's source); administrators change and run them.
 */
export default defineResource({
  dataType: 'ScheduledProcess',
  typeName: 'ScheduledProcess',
  table: 'scheduled_process',
  href: '~/outsideprocesses/{id}',
  idField: 'id',
  label: 'Scheduled process',
  fields: {
    id: column('id', 'guid'),
    name: column('name', 'string'),
    description: column('description', 'string'),
    scriptId: column('script_id', 'guid'),
    scriptName: joined('s', 'name', 'string', { nullAs: '' }),
    intervalMinutes: column('interval_minutes', 'integer'),
    enabled: column('enabled', 'boolean'),
    nextRunDate: column('next_run_at', 'datetime'),
    ...auditFields(),
  },
  joins: { ...AUDIT_JOINS, s: { table: 'script', on: 's.id = t.script_id' } },
  // Names are unique per tenant, case-insensitively: the unique index gives this order (an id after it made PostgreSQL sort).
  order: 'name_key(t.name)',
  relations: {
    script: { kind: 'one', target: 'Script', key: 'scriptId' },
    runs: { kind: 'many', target: 'ScheduledRun', column: 'process_id' },
    ...AUDIT_RELATIONS,
  },
  queries: { scheduledProcesses: { op: 'list' }, scheduledProcess: { op: 'get' } },
  access: { see: 'tenant', change: 'admin' },
});
