/**
 * The per-request context shared by REST and /graphql: the caller (from the bearer JWT), the
 * tenant (from the path for REST, from the token for /graphql), an EntityManager fork with the
 * tenant filter set, and fresh DataLoaders.
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { cachedClaims, verifyAccessToken, type AccessClaims, type JwtSettings } from './auth/jwt.js';
import type { KeyRing } from './auth/keys.js';
import type { Config } from './config.js';
import { TENANT_FILTER } from './db/tenant-filter.js';
import { forbidden, unauthorized } from './errors.js';
import type { Logger } from './log.js';
import { Loaders } from './read/loaders.js';
import { SessionCheck, type Reader } from './read/rows.js';
import type { ReadPool } from './read/read-pool.js';
import type { TenantDirectory, TenantRef } from './tenancy/tenant-directory.js';
import { sessionEnded, whoAmI, type WhoAmI } from './auth/session.js';
import type { FileStore, StoredFile } from './storage/file-store.js';
import type { BodyBudget } from './body-budget.js';
import type { ConnectionLimits } from './connection-limits.js';
import { recordSender } from './request-sender.js';

/** Long-lived parts, built once at start-up. */
export interface Services {
  config: Config;
  orm: MikroORM;
  reads: ReadPool;
  keys: KeyRing;
  jwt: JwtSettings;
  tenants: TenantDirectory;
  log: Logger;
  /** Where documents' file bytes live (FILE_STORE: disk or S3). */
  files: FileStore;
  /** The request bodies held in memory at once (BODY_MEMORY_BYTES). */
  bodies: BodyBudget;
  /** The connections open at once (MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS), once the HTTP server is put under them. */
  connections: ConnectionLimits;
  /**
   * This service's own address, where a script calls it back: PUBLIC_URL, else the interface it
   * listens on (`localhost` for every interface) and its port, once it listens (server.ts). Never a request's Host,
   * which the caller chooses (the script would log in there with its credentials).
   */
  ownUrl: string | undefined;
}

export interface Caller extends AccessClaims {
  token: string;
}

/** A file the REST face streamed into the file store for this request (`POST files`), before the operation ran. */
export interface ReceivedUpload extends StoredFile {
  key: string;
  fileId: string;
  /** As the file part declared them (`type` undefined when it has no Content-Type). */
  name: string;
  type: string | undefined;
}

/** A file part the REST face read whole (an e-mail's attachment), with the name and type it declared (`type` undefined when it has no Content-Type). */
export interface ReceivedFile {
  name: string;
  type: string | undefined;
  bytes: Buffer;
}

export interface AppContext {
  services: Services;
  /** Set on `POST files` only (src/rest/upload.ts): the operation records it rather than bytes in its input. */
  upload?: ReceivedUpload;
  /** Set on `POST emails` with a multipart body only (src/rest/run-route.ts): its file parts, in order, which the operation attaches rather than bytes in its input. */
  attachments?: ReceivedFile[];
  request: Request;
  requestId: string;
  caller: Caller;
  tenantId: string;
  /**
   * A fork with the tenant filter set, made on first call (writes); reads go through `reader`.
   * A method, not a getter: the GraphQL context is copied per request, which would read a getter.
   */
  em(): EntityManager;
  reader: Reader;
  loaders: Loaders;
  /**
   * Whether the caller is a tenant administrator now: asked of the database once per request
   * that needs it, so a promotion or demotion counts from the next request on. Root fields
   * declare who may call them (src/permissions/access.ts). A 401 when the session has ended.
   */
  isAdmin(): Promise<boolean>;
  /** Whether the caller's session is alive (src/auth/session.ts): free once a read has proved it. */
  sessionAlive(): Promise<boolean>;
  /** Forgets that the session was seen alive, so the next check asks again (an upload, once its body, maybe an hour long, is in). */
  recheckSession(): void;
}

