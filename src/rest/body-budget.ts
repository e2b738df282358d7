/**
 * BODY_MEMORY_BYTES: the bytes of request bodies the whole server holds in memory at once. Each
 * body read whole (REST JSON, forms and multipart text parts, e-mail attachments, /graphql) takes
 * its Content-Length before it is read, or, when it declares none, each chunk as it arrives; a
 * request that would go over gets a 503 with Retry-After before anything runs. What a request took
 * is given back when its answer is ready (`release`, from src/plugins/use-body-limit.ts), whether
 * it succeeded, failed or its client went away. Per-request limits (MAX_BODY_BYTES) stay as they
 * are: this bounds how many such bodies may be held together.
 */
import { RETRY_AFTER_SECONDS } from '../db/unavailable.js';
import { AppError } from '../errors.js';

export class BodyBudget {
  private used = 0;
  private readonly held = new WeakMap<Request, number>();

  constructor(readonly bytes: number) {}

  /** Bytes taken by requests whose answer is not ready yet. */
  get inUse(): number {
    return this.used;
  }

  /** Takes `n` more bytes for `request`, or throws the 503 when fewer are left (then nothing is taken). */
  take(request: Request, n: number): void {
    if (this.used + n > this.bytes) throw full();
    this.used += n;
    this.held.set(request, (this.held.get(request) ?? 0) + n);
  }

  /** Gives back everything `request` took. */
  release(request: Request): void {
    const n = this.held.get(request);
    if (n === undefined) return;
    this.held.delete(request);
    this.used -= n;
  }
}

const full = () =>
  new AppError(
    'UNAVAILABLE',
    `The server is receiving too many request bodies at once to take this one. Try again in ${RETRY_AFTER_SECONDS} seconds.`,
    'The request bodies being received fill BODY_MEMORY_BYTES, the memory the server holds for them at once; nothing of this request was done. If this happens often, the operator can raise BODY_MEMORY_BYTES.',
  );
