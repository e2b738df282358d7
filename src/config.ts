/**
 * The one place that reads the environment. Every setting is validated here and documented in
 * the README's config table; the rest of the code receives a typed Config.
 */
import path from 'node:path';

export interface Config {
  port: number;
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
  /** The largest form designer XML an import accepts (413 above it). */
  formImportMaxBytes: number;
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

export function loadConfig(env: Env = process.env): Config {
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl: url(env, 'DATABASE_URL'),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    logLevel: oneOf(env, 'LOG_LEVEL', levels, 'info'),
    publicUrl: url(env, 'PUBLIC_URL'),
    jwtIssuer: env.JWT_ISSUER || 'quire',
    jwtAudience: env.JWT_AUDIENCE || 'quire-api',
    accessTokenTtlSeconds: int(env, 'ACCESS_TOKEN_TTL', 3600, 60, 86400),
    refreshTokenTtlSeconds: int(env, 'REFRESH_TOKEN_TTL', 30 * 86400, 300, 365 * 86400),
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    formImportMaxBytes: int(env, 'FORM_IMPORT_MAX_BYTES', 2 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    defaultPageSize: int(env, 'DEFAULT_PAGE_SIZE', 200, 1, 10000),
    maxPageSize: int(env, 'MAX_PAGE_SIZE', 2000, 1, 100000),
    loginMaxFailures: int(env, 'LOGIN_MAX_FAILURES', 5, 1, 1000),
    loginLockSeconds: int(env, 'LOGIN_LOCK_SECONDS', 60, 1, 86400),
    tokenMaxFailuresPerAddress: int(env, 'TOKEN_MAX_FAILURES_PER_ADDRESS', 100, 1, 1_000_000),
    tokenMaxFailuresPerClient: int(env, 'TOKEN_MAX_FAILURES_PER_CLIENT', 1000, 1, 1_000_000),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10000, 0, 600000),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 10, 1, 200),
  };
}

export { ConfigError };
