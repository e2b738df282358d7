/**
 * A real app on the shared test database: requests go through app.fetch (the same Yoga
 * pipeline the HTTP server runs). Each test file makes its own tenants, so files never collide.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import { createApp, type App } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import type { Services } from '../src/context.js';
import { initOrm } from '../src/db/orm.js';
import { createReadPool } from '../src/read/read-pool.js';
import { createTenant, type CreatedTenant } from '../src/domain/tenants.js';
import { createLogger } from '../src/log.js';
import { createServices } from '../src/services.js';

export const BASE = 'http://quire.test';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The body's bytes (binary answers: PDFs). */
  bytes: Uint8Array;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** On an answer of 500 or more: the app's log lines of this request (its error and stack among them), also printed. */
  log?: LogLine[];
}

/** One line of the app's JSON log (pino's fields: level, msg, requestId, err with its stack...). */
export type LogLine = Record<string, unknown>;

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** A raw body (text or bytes), sent as is. */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  /** The socket's remote address the request comes from (default: the harness's own, `h.address`). */
  from?: string;
  /** The test makes the server fail on purpose: a 500's log lines are on the reply, not printed. */
  failureExpected?: boolean;
}

/** A log line as a developer reads it: a stack's line breaks as line breaks. */
const shown = (line: LogLine) => JSON.stringify(line, null, 2).replace(/\\n/g, '\n');

/**
 * The app's log, kept by request id until the harness reads that request's answer, so that a 5xx
 * shows why (the test would see only its status). Lines without a request id are dropped, and of
 * requests never read here (sent over a socket) only the last MAX_HELD are kept.
 */
class LogByRequest implements DestinationStream {
  private static readonly MAX_HELD = 200;
  private readonly held = new Map<string, LogLine[]>();

  write(text: string): void {
    const line = JSON.parse(text) as LogLine;
    if (typeof line.requestId !== 'string') return;
    const lines = this.held.get(line.requestId);
    if (lines) return void lines.push(line);
    this.held.set(line.requestId, [line]);
    // A Map iterates in insertion order: the first key is the oldest request.
    if (this.held.size > LogByRequest.MAX_HELD) this.held.delete(this.held.keys().next().value!);
  }

  /** The lines of `requestId`, given up. */
  take(requestId: string | null): LogLine[] {
    const lines = (requestId && this.held.get(requestId)) || [];
    if (requestId) this.held.delete(requestId);
    return lines;
  }
}

/**
 * Test requests come from an address of this documentation range (RFC 3849), one per harness so
 * that test files never share an address's login throttle; tests behind a proxy trust the range.
 */
export const TEST_ADDRESSES = '2001:db8:7e57::/48';

export interface TestTenant extends CreatedTenant {
  password: string;
  root: string;
}

export class Harness {
  /** Where this harness's requests come from unless they say otherwise (app.fetch has no socket of its own). */
  readonly address = `2001:db8:7e57::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

  constructor(
    readonly orm: MikroORM,
    readonly services: Services,
    readonly app: App,
    private readonly logged: LogByRequest,
  ) {}

  /** An app on the run's database (or `overrides.databaseUrl`) and its file store (or `overrides.filesDir`). */
  static async start(overrides: Partial<Config> = {}): Promise<Harness> {
    const url = overrides.databaseUrl ?? process.env.QUIRE_TEST_DATABASE_URL;
    const filesDir = process.env.QUIRE_TEST_FILES_DIR;
    if (!url || !filesDir) throw new Error('QUIRE_TEST_DATABASE_URL or QUIRE_TEST_FILES_DIR is not set: run the tests through jest (global setup)');
    // Every test file's requests come from one address (its harness's), all at once:
    // the shared throttles are tested with their own limits (test/rest/throttle.test.ts).
    const shared = { tokenMaxFailuresPerAddress: 1_000_000, tokenMaxFailuresPerClient: 1_000_000 };
    // One file store for the database, as in a deployment: any harness's purge deletes the bytes it dequeues.
    const config = { ...loadConfig({}), databaseUrl: url, logLevel: 'info' as const, ...shared, filesDir, ...overrides };
    const orm = await initOrm(url, 4);
    const logged = new LogByRequest();
    const log = createLogger(config.logLevel, logged);
    const services = await createServices(config, { orm, reads: createReadPool(orm, log, config.dbNamedStatements) }, log);
    // Its own address, which server.ts sets once listening: here the one its requests name.
    services.ownUrl ??= BASE;
    return new Harness(orm, services, createApp(services), logged);
  }

  /** A harness with one fresh tenant and its administrator's token: most test files start so. */
  static async withTenant(overrides: Partial<Config> = {}): Promise<{ h: Harness; t: TestTenant; token: string }> {
    const h = await Harness.start(overrides);
    const t = await h.tenant();
    return { h, t, token: await h.login(t) };
  }

  async stop() {
    await this.services.reads.end();
    await this.orm.close(true);
  }

  async request(method: string, path: string, o: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | Uint8Array | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    // The server context Node's HTTP server gives Yoga: the socket is where the caller's address comes from.
    const serverContext = { req: { socket: { remoteAddress: o.from ?? this.address } } };
    const res = await this.app.fetch(new Request(`${BASE}${path}`, { method, headers, body: body as BodyInit | undefined }), serverContext);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const lines = this.logged.take(res.headers.get('x-request-id'));
    if (res.status < 500) return { status: res.status, headers: res.headers, text, bytes, body: parsed };
    // A 500 is a fault nobody planned (a 503's cause is in its message): its log is printed.
    if (res.status === 500 && !o.failureExpected) console.error(`${method} ${path} answered ${res.status}; the server logged:\n${lines.map(shown).join('\n')}`);
    return { status: res.status, headers: res.headers, text, bytes, body: parsed, log: lines };
  }

  /** A fresh tenant with unique aliases; the admin's password is returned alongside. */
  async tenant(): Promise<TestTenant> {
    const suffix = randomUUID().slice(0, 8);
    const password = `pw-${randomUUID()}`;
    const t = await createTenant(this.orm.em, { customer: `c${suffix}`, database: `d${suffix}`, admin: 'admin', password });
    return { ...t, password, root: `/api/v1/${t.customerAlias}/${t.databaseAlias}` };
  }

  async login(t: TestTenant, username = t.adminUserId, password = t.password): Promise<string> {
    const r = await this.request('POST', '/oauth/token', {
      raw: new URLSearchParams({ grant_type: 'password', client_id: t.clientId, client_secret: t.clientSecret, username, password }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
    return r.body.access_token;
  }

  /**
   * The SQL statements `fn` sends, counted at the driver (pg's Client.query), where both the
   * ORM's writes and the direct read path pass.
   */
  async countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    const { result, statements } = await this.captureQueries(fn);
    return { result, statements: statements.map((s) => s.text) };
  }

  /** The statements `fn` sends, with their values (to EXPLAIN one as it ran). */
  async captureQueries<T>(fn: () => Promise<T>): Promise<{ result: T; statements: { text: string; values: unknown[] }[] }> {
    const statements: { text: string; values: unknown[] }[] = [];
    const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const original = proto.query;
    proto.query = function (this: unknown, ...args: unknown[]) {
      const q = args[0] as string | { text: string; values?: unknown[] };
      statements.push(typeof q === 'string' ? { text: q, values: Array.isArray(args[1]) ? args[1] : [] } : { text: q.text, values: q.values ?? [] });
      return original.apply(this, args);
    };
    try {
      const result = await fn();
      return { result, statements };
    } finally {
      proto.query = original;
    }
  }

}
