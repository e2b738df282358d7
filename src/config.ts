/**
 * The one place that reads the environment. Every setting is validated here and documented in
 * the README's config table; the rest of the code receives a typed Config.
 */
import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

export interface Config {
  port: number;
  /** HEALTH_PORT: a second listener serving only /healthz, /readyz and /metrics, outside the connection limits (src/probe-server.ts). */
  healthPort: number | undefined;
  host: string;
  /** When unset, an embedded PostgreSQL is started with its data under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** The base URL clients use (behind a proxy): `meta.href` and pagination links are built on it; unset, on the request's own URL. */
  publicUrl: string | undefined;
  jwtIssuer: string;
  jwtAudience: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  maxBodyBytes: number;
  /** The bytes of request bodies the server holds in memory at once, all requests together (src/body-budget.ts). */
  bodyMemoryBytes: number;
  /** What one tenant's requests may hold of bodyMemoryBytes at once, so that one tenant cannot refuse the others' bodies. */
  bodyMemoryTenantBytes: number;
  /** A body read whole has this long to arrive, and a second more for every bodyMinBytesPerSecond bytes that arrived (src/body-pace.ts). */
  bodyGraceSeconds: number;
  bodyMinBytesPerSecond: number;
  /** The largest form designer XML an import accepts (413 above it). */
  formImportMaxBytes: number;
  /** The largest file `POST files` takes (streamed into the file store), beside MAX_BODY_BYTES of text parts. */
  fileMaxBytes: number;
  defaultPageSize: number;
  maxPageSize: number;
  /** Failed logins allowed per user before a lock-out window starts. */
  loginMaxFailures: number;
  loginLockSeconds: number;
  /** Failed token requests allowed per source address, and per API client, in LOGIN_LOCK_SECONDS before a lock. */
  tokenMaxFailuresPerAddress: number;
  tokenMaxFailuresPerClient: number;
  shutdownGraceMs: number;
  dbPoolSize: number;
  /** Statement texts the read pool prepares under a name (src/read/statement-names.ts); 0: none. */
  dbNamedStatements: number;
  /** Opening a database connection, waiting for a pooled one, and one statement: each bounded, so a frozen database cannot hang a request. */
  dbConnectTimeoutMs: number;
  dbAcquireTimeoutMs: number;
  dbStatementTimeoutMs: number;
  /** Node's limit on a request's head (request line and headers): a longer `q` in the URL gets a 431 envelope. */
  maxHeaderBytes: number;
  /** How long a whole request (head and body) may take to arrive: long enough for a FILE_MAX_BYTES upload on a slow link. */
  requestTimeoutSeconds: number;
  /** Connections open at once, all clients together: past it, Node closes a new one at once (src/connection-limits.ts). */
  maxConnections: number;
  /** Connections open at once from one socket address (0: no limit); a trusted proxy's are not counted. */
  maxConnectionsPerAddress: number;
  /** When set, GET /metrics asks for `Authorization: Bearer <this>`; unset, it is open. */
  metricsToken: string | undefined;
  /** Proxies whose X-Forwarded-For is believed (IPs or CIDRs); anyone else's is ignored. */
  trustedProxies: string[];
  /** Origins allowed cross-origin access (CORS); empty: none. */
  corsOrigins: string[];
  /** Encrypts the JWT signing keys at rest; unset, a key file under dataDir is used (src/auth/kek.ts). */
  keyEncryptionKey: Buffer | undefined;
  /** The most rows one /graphql operation may ask for, counting every paged list at its limit (src/plugins/use-read-budget.ts). */
  maxQueryRows: number;
  /** How often the server purges expired tokens, stale throttles and retired signing keys. */
  purgeIntervalSeconds: number;
  /** How many days a deleted document (archive 2) is kept before the purge deletes it for good. */
  deletedDocumentDays: number;
  /** The mail server (smtp:// or smtps://, user and password in the URL); unset, e-mail waits in its queue. Never logged. */
  smtpUrl: string | undefined;
  /** The From address of every message. */
  emailFrom: string;
  /** How often a batch sends queued e-mail, and how many messages one batch takes. */
  emailBatchSeconds: number;
  emailBatchSize: number;
  /** Tries before a message that keeps failing for a passing reason is marked failed. */
  emailMaxAttempts: number;
  /** How long a message being sent is kept from other processes (src/jobs/email-sender.ts). */
  emailLeaseSeconds: number;
  /** The longest one message's send may take, however its mail server keeps the connection busy (src/jobs/email-sender.ts). */
  emailSendTimeoutSeconds: number;
  /** The most bytes of attachments one message may carry; a multipart `POST emails` body may be this much over MAX_BODY_BYTES. */
  emailMaxAttachmentBytes: number;
  /** Days a sent or failed message is kept, as the queue's log, before the purge deletes it. */
  emailKeepDays: number;
  /** The outside process that runs scripts (the script server, `POST <url>/scripts?id=`); unset, running a script is a 503. */
  scriptServerUrl: string | undefined;
  /** How long a script may run before its caller gets a 504. */
  scriptTimeoutSeconds: number;
  /** How long a scheduled run may wait for its script's report before it is failed (docs/decisions.md, "Scheduled processes"). */
  scheduledRunTimeoutMinutes: number;
  /** Where documents' file bytes go: `disk` (under filesDir) or `s3` (the bucket in `s3`). */
  fileStore: 'disk' | 's3';
  /** The directory of the disk store (absolute); made on the first file stored, not at start-up. */
  filesDir: string;
  /** The bucket of the S3 store: set exactly when fileStore is `s3`. */
  s3: S3Settings | undefined;
}

