/**
 * Connect, acquire and statement timeouts for both pools (the ORM's and the read pool). A frozen
 * PostgreSQL enforces no statement_timeout of its own, so the client stops waiting too
 * (query_timeout), a little after the server would have cancelled the statement itself.
 */
export interface DbTimeouts {
  connectMs: number;
  acquireMs: number;
  statementMs: number;
}

/** Settings of one `pg` connection (pg.ClientConfig keys). */
export function connectionTimeouts(t: DbTimeouts) {
  return {
    connectionTimeoutMillis: t.connectMs,
    statement_timeout: t.statementMs,
    query_timeout: t.statementMs + 1000,
    keepAlive: true,
  };
}
