/** The security settings are validated where the environment is read, with a message naming the setting. */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { startFailure } from '../src/start-failure.js';

test('TRUSTED_PROXIES takes addresses and CIDR ranges, and names a bad entry', () => {
  expect(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8, ::1 ,192.0.2.7' }).trustedProxies).toEqual(['10.0.0.0/8', '::1', '192.0.2.7']);
  expect(loadConfig({}).trustedProxies).toEqual([]);
  for (const bad of ['proxy.local', '10.0.0.0/33', '10.0.0.1/8/1', '::1/129']) {
    expect(() => loadConfig({ TRUSTED_PROXIES: bad })).toThrow(`TRUSTED_PROXIES must be a comma list of IP addresses or CIDR ranges, got '${bad}'`);
  }
});

test('CORS_ORIGINS takes origins only', () => {
  expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:3000/' }).corsOrigins).toEqual(['https://app.example.com', 'http://localhost:3000']);
  expect(loadConfig({}).corsOrigins).toEqual([]);
  for (const bad of ['*', 'app.example.com', 'https://app.example.com/path']) {
    expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS must be a comma list of origins/);
  }
});

test('KEY_ENCRYPTION_KEY must be 32 bytes of base64', () => {
  const key = randomBytes(32);
  expect(loadConfig({ KEY_ENCRYPTION_KEY: key.toString('base64') }).keyEncryptionKey!.equals(key)).toBe(true);
  expect(loadConfig({}).keyEncryptionKey).toBeUndefined();
  for (const bad of [randomBytes(16).toString('base64'), 'not base64 at all!']) {
    expect(() => loadConfig({ KEY_ENCRYPTION_KEY: bad })).toThrow('KEY_ENCRYPTION_KEY must be 32 bytes in base64 (e.g. openssl rand -base64 32)');
  }
});

test('MAX_QUERY_ROWS and PURGE_INTERVAL_SECONDS have their defaults and bounds', () => {
  expect(loadConfig({})).toMatchObject({ maxQueryRows: 50_000, purgeIntervalSeconds: 3600 });
  expect(() => loadConfig({ PURGE_INTERVAL_SECONDS: '0' })).toThrow(/PURGE_INTERVAL_SECONDS must be between 1 and 86400/);
  expect(() => loadConfig({ MAX_QUERY_ROWS: 'lots' })).toThrow(/MAX_QUERY_ROWS must be a whole number/);
});

test('DB_NAMED_STATEMENTS: 100 by default, 0 for none, at most 10000', () => {
  expect(loadConfig({}).dbNamedStatements).toBe(100);
  expect(loadConfig({ DB_NAMED_STATEMENTS: '0' }).dbNamedStatements).toBe(0);
  expect(() => loadConfig({ DB_NAMED_STATEMENTS: '10001' })).toThrow(/DB_NAMED_STATEMENTS must be between 0 and 10000/);
});

test('SMTP_URL takes smtp:// or smtps:// and never repeats a bad one (it may hold a password); EMAIL_FROM must be an address', () => {
  expect(loadConfig({})).toMatchObject({ smtpUrl: undefined, emailFrom: 'quire@localhost', emailBatchSeconds: 5, emailBatchSize: 50, emailMaxAttempts: 5, emailLeaseSeconds: 300, emailSendTimeoutSeconds: 600, emailKeepDays: 30 });
  expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.com:465', EMAIL_FROM: 'forms@example.com' })).toMatchObject({ smtpUrl: 'smtps://u:p@mail.example.com:465', emailFrom: 'forms@example.com' });
  for (const bad of ['http://u:secret@mail.example.com', 'not a url secret']) {
    let message = '';
    try {
      loadConfig({ SMTP_URL: bad });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^SMTP_URL must/);
    expect(message).not.toContain('secret');
  }
  expect(() => loadConfig({ EMAIL_FROM: 'forms at example' })).toThrow("EMAIL_FROM must be an e-mail address such as forms@example.com, got 'forms at example'");
  expect(() => loadConfig({ EMAIL_BATCH_SIZE: '0' })).toThrow(/EMAIL_BATCH_SIZE must be between 1 and 1000/);
  expect(() => loadConfig({ EMAIL_LEASE_SECONDS: '0' })).toThrow(/EMAIL_LEASE_SECONDS must be between 1 and 3600/);
  expect(() => loadConfig({ EMAIL_SEND_TIMEOUT_SECONDS: '0' })).toThrow(/EMAIL_SEND_TIMEOUT_SECONDS must be between 1 and 86400/);
});

