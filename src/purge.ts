/**
 * Deletes what can never be used again: expired refresh and web tokens, login throttles whose
 * window and lock have both passed, signing keys retired long enough that every token they
 * signed has expired, expired persisted data (which reads already skip), documents deleted
 * more than DELETED_DOCUMENT_DAYS ago (with their revisions, files and values), e-mail sent
 * or failed more than EMAIL_KEEP_DAYS ago (with its attachments), zip files a day old, the stored bytes of every
 * file whose row is gone (the removal queue, filled in the deleting transaction), and what uploads
 * cut short by a crash left in the file store a day ago or more. The server runs
 * it every PURGE_INTERVAL_SECONDS (and reloads its signing keys then, to pick up a rotation);
 * `quire purge` runs it once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from './config.js';
import type { Services } from './context.js';
import { dropRetiredKeys } from './auth/keys.js';
import { fileKey } from './domain/stored-files.js';
import type { FileStore } from './storage/file-store.js';

export interface Purged {
  refreshTokens: number;
  webTokens: number;
  throttles: number;
  signingKeys: number;
  persistedData: number;
  deletedDocuments: number;
  emails: number;
  documentZips: number;
  files: number;
  abandonedUploads: number;
}

/** A put's temporary file this old belongs to no request any longer (a request arrives within REQUEST_TIMEOUT_SECONDS, at most 6 hours). */
const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

/** Queued removals taken per transaction (S3 deletes up to 1000 keys in one call). */
const REMOVALS_AT_ONCE = 1000;

/**
 * Deletes the stored bytes of files whose rows are gone, from the removal queue: a batch at a
 * time, its queue rows locked (two purges at once take different ones), their removal committed
 * only once the bytes are gone. Returns how many files' bytes went.
 */
export async function removeDeletedFiles(em: EntityManager, files: FileStore): Promise<number> {
  let removed = 0;
  for (;;) {
    const n = await em.transactional(async (tx) => {
      const c = tx.getConnection();
      const trx = tx.getTransactionContext();
      // Taken off the queue first: when the bytes cannot be deleted, the rollback puts them back.
      const rows = await c.execute<{ tenant_id: string; file_id: string }[]>(
        `delete from file_removal where ctid in (select ctid from file_removal order by queued_at limit ? for update skip locked)
          returning tenant_id, file_id`,
        [REMOVALS_AT_ONCE],
        'all',
        trx,
      );
      if (rows.length > 0) await files.delete(rows.map((r) => fileKey(r.tenant_id, r.file_id)));
      return rows.length;
    });
    removed += n;
    if (n < REMOVALS_AT_ONCE) return removed;
  }
}

/**
 * How long a retired key must still verify: a process signs with it until it reloads its keys
 * (at its next purge, at most PURGE_INTERVAL_SECONDS after the rotation), and each token it
 * signs lives at most ACCESS_TOKEN_TTL (a renewal is a new token with the current key).
 */
export const keyRetentionSeconds = (config: Pick<Config, 'accessTokenTtlSeconds' | 'purgeIntervalSeconds'>) =>
  config.accessTokenTtlSeconds + config.purgeIntervalSeconds;

/** Service-wide, across tenants: these rows belong to no request's tenant. */
export async function purgeExpired(
  em: EntityManager,
  config: Pick<Config, 'accessTokenTtlSeconds' | 'purgeIntervalSeconds' | 'loginLockSeconds' | 'deletedDocumentDays' | 'emailKeepDays'>,
  files: FileStore,
): Promise<Purged> {
  const c = em.getConnection();
  const count = async (q: string, values: unknown[] = []) => (await c.execute<unknown[]>(`${q} returning 1`, values)).length;
  return {
    refreshTokens: await count('delete from refresh_token where expires_at < now()'),
    webTokens: await count('delete from web_token where expires_at < now()'),
    throttles: await count(
      `delete from login_throttle
        where window_start < now() - make_interval(secs => ?) and (locked_until is null or locked_until < now())`,
      [config.loginLockSeconds],
    ),
    signingKeys: await dropRetiredKeys(em, keyRetentionSeconds(config)),
    persistedData: await count('delete from persisted_data where expires_at < now()'),
    // archive 2: deleted (src/domain/documents.ts); the database's cascades take the rest.
    deletedDocuments: await count('delete from document where archive = 2 and modified_at < now() - make_interval(days => ?)', [config.deletedDocumentDays]),
    // Queued messages stay whatever their age; sent (1) and failed (2) ones are the queue's log, kept from when they finished.
    emails: await count('delete from email_message where status <> 0 and finished_at < now() - make_interval(days => ?)', [config.emailKeepDays]),
    // A day after it was made (src/domain/document-zips.ts); its row queues its bytes.
    documentZips: await count('delete from document_zip where expires_at < now()'),
    // Last: the documents purged above queued their files.
    files: await removeDeletedFiles(em, files),
    abandonedUploads: await files.sweep(ABANDONED_AFTER_MS),
  };
}

export interface PurgeJob {
  stop(): void;
}

/** The server's periodic purge: first soon after start, then every interval; its timer never keeps the process alive. */
export function startPurgeJob(services: Services, ran?: (p: Purged) => void): PurgeJob {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    try {
      const purged = await purgeExpired(services.orm.em.fork(), services.config, services.files);
      await services.keys.reload(true);
      services.log.debug({ purged }, 'purged expired tokens, throttles and persisted data');
      ran?.(purged);
    } catch (err) {
      services.log.warn({ err }, 'purge failed; trying again at the next interval');
    }
    if (!stopped) timer = setTimeout(tick, services.config.purgeIntervalSeconds * 1000).unref();
  };
  timer = setTimeout(tick, 0).unref();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
