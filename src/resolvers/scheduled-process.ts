/** Scheduled processes: managing them, running the due ones, runs reported back (src/domain/scheduled-processes.ts). Who may call each: schema/scheduled-process.graphql. */
import type { AppContext } from '../context.js';
import { completeRun, createProcess, deleteProcess, runDueProcesses, updateProcess } from '../domain/scheduled-processes.js';
import { reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql } from '../sql.js';

type Input = Record<string, unknown>;

const PROCESS = resource('ScheduledProcess');
const RUN = resource('ScheduledRun');

export const resolvers = {
  Mutation: {
    createScheduledProcess: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => reread(ctx, PROCESS, await createProcess(ctx, input)),
    updateScheduledProcess: async (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => {
      await updateProcess(ctx, id, input);
      return reread(ctx, PROCESS, id.toLowerCase());
    },
    deleteScheduledProcess: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      await deleteProcess(ctx, id);
      return { success: true };
    },
    runScheduledProcesses: async (_: unknown, __: unknown, ctx: AppContext) => {
      const ids = await runDueProcesses(ctx);
      return ids.length ? selectRows(ctx.reader, RUN, { where: [sql`t.id = any(${ids}::uuid[])`], order: 't.started_at, t.id' }) : [];
    },
    completeScheduledRun: async (_: unknown, args: { token: string; action?: string | null; result?: boolean | null; message?: string | null }, ctx: AppContext) => {
      const token = await completeRun(ctx, args);
      // The reporter holds the token, whoever its account is: its run is theirs to read.
      const [run] = await selectRows(ctx.reader, RUN, { where: [sql`t.id = ${token}`], byToken: true });
      return run;
    },
  },
};