test('SCRIPT_SERVER_URL must be http(s); SCRIPT_TIMEOUT_SECONDS has its default and bounds', () => {
  expect(loadConfig({})).toMatchObject({ scriptServerUrl: undefined, scriptTimeoutSeconds: 60 });
  expect(loadConfig({ SCRIPT_SERVER_URL: 'http://scripts.internal:3000/' }).scriptServerUrl).toBe('http://scripts.internal:3000');
  expect(() => loadConfig({ SCRIPT_SERVER_URL: 'ftp://scripts.internal' })).toThrow('SCRIPT_SERVER_URL must start with http:// or https://');
  expect(() => loadConfig({ SCRIPT_TIMEOUT_SECONDS: '0' })).toThrow(/SCRIPT_TIMEOUT_SECONDS must be between 1 and 3600/);
});

test('PUBLIC_URL must be http(s): a bare host:port (read as a URL of scheme host) stops the start rather than make every href and a script\'s baseUrl unusable', () => {
  expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/quire/' }).publicUrl).toBe('https://api.example.com/quire');
  for (const bad of ['localhost:8080', 'ftp://api.example.com']) expect(() => loadConfig({ PUBLIC_URL: bad })).toThrow('PUBLIC_URL must start with http:// or https://');
});

test('DATABASE_URL must be a postgres(ql):// URL naming its database, with well-formed % escapes; no message repeats it', () => {
  expect(loadConfig({ DATABASE_URL: 'postgresql://quire:p%40ss@db:5432/quire_1' }).databaseUrl).toBe('postgresql://quire:p%40ss@db:5432/quire_1');
  const refusals: [string, string][] = [
    ['mysql://quire:sekrit@db/quire', 'DATABASE_URL must start with postgres:// or postgresql://'],
    ['postgres://quire:sekrit@db:5432', 'DATABASE_URL must name its database'],
    ['postgres://quire:sekrit@db:5432/quire%zz', "DATABASE_URL's database name holds a % not followed by two hex digits"],
    ['postgres://quire:sek%rit@db:5432/quire', "DATABASE_URL's password holds a % not followed by two hex digits"],
    ['postgres://qu%ire:sekrit@db:5432/quire', "DATABASE_URL's user holds a % not followed by two hex digits"],
  ];
  for (const [bad, message] of refusals) {
    expect(() => loadConfig({ DATABASE_URL: bad })).toThrow(message);
    expect(() => loadConfig({ DATABASE_URL: bad })).not.toThrow(/sek/);
  }
});

test('SCHEDULED_RUN_TIMEOUT_MINUTES is six hours by default, 1 to 525,600, and never shorter than SCRIPT_TIMEOUT_SECONDS', () => {
  expect(loadConfig({}).scheduledRunTimeoutMinutes).toBe(360);
  expect(loadConfig({ SCHEDULED_RUN_TIMEOUT_MINUTES: '1' }).scheduledRunTimeoutMinutes).toBe(1);
  expect(loadConfig({ SCHEDULED_RUN_TIMEOUT_MINUTES: '525600' }).scheduledRunTimeoutMinutes).toBe(525_600);
  expect(() => loadConfig({ SCHEDULED_RUN_TIMEOUT_MINUTES: '0' })).toThrow('SCHEDULED_RUN_TIMEOUT_MINUTES must be between 1 and 525600, got 0');
  expect(() => loadConfig({ SCHEDULED_RUN_TIMEOUT_MINUTES: '6h' })).toThrow("SCHEDULED_RUN_TIMEOUT_MINUTES must be a whole number, got '6h'");
  expect(loadConfig({ SCHEDULED_RUN_TIMEOUT_MINUTES: '2', SCRIPT_TIMEOUT_SECONDS: '120' }).scheduledRunTimeoutMinutes).toBe(2);
  expect(() => loadConfig({ SCHEDULED_RUN_TIMEOUT_MINUTES: '2', SCRIPT_TIMEOUT_SECONDS: '121' })).toThrow(
    "SCHEDULED_RUN_TIMEOUT_MINUTES must be at least SCRIPT_TIMEOUT_SECONDS (121 s), how long a scheduled run waits for the script server's answer, got 2",
  );
});

