/**
 * BODY_MEMORY_BYTES: the bytes of request bodies the whole server holds in memory at once. Each
 * body read whole (REST JSON, forms and multipart text parts, e-mail attachments, /graphql) takes
 * its Content-Length before it is read, or, when it declares none, each chunk as it arrives; a
 * request that would go over gets a 503 with Retry-After before anything runs. What a request took
 * is given back when its answer is ready or its connection closes (`release`, from
 * src/plugins/use-body-limit.ts), whether it succeeded, failed or its client went away; what a
 * request given back still reads is not counted. Per-request limits (MAX_BODY_BYTES) stay as
 * they are: this bounds how many such bodies may be held together.
 *
 * One tenant's requests hold at most BODY_MEMORY_TENANT_BYTES of it (`tenantBytes`), so that no
 * single tenant's bodies, held open on purpose or not, can fill it: past it, its own requests get
 * the 503 (with the default quarter, four tenants together still can). A request's tenant is the
 * one of its verified token (its sender, src/request-sender.ts, recorded by src/context.ts), which
 * is known before a byte of its body is read; a body read without one (none should be) shares one
 * tenant's part with every other such body. And a body read whole
 * must keep a least pace (`pace`, src/body-pace.ts), or its reading ends with a 408 and what it
 * took comes back.
 *
 * The token endpoint's bodies, which anyone may send, take from a share of their own beside it
 * (`anonymous`): an eighth of BODY_MEMORY_BYTES, so anonymous senders never fill the budget of
 * signed-in callers, and are bounded all the same. That share takes each chunk as it arrives,
 * whatever length was declared (`byChunk`): by declaring lengths and sending nothing, anyone
 * could otherwise hold it all and refuse every login. Its bodies have TOKEN_READ_SECONDS to arrive.
 */
import { RETRY_AFTER_SECONDS } from './db/unavailable.js';
import { AppError } from './errors.js';
import type { Pace } from './body-pace.js';
import { senderOfRequest } from './request-sender.js';
import { requestSlot } from './request-slot.js';

/** The fraction of BODY_MEMORY_BYTES the token endpoint's bodies may hold at once, beside it. */
export const ANONYMOUS_SHARE = 1 / 8;

/**
 * How long a token request's body may take to arrive, from when it is first read: the pace of the
 * token endpoint's share, with no lead for what arrived. Its parameters are sent at once by every
 * client; a body stalled past this is a 408 and its connection closed
 * (src/plugins/use-connection-close.ts), so that what it held of the share comes back well before
 * REQUEST_TIMEOUT_SECONDS.
 */
export const TOKEN_READ_SECONDS = 10;

/** Why a body was refused: the labels of `request_body_refusals_total` (src/metrics.ts). */
export type BodyRefusal = 'budget_full' | 'tenant_share_full' | 'token_share_full' | 'too_slow' | 'token_too_slow';

/** Bodies refused since the start, by why. */
export class BodyRefusals {
  private readonly counts = new Map<BodyRefusal, number>();

  /** Counts a refusal, and gives back `error`, to be thrown. */
  count<E>(reason: BodyRefusal, error: E): E {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
    return error;
  }

  entries(): IterableIterator<[BodyRefusal, number]> {
    return this.counts.entries();
  }
}

/** Bytes held by requests, each request's counted apart so that its answer gives them back. */
export class BodyShare {
  private used = 0;
  private readonly held = requestSlot<number>('bytesHeld');
  /**
   * Requests given back: what one still reads after its connection closed or its answer was made
   * (a reading abandoned, which ends with its connection) is not counted, so never held for ever.
   */
  private readonly released = requestSlot<true>('bodyReleased');

  constructor(
    readonly bytes: number,
    private readonly full: () => AppError,
    /** Whether a body is taken as its chunks arrive even when it declares its length (`takeBody`, src/rest/body.ts). */
    readonly byChunk = false,
    /** The least pace of a body taken from this share, if it has one. */
    readonly pace?: Pace,
  ) {}

  /** Bytes taken by requests whose answer is not ready yet. */
  get inUse(): number {
    return this.used;
  }

  /** Whether `request` was given back. */
  protected isReleased(request: Request): boolean {
    return this.released.get(request) === true;
  }

  /** Takes `n` more bytes for `request` (none once it is given back), or throws the 503 when fewer are left (then nothing is taken). */
  take(request: Request, n: number): void {
    if (this.isReleased(request)) return;
    if (this.used + n > this.bytes) throw this.full();
    this.used += n;
    this.held.set(request, (this.held.get(request) ?? 0) + n);
  }

  /** Gives back everything `request` took (the bytes); once (again is nothing), and it is counted no more. */
  release(request: Request): number {
    this.released.set(request, true);
    const n = this.held.get(request);
    if (n === undefined) return 0;
    this.held.set(request, undefined);
    this.used -= n;
    return n;
  }
}

/** How the signed-in callers' budget is sized and paced (src/config.ts). */
export interface BudgetSettings {
  /** BODY_MEMORY_BYTES. */
  bytes: number;
  /** BODY_MEMORY_TENANT_BYTES: what one tenant's requests may hold of it at once. */
  tenantBytes: number;
  /** The token endpoint's body limit: its share is never less than one such body. */
  tokenBodyBytes: number;
  graceSeconds: number;
  minBytesPerSecond: number;
}