/** An S3 bucket, on AWS or an S3-compatible server (S3_ENDPOINT). */
export interface S3Settings {
  bucket: string;
  region: string;
  /** An S3-compatible server's URL; unset, AWS's own endpoint for the region. */
  endpoint: string | undefined;
  /** Both set or neither: unset, the SDK's default credential chain (environment, profile, instance role). Never logged. */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint>/<key>`, as most S3-compatible servers want. */
  forcePathStyle: boolean;
}

type Env = Record<string, string | undefined>;

class ConfigError extends Error {}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got '${raw}'`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got '${raw}'`);
  }
  return raw as T;
}

function url(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL`);
  }
  return raw.replace(/\/+$/, '');
}

/** An smtp:// or smtps:// URL; the message never repeats it, since it may hold a password. */
function smtpUrl(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL such as smtp://user:password@mail.example.com:587`);
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConfigError(`${name} must start with smtp:// or smtps://`);
  return raw;
}

/**
 * A postgres:// or postgresql:// URL naming its database. Its user, password and database name are
 * percent-decoded by the driver and the ORM, which throw on a `%` without two hex digits after it.
 * The message never repeats the URL, since it may hold a password.
 */
function postgresUrl(env: Env, name: string): string | undefined {
  const raw = url(env, name);
  if (raw === undefined) return undefined;
  const u = new URL(raw);
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new ConfigError(`${name} must start with postgres:// or postgresql://`);
  if (u.pathname.length <= 1) throw new ConfigError(`${name} must name its database: postgres://user@host:5432/<database>`);
  for (const [part, value] of [['user', u.username], ['password', u.password], ['database name', u.pathname]]) {
    try {
      decodeURIComponent(value);
    } catch {
      throw new ConfigError(`${name}'s ${part} holds a % not followed by two hex digits: write a % as %25`);
    }
  }
  return raw;
}

/** An http:// or https:// URL without a trailing slash. */
function httpUrl(env: Env, name: string): string | undefined {
  const u = url(env, name);
  if (u !== undefined && !/^https?:\/\//i.test(u)) throw new ConfigError(`${name} must start with http:// or https://`);
  return u;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got '${env[name]}'`);
}

function emailAddress(env: Env, name: string, fallback: string): string {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return fallback;
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(raw)) throw new ConfigError(`${name} must be an e-mail address such as forms@example.com, got '${raw}'`);
  return raw;
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function addresses(env: Env, name: string): string[] {
  const all = list(env, name);
  for (const a of all) {
    const [ip, bits, more] = a.split('/');
    const family = isIP(ip);
    const maxBits = family === 6 ? 128 : 32;
    if (!family || more !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(`${name} must be a comma list of IP addresses or CIDR ranges, got '${a}'`);
    }
  }
  return all;
}

function origins(env: Env, name: string): string[] {
  return list(env, name).map((o) => {
    let u: URL;
    try {
      u = new URL(o);
    } catch {
      throw new ConfigError(`${name} must be a comma list of origins (scheme://host[:port]), got '${o}'`);
    }
    if (u.origin === 'null' || u.origin !== o.replace(/\/+$/, '')) throw new ConfigError(`${name} must be a comma list of origins (scheme://host[:port]), got '${o}'`);
    return u.origin;
  });
}