test('FILE_STORE is disk by default, with FILES_DIR under DATA_DIR, made absolute', () => {
  expect(loadConfig({})).toMatchObject({ fileStore: 'disk', filesDir: path.resolve('data', 'files'), s3: undefined });
  expect(loadConfig({ DATA_DIR: '/srv/quire' }).filesDir).toBe('/srv/quire/files');
  expect(loadConfig({ DATA_DIR: '/srv/quire', FILES_DIR: 'blobs' }).filesDir).toBe(path.resolve('blobs'));
  expect(loadConfig({ FILES_DIR: '/mnt/files/' }).filesDir).toBe('/mnt/files');
  expect(() => loadConfig({ FILE_STORE: 'ftp' })).toThrow("FILE_STORE must be one of disk, s3, got 'ftp'");
  // The S3 settings are read only for the S3 store.
  expect(loadConfig({ S3_ENDPOINT: 'not a url', S3_ACCESS_KEY_ID: 'only-one' }).s3).toBeUndefined();
});

test('FILE_STORE=s3 needs S3_BUCKET; region, endpoint and path style have their defaults', () => {
  expect(() => loadConfig({ FILE_STORE: 's3' })).toThrow('S3_BUCKET must be set when FILE_STORE is s3');
  expect(() => loadConfig({ FILE_STORE: 's3', S3_BUCKET: 'files/docs' })).toThrow("S3_BUCKET must be a bucket name (letters, digits, '.', '-', '_'), got 'files/docs'");
  expect(loadConfig({ FILE_STORE: 's3', S3_BUCKET: 'quire-files' }).s3).toEqual({
    bucket: 'quire-files',
    region: 'us-east-1',
    endpoint: undefined,
    accessKeyId: undefined,
    secretAccessKey: undefined,
    forcePathStyle: false,
  });
  // An S3-compatible server: path style unless told otherwise.
  const minio = { FILE_STORE: 's3', S3_BUCKET: 'quire-files', S3_ENDPOINT: 'http://127.0.0.1:9000/', S3_REGION: 'eu-west-3' };
  expect(loadConfig(minio).s3).toMatchObject({ endpoint: 'http://127.0.0.1:9000', region: 'eu-west-3', forcePathStyle: true });
  expect(loadConfig({ ...minio, S3_FORCE_PATH_STYLE: 'false' }).s3!.forcePathStyle).toBe(false);
  expect(loadConfig({ FILE_STORE: 's3', S3_BUCKET: 'b', S3_FORCE_PATH_STYLE: '1' }).s3!.forcePathStyle).toBe(true);
  expect(() => loadConfig({ ...minio, S3_FORCE_PATH_STYLE: 'sometimes' })).toThrow("S3_FORCE_PATH_STYLE must be true or false, got 'sometimes'");
  expect(() => loadConfig({ ...minio, S3_ENDPOINT: 'ftp://files.example.com' })).toThrow('S3_ENDPOINT must start with http:// or https://');
  expect(() => loadConfig({ ...minio, S3_ENDPOINT: 'files.example.com' })).toThrow('S3_ENDPOINT must');
  expect(() => loadConfig({ ...minio, S3_REGION: 'eu west' })).toThrow("S3_REGION must be a region name such as us-east-1, got 'eu west'");
});

