/**
 * Document rules (docs/decisions.md, "Documents"): what a new document must hold, and finding a
 * document by any id the clients use for it (its id, its current or an older revision id).
 */
import type { AppContext } from '../context.js';
import { sendAlerts } from './alert-mail.js';
import { copyRows, deleteRows, insertRows, mapped, updateRows } from '../db/tenant-writes.js';
import { Document, DocumentRevision } from '../entities/document.js';
import { badRequest, conflict, forbidden, notFound, requireAgreement } from '../errors.js';
import { isGuid, newId, requireGuid } from '../ids.js';
import { heldRow } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { namedBy } from '../resources/document-revision.js';
import { listedOf, selectRows } from '../read/rows.js';
import { isoInstant } from '../scalars.js';
import { sql } from '../sql.js';
import { copyFiles } from './stored-files.js';
import { maxLength, nameText, oneLine, optionalString, requireString } from './validate.js';

type Input = Record<string, unknown>;
type Row = Record<string, unknown>;
export type DocumentRow = Record<string, unknown> & { id: string; documentId: string };

const DOCUMENT = resource('Document');
const REVISION = resource('DocumentRevision');
export const LIMITS = { name: 256, description: 4000, abstract: 4000, keywords: 4000, changeText: 4000, revision: 64 } as const;

/**
 * A new revision's change text: `changeText`, or `changeReason` as the clients' uploads name it.
 * Both sent must say the same: one was dropped without a word.
 */
export function changeTextOf(input: Input): string | undefined {
  const sent = (['changeText', 'changeReason'] as const).flatMap((key) => {
    const v = optionalString(input, key);
    return v === undefined ? [] : [{ sent: v, as: key, kept: v }];
  });
  if (sent.length > 1) requireAgreement("change text ('changeText', 'changeReason')", sent);
  return sent[0] === undefined ? undefined : maxLength(sent[0].kept, LIMITS.changeText, sent[0].as);
}

/** A new revision's label as sent (`revision`): trimmed, one line of at most 64 characters; undefined when blank or not sent. */
export function revisionLabelOf(input: Input): string | undefined {
  const label = optionalString(input, 'revision')?.trim();
  return label ? oneLine(maxLength(label, LIMITS.revision, 'revision'), 'revision') : undefined;
}

/**
 * The document a client's id names: its own id, its current revision's, or an older revision's;
 * a 404 naming `what` the id was to name otherwise. `lock`: its row stays locked to the end of the mutation.
 * `field`: the body's key that sent the id (its 404 names it, AppError), not for an id the path names.
 */
export async function documentRow(ctx: AppContext, id: string, lock = false, what = 'Document', field?: string): Promise<DocumentRow> {
  const key = id.toLowerCase();
  const [row] = await selectRows<DocumentRow>(ctx.reader, DOCUMENT, {
    where: [namedBy(ctx.reader, key)],
    lock,
  });
  if (!row) throw notFound(`${what} '${id}' was not found.`, { field });
  // A lock that waited for another transaction's change of the row gets the row as changed but its
  // joined rows as they were before: a check-out committed meanwhile reads with no holder's name.
  // Read once more (the row is ours now) in that one case.
  if (lock && holderOf(row) && !row.checkedOutBy) return documentRow(ctx, id);
  return row;
}

/** Who has the document checked out, if anyone (`checkedOutById` reads the all-zero GUID for nobody). */
const holderOf = (doc: DocumentRow): string | undefined => (doc.checkInStatus === 1 ? (doc.checkedOutById as string) : undefined);

/** `archive` of a deleted document: still read by its id, no longer listed or changed. */
export const DELETED = 2;

/**
 * The document for a change: its row locked to the end of the mutation, and a 409 when it is
 * deleted or while someone else has it checked out (docs/decisions.md, "Documents", "Check-out").
 * `field` as for `documentRow`.
 */
export async function changeableDocument(ctx: AppContext, id: string, what = 'Document', field?: string): Promise<DocumentRow> {
  const doc = await documentRow(ctx, id, true, what, field);
  if (doc.archive === DELETED) throw conflict(`Document '${doc.name as string}' is deleted: it can be read, not changed.`);
  assertNotHeldByOther(ctx, doc);
  return doc;
}