/**
 * The tenant of a body read without a verified token: none with bytes is (every body is read after
 * `authenticate`, src/context.ts; an empty one takes nothing); were one, all such bodies together
 * would hold at most one tenant's part.
 */
const NO_TENANT = '';

/** The signed-in callers' budget (BODY_MEMORY_BYTES), parted by tenant, with the token endpoint's share beside it. */
export class BodyBudget extends BodyShare {
  /** The token endpoint's: ANONYMOUS_SHARE of the budget, and never less than one body of `tokenBodyBytes` (its limit), which would be refused for ever. */
  readonly anonymous: BodyShare;
  /** What one tenant's requests may hold at once. */
  readonly tenantBytes: number;
  readonly refusals: BodyRefusals;
  /** Bytes held, by tenant: only tenants holding some. */
  private readonly byTenant = new Map<string, number>();

  constructor({ bytes, tenantBytes, tokenBodyBytes, graceSeconds, minBytesPerSecond }: BudgetSettings) {
    const refusals = new BodyRefusals();
    const tooSlow = () => refusals.count('too_slow', slow(graceSeconds, minBytesPerSecond));
    super(bytes, () => refusals.count('budget_full', full()), false, { graceSeconds, minBytesPerSecond, tooSlow });
    this.refusals = refusals;
    this.tenantBytes = tenantBytes;
    this.anonymous = new BodyShare(Math.max(Math.floor(bytes * ANONYMOUS_SHARE), tokenBodyBytes), () => refusals.count('token_share_full', tokenFull()), true, {
      graceSeconds: TOKEN_READ_SECONDS,
      // What arrived gives no lead: bytes / Infinity is 0.
      minBytesPerSecond: Infinity,
      tooSlow: () => refusals.count('token_too_slow', tokenSlow()),
    });
  }

  /** Bytes held now by `tenantId`'s requests. */
  heldBy(tenantId: string): number {
    return this.byTenant.get(tenantId) ?? 0;
  }

  /** Takes as the budget does, and refuses (503) a request whose tenant's requests would hold more than `tenantBytes`. */
  override take(request: Request, n: number): void {
    // An empty body (Content-Length: 0) holds nothing, and leaves no tenant entry behind.
    if (n === 0 || this.isReleased(request)) return;
    const tenant = senderOfRequest(request)?.tenantId ?? NO_TENANT;
    const theirs = this.heldBy(tenant);
    if (theirs + n > this.tenantBytes) throw this.refusals.count('tenant_share_full', tenantFull());
    super.take(request, n);
    this.byTenant.set(tenant, theirs + n);
  }

  /** Gives back everything `request` took, of either share and of its tenant's part. */
  override release(request: Request): number {
    this.anonymous.release(request);
    const n = super.release(request);
    if (n > 0) {
      const tenant = senderOfRequest(request)?.tenantId ?? NO_TENANT;
      const left = this.heldBy(tenant) - n;
      if (left > 0) this.byTenant.set(tenant, left);
      else this.byTenant.delete(tenant);
    }
    return n;
  }
}

const full = () =>
  new AppError(
    'UNAVAILABLE',
    `The server is receiving too many request bodies at once to take this one. Try again in ${RETRY_AFTER_SECONDS} seconds.`,
    'The request bodies being received fill BODY_MEMORY_BYTES, the memory the server holds for them at once; nothing of this request was done. If this happens often, the operator can raise BODY_MEMORY_BYTES.',
  );

const tenantFull = () =>
  new AppError(
    'UNAVAILABLE',
    `The server is receiving too many request bodies for this customer database at once to take this one. Try again in ${RETRY_AFTER_SECONDS} seconds.`,
    "The request bodies this customer database's callers are sending fill BODY_MEMORY_TENANT_BYTES, the memory one customer database's requests may hold at once; nothing of this request was done. Send fewer bodies at once, or send each whole without pausing.",
  );

const tokenFull = () =>
  new AppError(
    'UNAVAILABLE',
    `The server is receiving too many token requests at once to take this one. Try again in ${RETRY_AFTER_SECONDS} seconds.`,
    'The token request bodies being received fill their share of the memory for request bodies (an eighth of BODY_MEMORY_BYTES, beside it); nothing of this request was done.',
  );

const tokenSlow = () => new AppError('REQUEST_TIMEOUT', `The request body did not arrive within ${TOKEN_READ_SECONDS} seconds: send the token request's parameters at once.`);

const slow = (graceSeconds: number, minBytesPerSecond: number) =>
  new AppError(
    'REQUEST_TIMEOUT',
    'The request body arrived too slowly; nothing of this request was done. Send the body whole, without pausing.',
    `A request body must arrive within BODY_GRACE_SECONDS (${graceSeconds}) seconds, and one second more for every BODY_MIN_BYTES_PER_SECOND (${minBytesPerSecond}) bytes that arrived; this one fell behind, and its connection is closed.`,
  );