export function bearerToken(request: Request): string {
  const header = request.headers.get('authorization');
  if (!header) throw unauthorized(undefined, 'missing');
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw unauthorized("The Authorization header must be 'Bearer <access token>'.", 'missing');
  return m[1];
}

export interface TenantPath {
  customerAlias: string;
  databaseAlias: string;
}

/**
 * The context of a request. Synchronous when the token was verified before and its tenant is
 * known (nearly every request): no promise to wait for on the hot path.
 */
export function buildContext(
  services: Services,
  request: Request,
  requestId: string,
  tenantPath: TenantPath | undefined,
): AppContext | Promise<AppContext> {
  const sender = senderOf(services, request, tenantPath);
  const build = ({ token, claims }: Sender) => contextOf(services, request, requestId, token, claims);
  return sender instanceof Promise ? sender.then(build) : build(sender);
}

/**
 * Refuses a request whose token is missing, invalid or of another tenant (401, 403), for a check
 * before its body is read: such a request then costs the server no body held in memory. One let
 * through reads its body into its token's tenant's part of the budget (src/body-budget.ts).
 */
export function authenticate(services: Services, request: Request, tenantPath: TenantPath | undefined): void | Promise<void> {
  const sender = senderOf(services, request, tenantPath);
  if (sender instanceof Promise) return sender.then(() => undefined);
}

interface Sender {
  token: string;
  claims: AccessClaims;
}

/**
 * The request's verified token and its claims, of the path's tenant when there is one; its claims
 * are recorded as the request's sender (src/request-sender.ts) once verified, of that tenant or not.
 */
function senderOf(services: Services, request: Request, tenantPath: TenantPath | undefined): Sender | Promise<Sender> {
  const token = bearerToken(request);
  const claims = cachedClaims(services.keys, token);
  const own = claims && tenantPath ? services.tenants.cachedById(claims.tenantId) : undefined;
  if (claims && (own || !tenantPath)) return ofTenant(request, tenantPath, own, { token, claims });
  return (async () => {
    const verified = claims ?? (await verifyAccessToken(services.keys, services.jwt, token));
    const tenant = tenantPath ? await services.tenants.byId(verified.tenantId) : undefined;
    return ofTenant(request, tenantPath, tenant, { token, claims: verified });
  })();
}

function ofTenant(request: Request, tenantPath: TenantPath | undefined, own: TenantRef | undefined, sender: Sender): Sender {
  recordSender(request, sender.claims);
  if (tenantPath) {
    const same =
      own &&
      own.customerAlias.toLowerCase() === tenantPath.customerAlias.toLowerCase() &&
      own.databaseAlias.toLowerCase() === tenantPath.databaseAlias.toLowerCase();
    if (!same) throw forbidden('This access token belongs to another customer database.');
  }
  return sender;
}

function contextOf(services: Services, request: Request, requestId: string, token: string, claims: AccessClaims): AppContext {
  let em: EntityManager | undefined;
  const fork = () => {
    if (!em) {
      em = services.orm.em.fork({ useContext: false });
      em.setFilterParams(TENANT_FILTER, { id: claims.tenantId });
    }
    return em;
  };
  const session = new SessionCheck(claims.userId, claims.sessionEpoch, claims.clientId);
  const reader: Reader = { pool: services.reads, tenantId: claims.tenantId, session };
  const caller: Caller = { ...claims, token };
  let asked: Promise<WhoAmI> | undefined;
  const who = () =>
    (asked ??= whoAmI(reader, session).then((w) => {
      if (w.live) session.confirmed = true;
      return w;
    }));
  return {
    services,
    request,
    requestId,
    caller,
    tenantId: claims.tenantId,
    em: fork,
    reader,
    loaders: new Loaders(reader),
    isAdmin: () =>
      who().then((w) => {
        if (!w.live) throw sessionEnded();
        return w.admin;
      }),
    sessionAlive: () => (session.confirmed ? Promise.resolve(true) : who().then((w) => w.live)),
    recheckSession: () => {
      session.confirmed = false;
      asked = undefined;
    },
  };
}
