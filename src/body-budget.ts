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
 * The token endpoint's bodies, which anyone may send, take from a share of their own beside it
 * (`anonymous`): an eighth of BODY_MEMORY_BYTES, so anonymous senders never fill the budget of
 * signed-in callers, and are bounded all the same. That share takes each chunk as it arrives,
 * whatever length was declared (`byChunk`): by declaring lengths and sending nothing, anyone
 * could otherwise hold it all and refuse every login.
 */
import { RETRY_AFTER_SECONDS } from './db/unavailable.js';
import { AppError } from './errors.js';

/** The fraction of BODY_MEMORY_BYTES the token endpoint's bodies may hold at once, beside it. */
export const ANONYMOUS_SHARE = 1 / 8;

/** Bytes held by requests, each request's counted apart so that its answer gives them back. */
export class BodyShare {
  private used = 0;
  private readonly held = new WeakMap<Request, number>();
  /**
   * Requests given back: what one still reads after its connection closed or its answer was made
   * (a reading abandoned, which ends with its connection) is not counted, so never held for ever.
   */
  private readonly released = new WeakSet<Request>();

  constructor(
    readonly bytes: number,
    private readonly full: () => AppError,
    /** Whether a body is taken as its chunks arrive even when it declares its length (`takeBody`, src/rest/body.ts). */
    readonly byChunk = false,
  ) {}

  /** Bytes taken by requests whose answer is not ready yet. */
  get inUse(): number {
    return this.used;
  }

  /** Takes `n` more bytes for `request` (none once it is given back), or throws the 503 when fewer are left (then nothing is taken). */
  take(request: Request, n: number): void {
    if (this.released.has(request)) return;
    if (this.used + n > this.bytes) throw this.full();
    this.used += n;
    this.held.set(request, (this.held.get(request) ?? 0) + n);
  }

  /** Gives back everything `request` took; once (again is nothing), and it is counted no more. */
  release(request: Request): void {
    this.released.add(request);
    const n = this.held.get(request);
    if (n === undefined) return;
    this.held.delete(request);
    this.used -= n;
  }
}

/** The signed-in callers' budget (BODY_MEMORY_BYTES), with the token endpoint's share beside it. */
export class BodyBudget extends BodyShare {
  /** The token endpoint's: ANONYMOUS_SHARE of the budget, and never less than one body of `tokenBodyBytes` (its limit), which would be refused for ever. */
  readonly anonymous: BodyShare;

  constructor(bytes: number, tokenBodyBytes: number) {
    super(bytes, full);
    this.anonymous = new BodyShare(Math.max(Math.floor(bytes * ANONYMOUS_SHARE), tokenBodyBytes), tokenFull, true);
  }

  /** Gives back everything `request` took, of either share. */
  override release(request: Request): void {
    super.release(request);
    this.anonymous.release(request);
  }
}

const full = () =>
  new AppError(
    'UNAVAILABLE',
    `The server is receiving too many request bodies at once to take this one. Try again in ${RETRY_AFTER_SECONDS} seconds.`,
    'The request bodies being received fill BODY_MEMORY_BYTES, the memory the server holds for them at once; nothing of this request was done. If this happens often, the operator can raise BODY_MEMORY_BYTES.',
  );

const tokenFull = () =>
  new AppError(
    'UNAVAILABLE',
    `The server is receiving too many token requests at once to take this one. Try again in ${RETRY_AFTER_SECONDS} seconds.`,
    'The token request bodies being received fill their share of the memory for request bodies (an eighth of BODY_MEMORY_BYTES, beside it); nothing of this request was done.',
  );