function key32(env: Env, name: string): Buffer | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32 || key.toString('base64') !== raw.trim()) throw new ConfigError(`${name} must be 32 bytes in base64 (e.g. openssl rand -base64 32)`);
  return key;
}

/** The S3 store's settings, read only when FILE_STORE is s3. The key values never appear in a message. */
function s3Settings(env: Env): S3Settings {
  const bucket = (env.S3_BUCKET ?? '').trim();
  if (bucket === '') throw new ConfigError('S3_BUCKET must be set when FILE_STORE is s3');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/.test(bucket)) throw new ConfigError(`S3_BUCKET must be a bucket name (letters, digits, '.', '-', '_'), got '${bucket}'`);
  const region = (env.S3_REGION ?? '').trim() || 'us-east-1';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(region)) throw new ConfigError(`S3_REGION must be a region name such as us-east-1, got '${region}'`);
  const endpoint = httpUrl(env, 'S3_ENDPOINT');
  const accessKeyId = env.S3_ACCESS_KEY_ID || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY || undefined;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together, or neither (the SDK's default credentials)");
  }
  return { bucket, region, endpoint, accessKeyId, secretAccessKey, forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== undefined) };
}

/**
 * BODY_MEMORY_BYTES: at least the largest body held whole (a multipart `POST emails`: MAX_BODY_BYTES
 * and EMAIL_MAX_ATTACHMENT_BYTES of attachments), which a smaller budget would refuse every time.
 * Unset, 256 MiB, or that largest body when it is more.
 */
function bodyMemoryBytes(env: Env, largest: number): number {
  const n = int(env, 'BODY_MEMORY_BYTES', Math.max(256 * 1024 * 1024, largest), 1024, 64 * 1024 ** 3);
  if (n < largest) {
    throw new ConfigError(`BODY_MEMORY_BYTES must be at least MAX_BODY_BYTES + EMAIL_MAX_ATTACHMENT_BYTES (${largest}), the largest request body held in memory whole, got ${n}`);
  }
  return n;
}

/**
 * BODY_MEMORY_TENANT_BYTES: at least the largest body held whole, as BODY_MEMORY_BYTES, and at most
 * BODY_MEMORY_BYTES (which it then does not part). Unset, a quarter of BODY_MEMORY_BYTES, or that
 * largest body when it is more.
 */
function bodyMemoryTenantBytes(env: Env, bodyMemory: number, largest: number): number {
  const n = int(env, 'BODY_MEMORY_TENANT_BYTES', Math.max(Math.floor(bodyMemory / 4), largest), 1024, 64 * 1024 ** 3);
  if (n < largest) {
    throw new ConfigError(`BODY_MEMORY_TENANT_BYTES must be at least MAX_BODY_BYTES + EMAIL_MAX_ATTACHMENT_BYTES (${largest}), the largest request body held in memory whole, got ${n}`);
  }
  if (n > bodyMemory) throw new ConfigError(`BODY_MEMORY_TENANT_BYTES must be at most BODY_MEMORY_BYTES (${bodyMemory}), of which it is one tenant's part, got ${n}`);
  return n;
}

/**
 * The soft limit on open files (RLIMIT_NOFILE) the process runs with, which Node raised to the
 * hard limit as it started; Node has no call for it, so it is read from /proc (Linux), and is
 * undefined elsewhere or when unlimited.
 */
function openFilesLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Descriptors kept for what is not a client's: both database pools (2 × DB_POOL_SIZE) come on top. */
const RESERVED_FILES = 256;