/** A 409 while someone other than the caller has the document checked out. */
export function assertNotHeldByOther(ctx: AppContext, doc: DocumentRow): void {
  const holder = holderOf(doc);
  if (holder && holder !== ctx.caller.userId) {
    throw conflict(`Document '${doc.name as string}' is checked out by ${(doc.checkedOutBy as string) || 'another user'}: it can change once it is checked in.`);
  }
}

/**
 * Whether `PUT documents/{id}/status` asks to check in: its `checkIn` is the check-in status asked
 * for, as the clients send it and `checkInStatus` reads, 0 checked in and 1 checked out (a
 * CheckInStatus, src/scalars.ts: 0 or 1 when sent).
 */
export function checksIn(input: Input): boolean {
  const status = input.checkIn;
  if (status === undefined || status === null) throw badRequest("The mandatory field 'checkIn' is missing: 0 checks the document in, 1 checks it out (the values of checkInStatus).", { field: 'checkIn' });
  return status === 0;
}

/**
 * Checks the document in, or out to the caller. Checking out what someone else has checked out is
 * a 409; checking in what someone else checked out needs an administrator. Asking for the state
 * it is in changes nothing.
 */
export async function setCheckIn(ctx: AppContext, id: string, checkIn: boolean): Promise<string> {
  const doc = await documentRow(ctx, id, true);
  if (doc.archive === DELETED) throw conflict(`Document '${doc.name as string}' is deleted: it cannot be checked out or in.`);
  const holder = holderOf(doc);
  const me = ctx.caller.userId;
  if (!checkIn && holder && holder !== me) throw conflict(`Document '${doc.name as string}' is already checked out by ${(doc.checkedOutBy as string) || 'another user'}.`);
  if (checkIn && holder && holder !== me && !(await ctx.isAdmin())) {
    throw forbidden(`Document '${doc.name as string}' is checked out by ${(doc.checkedOutBy as string) || 'another user'}: only they or an administrator can check it in.`);
  }
  if (checkIn === !holder || (!checkIn && holder === me)) return doc.id;
  // A change of the document like any other: its changer and date are the caller's (docs/decisions.md, "Check-out").
  const changed = { modified_at: sql`now()`, modified_by_id: me };
  await updateRows(
    ctx.reader,
    'document',
    checkIn ? { checked_out_by_id: null, checked_out_at: null, checked_in_by_id: me, ...changed } : { checked_out_by_id: me, checked_out_at: sql`now()`, ...changed },
    sql`t.id = ${doc.documentId}`,
  );
  await sendAlerts(ctx, checkIn ? 'documentCheckedIn' : 'documentCheckedOut', [doc.documentId]);
  return doc.id;
}

/** A document by its id (GUID) or, as `relateToDocId` may name it, by its name (a 409 when several share it); `field` as for `documentRow`. */
export async function documentByIdOrName(ctx: AppContext, idOrName: string, field?: string): Promise<DocumentRow> {
  if (isGuid(idOrName)) return documentRow(ctx, idOrName, false, 'Document', field);
  const rows = await selectRows<DocumentRow>(ctx.reader, DOCUMENT, { where: [sql`name_key(t.name) = name_key(${idOrName})`, ...listedOf(DOCUMENT)], limit: 2 });
  if (rows.length === 0) throw notFound(`Document '${idOrName}' was not found.`, { field });
  if (rows.length > 1) throw conflict(`More than one document is named '${idOrName}': name it by its id.`, { field });
  return rows[0];
}

/** A document's name: trimmed, not blank, at most 256 characters, no control characters. */
const documentName = (raw: string): string => nameText(raw, LIMITS.name);

/**
 * The folder `input.folderId` names, for a document to be put in: held against its delete
 * (heldRow), so one committed meanwhile is the 404 of an unknown folder, not the foreign key's.
 */
const destinationFolder = (ctx: AppContext, input: Input): Promise<Row> => heldRow(ctx, resource('Folder'), requireGuid(input.folderId, 'folderId'), 'folderId');

