/**
 * Scheduled processes (docs/decisions.md, "Scheduled processes"): a script run every
 * `intervalMinutes` once due. `PUT scheduledProcess/Run` closes the runs whose report is overdue
 * and claims the due processes, each in one statement (each moves to its next date as it is
 * claimed, so two callers at once start each once), gives each a run whose id is its token, and
 * posts `{script, baseUrl, token}` to the script server's `/scheduledscripts`; the script reports
 * back with `POST scheduledProcess/{token}` before SCHEDULED_RUN_TIMEOUT_MINUTES have passed.
 */
import type { AppContext } from '../context.js';
import { insertRows, updateRows } from '../db/tenant-writes.js';
import { inTransaction } from '../db/transaction.js';
import { RUN_STATUS, ScheduledProcess } from '../entities/scheduled-process.js';
import { Script } from '../entities/script.js';
import { AppError, badRequest, conflict, notFound, shownValue } from '../errors.js';
import { isGuid, newId } from '../ids.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { OPEN, OVERDUE, OVERDUE_MESSAGE } from '../resources/scheduled-run.js';
import { isoInstant } from '../scalars.js';
import { raw, sql } from '../sql.js';
import { editable } from './editable.js';
import { callScriptServer } from './scripts.js';
import { maxLength, nameText, optionalString, requireName, uniquely } from './validate.js';

type Input = Record<string, unknown>;

const LIMITS = { name: 256, description: 4000, message: 4000, intervalMinutes: 525_600 } as const;

function interval(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > LIMITS.intervalMinutes) {
    throw badRequest(`The field 'intervalMinutes' must be a whole number of minutes from 1 to ${LIMITS.intervalMinutes}.`, { field: 'intervalMinutes' });
  }
  return v;
}

function runDate(v: string): Date {
  const at = isoInstant(v);
  if (!at) throw badRequest(`The field 'nextRunDate' must be an ISO 8601 date-time such as 2030-01-31T06:00:00 (UTC unless a zone is given), from year 1 to 9999 in UTC, got '${v.trim().slice(0, 64)}'.`, { field: 'nextRunDate' });
  return at;
}

/**
 * The id of the script a process runs, by its id or its name (any case). Its row is held against
 * its delete (RowQuery.lock 'keyShare'), as the foreign key to it would hold it, only earlier: a
 * delete committed meanwhile is this 400 of an unknown script, not the foreign key's 404, and one
 * begun later waits and then finds the process (deleteScript's 409).
 */
async function scriptOf(ctx: AppContext, idOrName: string): Promise<string> {
  const key = idOrName.trim();
  const where = isGuid(key) ? sql`t.id = ${key.toLowerCase()}` : sql`name_key(t.name) = name_key(${key})`;
  const [script] = await selectRows<{ id: string }>(ctx.reader, resource('Script'), { where: [where], lock: 'keyShare' });
  if (!script) throw badRequest(`The field 'script' names no script: '${key.slice(0, 64)}'.`, { field: 'script' });
  return script.id;
}

/** `lock` for a delete: of two at once, the second finds it gone (404). */
const processById = (ctx: AppContext, id: string, lock = false): Promise<ScheduledProcess> => editable(ctx, ScheduledProcess, id, 'Scheduled process', lock);

/** A new process; returns its id. */
export async function createProcess(ctx: AppContext, input: Input): Promise<string> {
  const name = requireName(input, LIMITS.name);
  const scriptRef = optionalString(input, 'script');
  if (!scriptRef?.trim()) throw badRequest("The mandatory field 'script' is missing: name the script to run (its id or name).", { field: 'script' });
  if (input.intervalMinutes === undefined || input.intervalMinutes === null) throw badRequest("The mandatory field 'intervalMinutes' is missing.", { field: 'intervalMinutes' });
  const next = optionalString(input, 'nextRunDate');
  const by = ctx.caller.userId;
  const p = ctx.em().create(ScheduledProcess, {
    id: newId(),
    name,
    description: maxLength(optionalString(input, 'description') ?? '', LIMITS.description, 'description'),
    scriptId: await scriptOf(ctx, scriptRef),
    intervalMinutes: interval(input.intervalMinutes),
    enabled: input.enabled !== false,
    nextRunAt: next?.trim() ? runDate(next) : undefined,
    createdById: by,
    modifiedById: by,
  } as ScheduledProcess);
  await uniquely(`A scheduled process named '${name}'`, () => ctx.em().flush());
  return p.id;
}