/**
 * MAX_CONNECTIONS unset: half the open files left once the reserve is set aside, since a
 * connection may hold a second descriptor (a file it downloads or uploads, its S3 request); at
 * most 8192, whatever the limit (Node raises it to the hard limit, often a million in a container,
 * and each idle connection costs memory), at least 64. 4096 when the limit cannot be read.
 */
function defaultMaxConnections(openFiles: number | undefined, dbPoolSize: number): number {
  if (openFiles === undefined) return 4096;
  return Math.min(8192, Math.max(64, Math.floor((openFiles - RESERVED_FILES - 2 * dbPoolSize) / 2)));
}

/**
 * SCHEDULED_RUN_TIMEOUT_MINUTES: at least SCRIPT_TIMEOUT_SECONDS, how long a run waits for the
 * script server's answer, which a shorter limit would fail runs still waiting for.
 */
function scheduledRunTimeoutMinutes(env: Env, scriptTimeoutSeconds: number): number {
  const n = int(env, 'SCHEDULED_RUN_TIMEOUT_MINUTES', 360, 1, 525_600);
  if (n * 60 < scriptTimeoutSeconds) {
    throw new ConfigError(`SCHEDULED_RUN_TIMEOUT_MINUTES must be at least SCRIPT_TIMEOUT_SECONDS (${scriptTimeoutSeconds} s), how long a scheduled run waits for the script server's answer, got ${n}`);
  }
  return n;
}

/** HEALTH_PORT, unset for none; never `port`, PORT's own (both would not listen). */
function healthPort(env: Env, port: number): number | undefined {
  if (env.HEALTH_PORT === undefined || env.HEALTH_PORT === '') return undefined;
  const probes = int(env, 'HEALTH_PORT', 0, 0, 65535);
  if (probes !== 0 && probes === port) throw new ConfigError(`HEALTH_PORT must differ from PORT, got ${port} for both`);
  return probes;
}