/** A new document (its first revision, "1") in the folder `input.folderId`; returns its revision id. */
export async function createDocument(ctx: AppContext, input: Input): Promise<string> {
  const folder = await destinationFolder(ctx, input);
  const name = documentName(requireString(input, 'name'));
  const text = (key: keyof typeof LIMITS) => maxLength(optionalString(input, key) ?? '', LIMITS[key], key);
  // A ReleaseState: 0 or 1 when sent.
  const state = input.documentState ?? 1;
  const changeText = changeTextOf(input);
  const [reviewDate, expireDate] = [dateOf(input, 'reviewDate'), dateOf(input, 'expirationDate')];
  const revisionId = newId();
  const id = newId();
  const by = ctx.caller.userId;
  const common = { revision: revisionLabelOf(input) ?? '1', name, description: text('description'), changeText: changeText ?? null, createdById: by };
  ctx.em().create(Document, { ...common, id, folderId: folder.id as string, revisionId, releaseState: state as number, abstract: text('abstract'), keywords: text('keywords'), reviewDate, expireDate, modifiedById: by });
  // The document first: its revision's foreign key names it (both in the mutation's transaction).
  await ctx.em().flush();
  ctx.em().create(DocumentRevision, { ...common, id: revisionId, documentId: id });
  await ctx.em().flush();
  await sendAlerts(ctx, 'documentAdded', [id]);
  return revisionId;
}

/**
 * Copies of `documents` (Document rows), each with every revision (its index field values and
 * file too) under new ids, where `place` says (its folder and name); returns the copies' current revision ids, in order.
 */
export async function copyDocuments(ctx: AppContext, documents: Row[], place: (d: Row) => { folderId: string; name: string; expireDate?: Date | null }): Promise<string[]> {
  if (documents.length === 0) return [];
  const copies = new Map(documents.map((d) => [d.documentId as string, { id: newId(), current: d.id as string, ...place(d) }]));
  const revisions = await selectRows<Row>(ctx.reader, REVISION, { where: [sql`t.document_id = any(${[...copies.keys()]}::uuid[])`] });
  const revIds = new Map(revisions.map((r) => [r.id as string, newId()]));
  const by = ctx.caller.userId;
  await insertRows(ctx.reader, 'document', documents.map((d) => {
    const copy = copies.get(d.documentId as string)!;
    return {
      id: copy.id, folder_id: copy.folderId, revision_id: revIds.get(copy.current), revision: d.revision, name: copy.name,
      description: d.description, release_state: d.releaseState, review_date: d.reviewDate,
      expire_date: copy.expireDate === undefined ? d.expireDate : copy.expireDate, archive: d.archive, abstract: d.abstract, keywords: d.keywords, change_text: d.changeText,
      created_by_id: by, modified_by_id: by,
    };
  }));
  await insertRows(ctx.reader, 'document_revision', revisions.map((r) => {
    const copy = copies.get(r.documentId as string)!;
    return {
      id: revIds.get(r.id as string), document_id: copy.id, revision: r.revision,
      // The current revision takes the copy's name; older ones keep theirs.
      name: r.id === copy.current ? copy.name : r.name,
      description: r.description, change_text: r.changeText, created_at: r.createDate, created_by_id: by,
    };
  }));
  // Every revision's index field values go with it.
  const [from, to] = [[...revIds.keys()], [...revIds.values()]];
  await copyRows(ctx.reader, 'document_index_value', ['field_id', 'value'], { revision_id: mapped('revision_id', from, to), created_by_id: by, modified_by_id: by }, sql`t.revision_id = any(${from}::uuid[])`);
  // And its file, bytes and all.
  await copyFiles(ctx, from, to);
  await sendAlerts(ctx, 'documentAdded', [...copies.values()].map((c) => c.id));
  return documents.map((d) => revIds.get(d.id as string)!);
}

/** A copy of the document (every revision) in folder `input.folderId`, named `input.name` or as the original; returns its revision id. */
export async function copyDocument(ctx: AppContext, id: string, input: Input): Promise<string> {
  // Locked, as uploads and revision deletes lock it: the copy is of one state of the document and its revisions.
  const doc = await documentRow(ctx, id, true);
  // As a folder copy leaves its deleted documents behind: a copy of one would be born deleted.
  if (doc.archive === DELETED) throw conflict(`Document '${doc.name as string}' is deleted: it can be read, not copied.`);
  const folder = await destinationFolder(ctx, input);
  // A name sent is checked; the original's is kept as it is (one stored before DEL and the C1 controls were refused still copies).
  const sent = optionalString(input, 'name')?.trim();
  const name = sent ? documentName(sent) : (doc.name as string);
  // Sent, the copy's own expiration (null or '' none); else the original's.
  const expireDate = dateOf(input, 'expirationDate');
  const [revisionId] = await copyDocuments(ctx, [doc], () => ({ folderId: folder.id as string, name, expireDate }));
  return revisionId;
}

