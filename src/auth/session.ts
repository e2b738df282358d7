/**
 * A token is good only while its session is: the user exists, is enabled, and its session epoch
 * (bumped by the database on a password change or a disabling) is the one the token carries; and
 * the API client it came through is not revoked.
 * Checked on every request, without a statement of its own on the hot path: the request's first
 * read that returns rows carries the check in its WHERE (src/read/rows.ts), so rows prove the
 * session alive. An operation whose reads returned none asks once at its end (`whoAmI`, shared
 * with the admin check); a mutation asks before it writes. One refused after its session was seen
 * alive asks again: an account deleted meanwhile took the caller's folder roles and memberships
 * with it, and the refusal they caused (a 404 for a document that is there, the foreign key's 404
 * for a record being made) is the 401 the operation gets after the delete. Query fields that
 * write (a web token, a renewed JWT) read the caller's row through the guarded reader first.
 */
import { type GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { unauthorized } from '../errors.js';
import { appToGraphQL, findAppError } from '../graphql-errors.js';
import { run, type Reader, type SessionCheck } from '../read/rows.js';
import { sql } from '../sql.js';
import { ADMIN_GROUP } from '../roles.js';

export const sessionEnded = () =>
  unauthorized('This session has ended (the account was disabled or deleted, its password changed, or the API client it logged in through was revoked): log in again.');

export interface WhoAmI {
  live: boolean;
  admin: boolean;
}

/** One statement: whether the session is alive and whether the caller is a tenant administrator. */
export async function whoAmI(reader: Reader, session: SessionCheck): Promise<WhoAmI> {
  const rows = await run<WhoAmI>(
    reader,
    sql`select ${session.alive(reader.tenantId)} as live,
          exists (select 1 from group_member m join user_group g on g.tenant_id = m.tenant_id and g.id = m.group_id
                   where m.tenant_id = ${reader.tenantId} and m.user_id = ${session.userId} and name_key(g.name) = name_key(${ADMIN_GROUP})) as admin`,
  );
  return { live: rows[0].live, admin: rows[0].live && rows[0].admin };
}

type Execute = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;
/** What the check needs of the request's context (src/context.ts). */
interface SessionContext {
  reader: Reader;
  sessionAlive(): Promise<boolean>;
  recheckSession(): void;
}

const ended = (): ExecutionResult => ({ errors: [appToGraphQL(sessionEnded())] });
/** A check that failed (the database is away) is the operation's error, mapped with the request's id like any other. */
const failed = (e: unknown): ExecutionResult => ({ errors: [e as GraphQLError] });

/** Refusals that ask nothing more: an ended session's own, and those that guard the server's memory and load. */
const ASK_NOTHING = new Set([401, 413, 429]);
/** A refusal of the caller's request (a 4xx) that the session's end may have caused. */
const isRefusal = (e: GraphQLError) => {
  const status = findAppError(e)?.status ?? 0;
  return status >= 400 && status < 500 && !ASK_NOTHING.has(status);
};

/**
 * `result` of an operation whose session was seen alive before it ended; refused, the session is
 * asked again, and ended, its errors are that 401. Fields answered before (a mutation's that
 * committed) stay; with none, nothing was served, as when the session ended first. A check that
 * cannot be made leaves the refusal as it was.
 */
function refusedAfterEnd(ctx: SessionContext, result: ExecutionResult): ExecutionResult | Promise<ExecutionResult> {
  if (!result.errors?.some(isRefusal)) return result;
  ctx.recheckSession();
  const served = Object.values(result.data ?? {}).some((v) => v != null);
  return ctx.sessionAlive().then((live) => (live ? result : served ? { ...result, errors: ended().errors } : ended()), () => result);
}

/** `execute` with the session check around it, for both faces (REST's executor and /graphql's plugin). */
export function withSessionCheck(execute: Execute): Execute {
  return (args) => {
    const ctx = args.contextValue as SessionContext;
    const op = args.document.definitions.find((d) => d.kind === 'OperationDefinition' && (!args.operationName || d.name?.value === args.operationName));
    if (op?.kind === 'OperationDefinition' && op.operation !== 'query') {
      return ctx.sessionAlive().then((live) => (live ? Promise.resolve(execute(args)).then((r) => refusedAfterEnd(ctx, r)) : ended()), failed);
    }
    const after = (result: ExecutionResult) =>
      ctx.reader.session?.confirmed ? refusedAfterEnd(ctx, result) : ctx.sessionAlive().then((live) => (live ? result : ended()), failed);
    const result = execute(args);
    return result instanceof Promise ? result.then(after) : after(result);
  };
}
