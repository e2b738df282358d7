/**
 * Documents' file bytes in the file store (src/storage/): each file's under `<tenant>/<file id>`,
 * a key never reused, and no row keeps bytes of its own once the server has started. Rows that
 * go take their bytes with them through the removal queue
 * (migrations/Migration20261126000000_file_store.ts, drained by the purge).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContext, Services } from '../context.js';
import { copyRows, mapped } from '../db/tenant-writes.js';
import { newId } from '../ids.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql } from '../sql.js';
import type { FileStore } from '../storage/file-store.js';

export const fileKey = (tenantId: string, fileId: string) => `${tenantId}/${fileId}`;

/** Store copies made at once by one request (a folder's copy may hold thousands). */
const COPIES_AT_ONCE = 8;

/**
 * Deletes bytes that no row will name (an upload or copy that was refused or failed). A failed
 * deletion leaves unreachable bytes and a warning, never an error of its own.
 */
export async function discardFiles(services: Pick<Services, 'files' | 'log'>, keys: string[], requestId: string): Promise<void> {
  if (keys.length === 0) return;
  await services.files.delete(keys).catch((err: unknown) => services.log.warn({ err, requestId }, 'could not delete the bytes of files that were not kept'));
}

/** Runs `fn`, which stores bytes under `keys`; when it fails, those bytes are discarded (the rows that would have named them are rolled back). */
export async function storingFiles<T>(ctx: AppContext, keys: string[], fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    await discardFiles(ctx.services, keys, ctx.requestId);
    throw err;
  }
}

/** The files of revisions `from` copied onto revisions `to` (the same order): their rows, and their bytes under new keys. */
export async function copyFiles(ctx: AppContext, from: string[], to: string[]): Promise<void> {
  const files = await selectRows<{ fileId: string }>(ctx.reader, resource('DocumentFile'), { where: [sql`t.revision_id = any(${from}::uuid[])`] });
  if (files.length === 0) return;
  const ids = files.map((f) => f.fileId);
  const copies = ids.map(() => newId());
  const keys = (fileIds: string[]) => fileIds.map((id) => fileKey(ctx.tenantId, id));
  const [sources, targets] = [keys(ids), keys(copies)];
  await storingFiles(ctx, targets, async () => {
    for (let i = 0; i < sources.length; i += COPIES_AT_ONCE) {
      await Promise.all(sources.slice(i, i + COPIES_AT_ONCE).map((key, j) => ctx.services.files.copy(key, targets[i + j])));
    }
    await copyRows(
      ctx.reader,
      'document_file',
      ['file_name', 'content_type', 'size', 'sha256', 'created_at'],
      { id: mapped('id', ids, copies), revision_id: mapped('revision_id', from, to), created_by_id: ctx.caller.userId },
      sql`t.id = any(${ids}::uuid[])`,
    );
  });
}

/** Rows moved into the file store per transaction. */
const MOVES_AT_ONCE = 20;

/**
 * Files stored in the database before the file store: their bytes written to it and cleared
 * from their rows, a batch at a time (rows locked, so two processes starting at once share the
 * work). The server runs it at start-up, before it serves; returns how many moved.
 */
export async function moveDatabaseFiles(em: EntityManager, files: FileStore): Promise<number> {
  let moved = 0;
  for (;;) {
    const n = await em.transactional(async (tx) => {
      const c = tx.getConnection();
      const trx = tx.getTransactionContext();
      const rows = await c.execute<{ tenant_id: string; id: string; content: Buffer }[]>(
        'select tenant_id, id, content from document_file where content is not null limit ? for update skip locked',
        [MOVES_AT_ONCE],
        'all',
        trx,
      );
      for (const r of rows) {
        await files.put(fileKey(r.tenant_id, r.id), r.content, Number.MAX_SAFE_INTEGER);
        await c.execute('update document_file set content = null where tenant_id = ? and id = ?', [r.tenant_id, r.id], 'run', trx);
      }
      return rows.length;
    });
    moved += n;
    if (n < MOVES_AT_ONCE) return moved;
  }
}