/** Changes what is sent. */
export async function updateProcess(ctx: AppContext, id: string, input: Input): Promise<void> {
  const p = await processById(ctx, id);
  const keys = ['name', 'description', 'script', 'intervalMinutes', 'enabled', 'nextRunDate'].filter((k) => input[k] !== undefined && input[k] !== null);
  if (keys.length === 0) throw badRequest(`Send at least one of: name, description, script, intervalMinutes, enabled, nextRunDate.`);
  const name = optionalString(input, 'name');
  if (name !== undefined) p.name = nameText(name, LIMITS.name, 'name', p.name);
  const description = optionalString(input, 'description');
  if (description !== undefined) p.description = maxLength(description, LIMITS.description, 'description');
  const scriptRef = optionalString(input, 'script');
  if (scriptRef !== undefined) p.scriptId = await scriptOf(ctx, scriptRef);
  if (input.intervalMinutes !== undefined && input.intervalMinutes !== null) p.intervalMinutes = interval(input.intervalMinutes);
  if (typeof input.enabled === 'boolean') p.enabled = input.enabled;
  const next = optionalString(input, 'nextRunDate');
  if (next !== undefined) p.nextRunAt = runDate(next);
  p.modifiedById = ctx.caller.userId;
  await uniquely(`A scheduled process named '${p.name}'`, () => ctx.em().flush());
}

export async function deleteProcess(ctx: AppContext, id: string): Promise<void> {
  ctx.em().remove(await processById(ctx, id, true));
  await ctx.em().flush();
}

interface Claimed {
  id: string;
  name: string;
  script_id: string;
}

/** Fails the runs whose report is overdue, then starts every enabled process that is due; answers the ids of the runs made. */
export async function runDueProcesses(ctx: AppContext): Promise<string[]> {
  // Closing, claiming and recording the runs commit together; the script server is called after, outside.
  const { closed, runs, scripts } = await inTransaction(ctx, async (tx) => {
    // Stored as the reads show them already (src/resources/scheduled-run.ts). This, a report and another Run each change only a
    // running run, under its row's lock: of those at once, one wins and the others find it ended.
    const closed = await updateRows<{ id: string }>(
      tx.reader,
      'scheduled_run',
      { status: RUN_STATUS.failed, message: raw(OVERDUE_MESSAGE), completed_at: raw('t.report_by') },
      raw(OVERDUE),
      sql`t.id`,
    );
    const claimed = await updateRows<Claimed>(
      tx.reader,
      'scheduled_process',
      // Past the missed turns to the next one still ahead, so a process stopped a while runs once.
      { next_run_at: sql`t.next_run_at + make_interval(mins => t.interval_minutes * (floor(extract(epoch from now() - t.next_run_at) / 60 / t.interval_minutes)::int + 1))` },
      sql`t.enabled and t.next_run_at <= now()`,
      sql`t.id, t.name, t.script_id`,
    );
    const made = claimed.map((p) => ({ id: newId(), process: p }));
    const reportBy = sql`now() + make_interval(mins => ${ctx.services.config.scheduledRunTimeoutMinutes})`;
    await insertRows(tx.reader, 'scheduled_run', made.map((r) => ({ id: r.id, process_id: r.process.id, started_by_id: ctx.caller.userId, report_by: reportBy })));
    const found = await tx.em().find(Script, { id: { $in: claimed.map((p) => p.script_id) } });
    return { closed, runs: made, scripts: new Map(found.map((s) => [s.id, s])) };
  });
  if (closed.length) {
    ctx.services.log.warn({ requestId: ctx.requestId, runs: closed.map((r) => r.id) }, 'scheduled runs failed: no report came within SCHEDULED_RUN_TIMEOUT_MINUTES');
  }
  await Promise.all(
    runs.map(async (r) => {
      // Only a run still open changes: one the script already reported complete keeps that report, one overdue has failed.
      const stillRunning = sql`t.id = ${r.id} and ${raw(OPEN)}`;
      const notStarted = (message: string) => updateRows(ctx.reader, 'scheduled_run', { status: RUN_STATUS.failed, message, completed_at: sql`now()` }, stillRunning);
      try {
        const answer = await callScriptServer(ctx, 'scheduledscripts', scripts.get(r.process.script_id)!, { token: r.id });
        const [failure, outcome] = [reportedFailure(answer), answeredOutcome(answer)];
        if (failure) await notStarted(failure);
        else if (outcome) await updateRows(ctx.reader, 'scheduled_run', { status: RUN_STATUS.completed, ...outcome, completed_at: sql`now()` }, stillRunning);
      } catch (err) {
        // A script may answer only when its work is done (the public samples do): it still runs, and reports.
        if (err instanceof AppError && err.code === 'GATEWAY_TIMEOUT') {
          await updateRows(ctx.reader, 'scheduled_run', { message: `No answer within SCRIPT_TIMEOUT_SECONDS: the run waits for its script's report, until SCHEDULED_RUN_TIMEOUT_MINUTES from its start.` }, stillRunning);
          return;
        }
        await notStarted(err instanceof AppError ? err.message : 'The run could not be started.');
      }
    }),
  );
  return runs.map((r) => r.id);
}

