/**
 * Document rules (docs/decisions.md, "Documents"): what a new document must hold, and finding a
 * document by any id the clients use for it (its id, its current or an older revision id).
 */
import type { AppContext } from '../context.js';
import { Document, DocumentRevision } from '../entities/document.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { isGuid, newId } from '../ids.js';
import { loadRow } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql } from '../sql.js';
import { maxLength, optionalString, requireGuid, requireString } from './validate.js';

type Input = Record<string, unknown>;
export type DocumentRow = Record<string, unknown> & { id: string; documentId: string };

const DOCUMENT = resource('Document');
export const LIMITS = { name: 256, description: 4000, abstract: 4000, keywords: 4000, changeText: 4000 } as const;
/** `documentState` as the clients send it, kept as `releaseState`. */
const STATES = new Set([0, 1]);

/** The document a client's id names: its own id, its current revision's, or an older revision's; a 404 otherwise. */
export async function documentRow(ctx: AppContext, id: string): Promise<DocumentRow> {
  const key = id.toLowerCase();
  const [row] = await selectRows<DocumentRow>(ctx.reader, DOCUMENT, {
    where: [sql`(t.id = ${key} or t.revision_id = ${key} or t.id = (select r.document_id from document_revision r where r.tenant_id = t.tenant_id and r.id = ${key}))`],
  });
  if (!row) throw notFound(`Document '${id}' was not found.`);
  return row;
}

/** A document by its id (GUID) or, as `relateToDocId` may name it, by its name (a 409 when several share it). */
export async function documentByIdOrName(ctx: AppContext, idOrName: string): Promise<DocumentRow> {
  if (isGuid(idOrName)) return documentRow(ctx, idOrName);
  const rows = await selectRows<DocumentRow>(ctx.reader, DOCUMENT, { where: [sql`lower(t.name) = lower(${idOrName})`], limit: 2 });
  if (rows.length === 0) throw notFound(`Document '${idOrName}' was not found.`);
  if (rows.length > 1) throw conflict(`More than one document is named '${idOrName}': name it by its id.`);
  return rows[0];
}

/** A new document (its first revision, "1") in the folder `input.folderId`; returns its revision id. */
export async function createDocument(ctx: AppContext, input: Input): Promise<string> {
  const folder = await loadRow(ctx, resource('Folder'), requireGuid(input.folderId, 'folderId'));
  const name = requireString(input, 'name').trim();
  if (/[\u0000-\u001f]/.test(name)) throw badRequest("The field 'name' may not contain control characters.");
  const text = (key: keyof typeof LIMITS) => maxLength(optionalString(input, key) ?? '', LIMITS[key], key);
  const state = input.documentState ?? input.releaseState ?? 1;
  if (!STATES.has(state as number)) throw badRequest(`The field 'documentState' must be 1 (released) or 0 (not released), got '${String(state).slice(0, 32)}'.`);
  const changeText = optionalString(input, 'changeText');
  const revisionId = newId();
  const id = newId();
  const by = ctx.caller.userId;
  const common = { revision: '1', name: maxLength(name, LIMITS.name, 'name'), description: text('description'), changeText: changeText === undefined ? null : maxLength(changeText, LIMITS.changeText, 'changeText'), createdById: by };
  ctx.em().create(Document, { ...common, id, folderId: folder.id as string, revisionId, releaseState: state as number, abstract: text('abstract'), keywords: text('keywords'), modifiedById: by });
  // The document first: its revision's foreign key names it (both in the mutation's transaction).
  await ctx.em().flush();
  ctx.em().create(DocumentRevision, { ...common, id: revisionId, documentId: id });
  await ctx.em().flush();
  return revisionId;
}