test('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY come together or not at all, and no message repeats them', () => {
  const s3 = { FILE_STORE: 's3', S3_BUCKET: 'quire-files' };
  expect(loadConfig({ ...s3, S3_ACCESS_KEY_ID: 'AKIAEXAMPLE', S3_SECRET_ACCESS_KEY: 'secret-value' }).s3).toMatchObject({ accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret-value' });
  for (const half of [{ S3_ACCESS_KEY_ID: 'AKIAEXAMPLE' }, { S3_SECRET_ACCESS_KEY: 'secret-value' }]) {
    let message = '';
    try {
      loadConfig({ ...s3, ...half });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together, or neither (the SDK's default credentials)");
    expect(message).not.toContain('secret-value');
    expect(message).not.toContain('AKIAEXAMPLE');
  }
});

test('FILE_MAX_BYTES: 1 GiB by default, at most what GraphQL\'s Int can carry', () => {
  expect(loadConfig({}).fileMaxBytes).toBe(1024 * 1024 * 1024);
  expect(loadConfig({ FILE_MAX_BYTES: '2147483647' }).fileMaxBytes).toBe(2 ** 31 - 1);
  expect(() => loadConfig({ FILE_MAX_BYTES: '2147483648' })).toThrow(/FILE_MAX_BYTES/);
});

test('REQUEST_TIMEOUT_SECONDS: an hour by default, between 1 second and 6 hours', () => {
  expect(loadConfig({}).requestTimeoutSeconds).toBe(3600);
  expect(loadConfig({ REQUEST_TIMEOUT_SECONDS: '21600' }).requestTimeoutSeconds).toBe(21600);
  expect(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: '0' })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
  expect(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: '21601' })).toThrow(/REQUEST_TIMEOUT_SECONDS/);
});

test('BODY_MEMORY_BYTES is 256 MiB by default, never less than the largest body held whole, and a smaller one refuses the start', () => {
  expect(loadConfig({}).bodyMemoryBytes).toBe(256 * 1024 * 1024);
  expect(loadConfig({ BODY_MEMORY_BYTES: '40000000' }).bodyMemoryBytes).toBe(40_000_000);
  // Unset, it grows with the limits rather than refusing them.
  expect(loadConfig({ MAX_BODY_BYTES: String(300 * 1024 * 1024) }).bodyMemoryBytes).toBe(325 * 1024 * 1024);
  expect(loadConfig({ MAX_BODY_BYTES: '65536', EMAIL_MAX_ATTACHMENT_BYTES: '0', BODY_MEMORY_BYTES: '65536' }).bodyMemoryBytes).toBe(65536);
  let refusal: unknown;
  try {
    loadConfig({ MAX_BODY_BYTES: '65536', EMAIL_MAX_ATTACHMENT_BYTES: '65536', BODY_MEMORY_BYTES: '131071' });
  } catch (e) {
    refusal = e;
  }
  expect(startFailure(refusal)).toEqual({
    text: 'Configuration error: BODY_MEMORY_BYTES must be at least MAX_BODY_BYTES + EMAIL_MAX_ATTACHMENT_BYTES (131072), the largest request body held in memory whole, got 131071',
    exitCode: 2,
  });
  expect(() => loadConfig({ BODY_MEMORY_BYTES: 'a lot' })).toThrow("BODY_MEMORY_BYTES must be a whole number, got 'a lot'");
  expect(() => loadConfig({ BODY_MEMORY_BYTES: String(65 * 1024 ** 3) })).toThrow(/BODY_MEMORY_BYTES must be between 1024 and 68719476736/);
});

test("BODY_MEMORY_TENANT_BYTES is a quarter of BODY_MEMORY_BYTES by default, never less than the largest body held whole nor more than the budget", () => {
  expect(loadConfig({}).bodyMemoryTenantBytes).toBe(64 * 1024 * 1024);
  expect(loadConfig({ BODY_MEMORY_BYTES: '400000000' }).bodyMemoryTenantBytes).toBe(100_000_000);
  // Unset, never below the largest body held whole (10 MiB + 25 MiB of attachments).
  expect(loadConfig({ BODY_MEMORY_BYTES: String(40 * 1024 * 1024) }).bodyMemoryTenantBytes).toBe(35 * 1024 * 1024);
  expect(loadConfig({ BODY_MEMORY_TENANT_BYTES: String(256 * 1024 * 1024) }).bodyMemoryTenantBytes).toBe(256 * 1024 * 1024);
  expect(() => loadConfig({ BODY_MEMORY_TENANT_BYTES: String(35 * 1024 * 1024 - 1) })).toThrow(
    'BODY_MEMORY_TENANT_BYTES must be at least MAX_BODY_BYTES + EMAIL_MAX_ATTACHMENT_BYTES (36700160), the largest request body held in memory whole, got 36700159',
  );
  expect(() => loadConfig({ BODY_MEMORY_TENANT_BYTES: String(256 * 1024 * 1024 + 1) })).toThrow(
    "BODY_MEMORY_TENANT_BYTES must be at most BODY_MEMORY_BYTES (268435456), of which it is one tenant's part, got 268435457",
  );
  expect(() => loadConfig({ BODY_MEMORY_TENANT_BYTES: 'half' })).toThrow("BODY_MEMORY_TENANT_BYTES must be a whole number, got 'half'");
});

test('a body read whole has BODY_GRACE_SECONDS (20), then must keep up BODY_MIN_BYTES_PER_SECOND (500)', () => {
  expect(loadConfig({})).toMatchObject({ bodyGraceSeconds: 20, bodyMinBytesPerSecond: 500 });
  expect(loadConfig({ BODY_GRACE_SECONDS: '3600', BODY_MIN_BYTES_PER_SECOND: '1' })).toMatchObject({ bodyGraceSeconds: 3600, bodyMinBytesPerSecond: 1 });
  expect(() => loadConfig({ BODY_GRACE_SECONDS: '0' })).toThrow('BODY_GRACE_SECONDS must be between 1 and 3600, got 0');
  expect(() => loadConfig({ BODY_GRACE_SECONDS: '3601' })).toThrow('BODY_GRACE_SECONDS must be between 1 and 3600, got 3601');
  expect(() => loadConfig({ BODY_MIN_BYTES_PER_SECOND: '0' })).toThrow('BODY_MIN_BYTES_PER_SECOND must be between 1 and 1073741824, got 0');
  expect(() => loadConfig({ BODY_MIN_BYTES_PER_SECOND: '1.5' })).toThrow("BODY_MIN_BYTES_PER_SECOND must be a whole number, got '1.5'");
});

test('MAX_CONNECTIONS is half the open files left past 256 and both pools (64-8192; 4096 when unknown); MAX_CONNECTIONS_PER_ADDRESS 256, 0 for none', () => {
  expect(loadConfig({}, { openFiles: 1024 })).toMatchObject({ maxConnections: (1024 - 256 - 20) / 2, maxConnectionsPerAddress: 256 });
  expect(loadConfig({ DB_POOL_SIZE: '50' }, { openFiles: 1024 }).maxConnections).toBe((1024 - 256 - 100) / 2);
  expect(loadConfig({}, { openFiles: 1_048_576 }).maxConnections).toBe(8192);
  expect(loadConfig({}, { openFiles: 256 }).maxConnections).toBe(64);
  expect(loadConfig({}, { openFiles: undefined }).maxConnections).toBe(4096);
  expect(loadConfig({ MAX_CONNECTIONS: '20000', MAX_CONNECTIONS_PER_ADDRESS: '0' }, { openFiles: 1024 })).toMatchObject({ maxConnections: 20000, maxConnectionsPerAddress: 0 });
  expect(() => loadConfig({ MAX_CONNECTIONS: '0' })).toThrow(/MAX_CONNECTIONS must be between 1 and 1000000, got 0/);
  expect(() => loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: 'many' })).toThrow(/MAX_CONNECTIONS_PER_ADDRESS must be a whole number/);
  // Unset, the limit is the one this process runs with, which a child shell inherits.
  const shell = Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }));
  expect(loadConfig({}).maxConnections).toBe(loadConfig({}, { openFiles: Number.isFinite(shell) ? shell : undefined }).maxConnections);
});

test('HEALTH_PORT: unset for none, 0-65535 (0 picks a free one), never PORT\'s own', () => {
  expect(loadConfig({}).healthPort).toBeUndefined();
  expect(loadConfig({ HEALTH_PORT: '' }).healthPort).toBeUndefined();
  expect(loadConfig({ HEALTH_PORT: '9090' }).healthPort).toBe(9090);
  expect(loadConfig({ PORT: '0', HEALTH_PORT: '0' }).healthPort).toBe(0);
  expect(() => loadConfig({ HEALTH_PORT: '8080' })).toThrow('HEALTH_PORT must differ from PORT, got 8080 for both');
  expect(() => loadConfig({ PORT: '9000', HEALTH_PORT: '9000' })).toThrow('HEALTH_PORT must differ from PORT, got 9000 for both');
  expect(() => loadConfig({ HEALTH_PORT: '70000' })).toThrow('HEALTH_PORT must be between 0 and 65535, got 70000');
  expect(() => loadConfig({ HEALTH_PORT: 'probe' })).toThrow("HEALTH_PORT must be a whole number, got 'probe'");
});