/**
 * The failure the script server reports in its answer, as the public one does with HTTP 200
 * `{code, error}` (its token could not be had, the script threw): a code of 400 or more.
 */
function reportedFailure(answer: unknown): string | undefined {
  const a = answer as { code?: unknown; error?: unknown } | null;
  if (!a || typeof a !== 'object' || typeof a.code !== 'number' || a.code < 400) return undefined;
  return `The outside process reported code ${a.code}: ${answerText(a.error, 1000)}`;
}

/**
 * The outcome a scheduled script answers with, as the public script server's samples describe it
 * (its scripts/test-scripts/scheduled/CreateUser.js): an object or array whose first value, whatever
 * its name, is a boolean (true: it succeeded), the second (if any) a message for the run's history,
 * such as `{success: false, message: '...'}`. Any other answer ('started') leaves the run to its report.
 */
function answeredOutcome(answer: unknown): { result: boolean; message: string } | undefined {
  if (!answer || typeof answer !== 'object') return undefined;
  const [result, message] = Object.values(answer);
  return typeof result === 'boolean' ? { result, message: answerText(message, LIMITS.message) } : undefined;
}

/** A value of the script server's answer as a run's message: text as it is, another value as its JSON. */
const answerText = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : v == null ? '' : shownValue(v, max));

/** A script reports its run back: once, with `action` complete. */
export async function completeRun(ctx: AppContext, args: { token: string; action?: string | null; result?: boolean | null; message?: string | null }): Promise<string> {
  if ((args.action ?? '').trim().toLowerCase() !== 'complete') throw badRequest(`The parameter 'action' must be 'complete', got '${(args.action ?? '').slice(0, 64)}'.`, { field: 'action' });
  const message = maxLength(args.message ?? '', LIMITS.message, 'message');
  const token = args.token.toLowerCase();
  const done = await updateRows(
    ctx.reader,
    'scheduled_run',
    { status: RUN_STATUS.completed, result: args.result ?? null, message, completed_at: sql`now()` },
    sql`t.id = ${token} and ${raw(OPEN)}`,
  );
  if (done.length === 1) return token;
  // Read as the reads show it, at the same now(): a run past its report_by has failed, closed or not.
  const [run] = await selectRows<{ status: number; overdue: boolean }>(ctx.reader, resource('ScheduledRun'), {
    where: [sql`t.id = ${token}`],
    byToken: true,
    extra: raw(', t.report_by <= coalesce(t.completed_at, now()) as overdue'),
  });
  if (!run) throw notFound(`No scheduled run has the token '${args.token}'.`);
  const why = run.status === RUN_STATUS.completed ? 'it was reported complete' : run.overdue ? 'no report came within SCHEDULED_RUN_TIMEOUT_MINUTES, so it failed' : 'it could not be started';
  throw conflict(`The scheduled run '${args.token}' has ended already (${why}).`);
}
