/**
 * Builds pending zips of documents in the background (docs/decisions.md, "Zip files"). A server
 * claims the oldest pending zip of any tenant with `FOR UPDATE SKIP LOCKED` and a lease that it
 * renews while it streams, so processes on one database never build the same zip at once, and
 * one that dies leaves its lease to run out for another to take the zip again. A source whose
 * bytes the store lacks, or a zip larger than FILE_MAX_BYTES, fails it at once; other errors (the
 * store away or without room among them) are tried again, up to MAX_ATTEMPTS.
 */
import type { Services } from '../context.js';
import { fileKey, discardFiles } from '../domain/stored-files.js';
import { mayPass, writeZip, zipFailureOf, type ZipEntry } from '../domain/document-zips.js';
import { ZIP_STATUS } from '../resources/document-zip.js';
import { withCause } from '../storage/file-store.js';
import { repeat, type Repeating } from './repeat.js';

const LEASE_SECONDS = 120;
/** The lease is renewed this often while a zip streams, well inside the lease. */
const RENEW_MS = 30_000;
/** How often a server looks for zips another process queued or left behind. */
const POLL_MS = 2_000;
const MAX_ATTEMPTS = 3;
/**
 * Seconds before a failed try is tried again, times the tries so far (1, then 2 minutes): the
 * store's outage has a chance to pass. At once, three tries came within a quarter of a second,
 * and a store away for one second failed the zip for good.
 */
const RETRY_SECONDS = 60;
const MAX_TEXT = 1000;

type BuilderServices = Pick<Services, 'orm' | 'log' | 'files'> & { config: Pick<Services['config'], 'fileMaxBytes'> };

interface Claimed {
  tenant_id: string;
  id: string;
  entries: ZipEntry[];
  attempts: number;
}

/** `taken`: another builder took the zip over once this one's lease ran out; what became of it is that builder's. */
export type ZipOutcome = 'ready' | 'retried' | 'failed' | 'gone' | 'stopped' | 'taken';

/**
 * A claimed zip is still this builder's while it is pending with the attempts it was claimed with:
 * every claim counts one more, so another builder's claim (once the lease ran out) changes them.
 */
const HELD = `tenant_id = ? and id = ? and status = ${ZIP_STATUS.pending} and attempts = ?`;

/** Claims the oldest due zip and builds it; undefined when none is due. */
export async function buildNextZip(services: BuilderServices, signal: AbortSignal = new AbortController().signal): Promise<ZipOutcome | undefined> {
  const c = services.orm.em.fork().getConnection();
  const [zip] = await c.execute<Claimed[]>(
    `update document_zip z
        set lease_until = now() + make_interval(secs => ?), attempts = z.attempts + 1
       from (select tenant_id, id from document_zip
              where status = ${ZIP_STATUS.pending} and (lease_until is null or lease_until < now())
              order by created_at, id limit 1 for update skip locked) due
      where z.tenant_id = due.tenant_id and z.id = due.id
      returning z.tenant_id, z.id, z.entries, z.attempts`,
    [LEASE_SECONDS],
  );
  if (!zip) return undefined;
  const key = [zip.tenant_id, zip.id];
  const held = [...key, zip.attempts];
  const log = services.log.child({ zipId: zip.id, tenantId: zip.tenant_id, attempt: zip.attempts });
  if (zip.attempts > MAX_ATTEMPTS) {
    // Its last try ended with its process (a lease run out): not one more.
    await c.execute(`update document_zip set status = ${ZIP_STATUS.failed}, failure = 'unreadable', lease_until = null where tenant_id = ? and id = ?`, key);
    log.error('zip failed: its builder stopped without an answer on every try');
    return 'failed';
  }
  const renew = setInterval(() => {
    c.execute(`update document_zip set lease_until = now() + make_interval(secs => ?) where ${HELD}`, [LEASE_SECONDS, ...held]).catch((err: unknown) =>
      log.warn({ err }, 'could not renew the lease of the zip being built'),
    );
  }, RENEW_MS);
  try {
    const stored = await writeZip(services.files, zip.tenant_id, zip.id, zip.entries, services.config.fileMaxBytes, signal);
    const done = await c.execute<{ id: string }[]>(
      `update document_zip set status = ${ZIP_STATUS.ready}, size = ?, sha256 = ?, lease_until = null, last_error = ''
        where ${HELD} returning id`,
      [stored.size, stored.sha256, ...held],
    );
    if (done.length === 0) return lost(services, c, zip, log);
    log.info({ size: stored.size }, 'zip built');
    return 'ready';
  } catch (err) {
    // Its bytes are discarded only while the zip is still this builder's (a no-op update that keeps the lease).
    if ((await c.execute<{ id: string }[]>(`update document_zip set lease_until = lease_until where ${HELD} returning id`, held)).length === 0) return lost(services, c, zip, log);
    await discardFiles(services, [fileKey(zip.tenant_id, zip.id)], zip.id);
    const error = withCause(err).slice(0, MAX_TEXT);
    if (signal.aborted) {
      // Stopping: the zip goes back to the queue at once, this try not counted.
      await c.execute(`update document_zip set lease_until = null, attempts = attempts - 1 where ${HELD}`, held);
      return 'stopped';
    }
    const failure = zipFailureOf(err);
    if (!mayPass(failure) || zip.attempts >= MAX_ATTEMPTS) {
      await c.execute(`update document_zip set status = ${ZIP_STATUS.failed}, failure = ?, lease_until = null, last_error = ? where ${HELD}`, [failure, error, ...held]);
      log.error({ error }, 'zip failed: not trying again');
      return 'failed';
    }
    await c.execute(`update document_zip set lease_until = now() + make_interval(secs => ?), last_error = ? where ${HELD}`, [RETRY_SECONDS * zip.attempts, error, ...held]);
    log.warn({ error, retryInSeconds: RETRY_SECONDS * zip.attempts }, 'zip not built: trying again');
    return 'retried';
  } finally {
    clearInterval(renew);
  }
}

type Connection = ReturnType<BuilderServices['orm']['em']['getConnection']>;

/**
 * The end of a build whose zip is no longer this builder's. Taken over by another builder (this
 * one's lease ran out): the bytes under its key are that builder's zip, ready or to be written
 * again, and stay. Deleted while it was built (expired, its creator or tenant gone): they go too.
 */
async function lost(services: BuilderServices, c: Connection, zip: Claimed, log: BuilderServices['log']): Promise<'taken' | 'gone'> {
  if ((await c.execute('select 1 from document_zip where tenant_id = ? and id = ?', [zip.tenant_id, zip.id])).length > 0) {
    log.warn("zip taken over by another builder after this one's lease ran out: its outcome is that builder's");
    return 'taken';
  }
  await discardFiles(services, [fileKey(zip.tenant_id, zip.id)], zip.id);
  return 'gone';
}

/** Stopping abandons the zip in flight, which goes back to the queue. */
export type ZipBuilder = Repeating;

/** The server's builder: one zip at a time, every POLL_MS while any is due. Its timer never keeps the process alive. */
export function startZipBuilder(services: BuilderServices): ZipBuilder {
  return repeat(
    POLL_MS,
    async (signal) => {
      while (!signal.aborted && (await buildNextZip(services, signal)) !== undefined);
    },
    (err) => services.log.warn({ err }, 'zip builder failed; trying again shortly'),
  );
}