/** `limits.openFiles`: the process's open-file limit, read unless given (a test gives it). */
export function loadConfig(env: Env = process.env, limits: { openFiles: number | undefined } = { openFiles: openFilesLimit() }): Config {
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const fileStore = oneOf(env, 'FILE_STORE', ['disk', 's3'] as const, 'disk');
  const maxBodyBytes = int(env, 'MAX_BODY_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024);
  const emailMaxAttachmentBytes = int(env, 'EMAIL_MAX_ATTACHMENT_BYTES', 25 * 1024 * 1024, 0, 1024 * 1024 * 1024);
  // The largest body held in memory whole: a multipart `POST emails`, its attachments beside its other parts.
  const largestHeld = maxBodyBytes + emailMaxAttachmentBytes;
  const bodyMemory = bodyMemoryBytes(env, largestHeld);
  const dbPoolSize = int(env, 'DB_POOL_SIZE', 10, 1, 200);
  const port = int(env, 'PORT', 8080, 0, 65535);
  const scriptTimeoutSeconds = int(env, 'SCRIPT_TIMEOUT_SECONDS', 60, 1, 3600);
  return {
    port,
    healthPort: healthPort(env, port),
    host: env.HOST || '0.0.0.0',
    databaseUrl: postgresUrl(env, 'DATABASE_URL'),
    dataDir,
    logLevel: oneOf(env, 'LOG_LEVEL', levels, 'info'),
    publicUrl: httpUrl(env, 'PUBLIC_URL'),
    jwtIssuer: env.JWT_ISSUER || 'quire',
    jwtAudience: env.JWT_AUDIENCE || 'quire-api',
    accessTokenTtlSeconds: int(env, 'ACCESS_TOKEN_TTL', 3600, 60, 86400),
    refreshTokenTtlSeconds: int(env, 'REFRESH_TOKEN_TTL', 30 * 86400, 300, 365 * 86400),
    maxBodyBytes,
    bodyMemoryBytes: bodyMemory,
    bodyMemoryTenantBytes: bodyMemoryTenantBytes(env, bodyMemory, largestHeld),
    bodyGraceSeconds: int(env, 'BODY_GRACE_SECONDS', 20, 1, 3600),
    bodyMinBytesPerSecond: int(env, 'BODY_MIN_BYTES_PER_SECOND', 500, 1, 1024 * 1024 * 1024),
    formImportMaxBytes: int(env, 'FORM_IMPORT_MAX_BYTES', 8 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    // At most 2^31 - 1: GraphQL's Int carries a file's size.
    fileMaxBytes: int(env, 'FILE_MAX_BYTES', 1024 * 1024 * 1024, 1024, 2 ** 31 - 1),
    defaultPageSize: int(env, 'DEFAULT_PAGE_SIZE', 200, 1, 10000),
    maxPageSize: int(env, 'MAX_PAGE_SIZE', 2000, 1, 100000),
    loginMaxFailures: int(env, 'LOGIN_MAX_FAILURES', 5, 1, 1000),
    loginLockSeconds: int(env, 'LOGIN_LOCK_SECONDS', 60, 1, 86400),
    tokenMaxFailuresPerAddress: int(env, 'TOKEN_MAX_FAILURES_PER_ADDRESS', 100, 1, 1_000_000),
    tokenMaxFailuresPerClient: int(env, 'TOKEN_MAX_FAILURES_PER_CLIENT', 1000, 1, 1_000_000),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10000, 0, 600000),
    dbPoolSize,
    dbNamedStatements: int(env, 'DB_NAMED_STATEMENTS', 100, 0, 10000),
    dbConnectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 5000, 100, 600000),
    dbAcquireTimeoutMs: int(env, 'DB_ACQUIRE_TIMEOUT_MS', 5000, 100, 600000),
    dbStatementTimeoutMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', 15000, 100, 3600000),
    maxHeaderBytes: int(env, 'MAX_HEADER_BYTES', 65536, 16384, 1048576),
    requestTimeoutSeconds: int(env, 'REQUEST_TIMEOUT_SECONDS', 3600, 1, 21600),
    maxConnections: int(env, 'MAX_CONNECTIONS', defaultMaxConnections(limits.openFiles, dbPoolSize), 1, 1_000_000),
    maxConnectionsPerAddress: int(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256, 0, 1_000_000),
    metricsToken: env.METRICS_TOKEN || undefined,
    trustedProxies: addresses(env, 'TRUSTED_PROXIES'),
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    keyEncryptionKey: key32(env, 'KEY_ENCRYPTION_KEY'),
    maxQueryRows: int(env, 'MAX_QUERY_ROWS', 50_000, 1, 10_000_000),
    purgeIntervalSeconds: int(env, 'PURGE_INTERVAL_SECONDS', 3600, 1, 86400),
    deletedDocumentDays: int(env, 'DELETED_DOCUMENT_DAYS', 30, 0, 36500),
    smtpUrl: smtpUrl(env, 'SMTP_URL'),
    emailFrom: emailAddress(env, 'EMAIL_FROM', 'quire@localhost'),
    emailBatchSeconds: int(env, 'EMAIL_BATCH_SECONDS', 5, 1, 3600),
    emailBatchSize: int(env, 'EMAIL_BATCH_SIZE', 50, 1, 1000),
    emailMaxAttempts: int(env, 'EMAIL_MAX_ATTEMPTS', 5, 1, 100),
    emailLeaseSeconds: int(env, 'EMAIL_LEASE_SECONDS', 300, 1, 3600),
    emailSendTimeoutSeconds: int(env, 'EMAIL_SEND_TIMEOUT_SECONDS', 600, 1, 86400),
    emailMaxAttachmentBytes,
    emailKeepDays: int(env, 'EMAIL_KEEP_DAYS', 30, 0, 36500),
    scriptServerUrl: httpUrl(env, 'SCRIPT_SERVER_URL'),
    scriptTimeoutSeconds,
    scheduledRunTimeoutMinutes: scheduledRunTimeoutMinutes(env, scriptTimeoutSeconds),
    fileStore,
    filesDir: env.FILES_DIR ? path.resolve(env.FILES_DIR) : path.join(dataDir, 'files'),
    s3: fileStore === 's3' ? s3Settings(env) : undefined,
  };
}

export { ConfigError };