/** Moves the document into folder `input.folderId` (the folder it is in: nothing changes); returns its revision id. */
export async function moveDocument(ctx: AppContext, id: string, input: Input): Promise<string> {
  const doc = await changeableDocument(ctx, id);
  const folder = await destinationFolder(ctx, input);
  if (folder.id === doc.folderId) return doc.id;
  await updateRows(ctx.reader, 'document', { folder_id: folder.id, modified_at: sql`now()`, modified_by_id: ctx.caller.userId }, sql`t.id = ${doc.documentId}`);
  await sendAlerts(ctx, 'documentAdded', [doc.documentId]);
  return doc.id;
}

/** `input[key]` as an instant: undefined when not sent, null when null or '' (none); a 400 when it is no ISO 8601 date-time. */
function dateOf(input: Input, key: string): Date | null | undefined {
  if (input[key] === undefined) return undefined;
  const v = optionalString(input, key);
  const at = v === undefined || v.trim() === '' ? null : isoInstant(v);
  if (at === undefined) throw badRequest(`The field '${key}' must be an ISO 8601 date-time such as 2030-01-31T12:00:00Z, from year 1 to 9999 in UTC, got '${String(v).slice(0, 64)}'.`, { field: key });
  return at;
}

/** The document dates a write sets: `expirationDate` is kept as `expireDate`. */
const DATES = { expirationDate: 'expire_date', reviewDate: 'review_date' } as const;

/**
 * Sets (or, with null or '', clears) the dates of `keys` that `input` names, at least one of
 * them; returns the document's revision id.
 */
export async function setDates(ctx: AppContext, id: string, input: Input, keys: (keyof typeof DATES)[]): Promise<string> {
  const doc = await changeableDocument(ctx, id);
  const changes: Record<string, Date | null> = {};
  for (const key of keys) {
    const at = dateOf(input, key);
    if (at !== undefined) changes[DATES[key]] = at;
  }
  if (Object.keys(changes).length === 0) {
    const names = keys.map((k) => `'${k}'`);
    throw badRequest(`${names.length > 1 ? `Send at least one of ${names.join(', ')}` : `The mandatory field ${names[0]} is missing`} (null clears it).`);
  }
  await updateRows(ctx.reader, 'document', { ...changes, modified_at: sql`now()`, modified_by_id: ctx.caller.userId }, sql`t.id = ${doc.documentId}`);
  return doc.id;
}

/**
 * Deletes one revision of a document, its file and index field values with it. When it is the
 * current one, the revision before it becomes current again (name and description as it had
 * them); a document's only revision goes only with the document.
 */
export async function deleteRevision(ctx: AppContext, revisionId: string): Promise<void> {
  const doc = await changeableDocument(ctx, revisionId, REVISION.label);
  const key = revisionId.toLowerCase();
  if (key === doc.documentId) throw badRequest("Name a revision's id here, not the document's: DELETE documents/{id} deletes the document.", { field: 'revisionId' });
  const revisions = await selectRows<Row>(ctx.reader, REVISION, { where: [sql`t.document_id = ${doc.documentId}`], order: REVISION.order });
  const at = revisions.findIndex((r) => r.id === key);
  // Read under the document's lock: a delete of the revision that committed while the lock waited
  // is seen here (the lock's own read still found the document through it), answered as one sent after.
  if (at === -1) throw notFound(`${REVISION.label} '${revisionId}' was not found.`);
  if (revisions.length === 1) throw conflict(`Revision '${revisions[0].revision as string}' is the document's only revision: delete the document instead.`);
  if (key === doc.id) {
    const before = revisions[at === 0 ? 1 : at - 1];
    await updateRows(
      ctx.reader,
      'document',
      {
        revision_id: before.id, revision: before.revision, name: before.name, description: before.description, change_text: before.changeText ?? null,
        modified_at: sql`now()`, modified_by_id: ctx.caller.userId,
      },
      sql`t.id = ${doc.documentId}`,
    );
  }
  await deleteRows(ctx.reader, 'document_revision', sql`t.id = ${key}`);
}
