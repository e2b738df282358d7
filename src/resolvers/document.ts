/** Documents: reads by any of their ids, create and delete, and their relations to forms. Who may call each: schema/document.graphql. */
import type { AppContext } from '../context.js';
import { sendAlerts } from '../domain/alert-mail.js';
import { recordAccess } from '../domain/document-access.js';
import { createDocumentWithFile } from '../domain/files.js';
import { deleteRows, insertRows, updateRows } from '../db/tenant-writes.js';
import { conflict, notFound } from '../errors.js';
import {
  assertNotHeldByOther,
  checksIn,
  DELETED,
  deleteRevision,
  copyDocument,
  documentByIdOrName,
  documentRow,
  moveDocument,
  setCheckIn,
  setDates,
  type DocumentRow,
} from '../domain/documents.js';
import type { ListArgs } from '../read/paging.js';
import { underRelation } from '../read/parent-keys.js';
import { listPage, loadRow, reread } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { selectRows, type RowQuery } from '../read/rows.js';
import { sql } from '../sql.js';
import { subtreeOf } from '../resources/folder.js';
import { instanceRow } from './form-instance.js';

type Input = Record<string, unknown>;

const DOCUMENT = resource('Document');
const FOLDER = resource('Folder');
const REVISION = resource('DocumentRevision');

/** The form (revision or form id) and the document a relate or unrelate call names. */
async function pair(ctx: AppContext, formId: string, doc: () => Promise<DocumentRow>) {
  const form = await instanceRow(ctx, formId);
  return { formId: form.formId as string, documentId: (await doc()).documentId };
}

type ById = { formId: string; relateToId: string };
type ByDocId = { formId: string; relateToDocId: string };

async function relate(ctx: AppContext, formId: string, doc: () => Promise<DocumentRow>) {
  const p = await pair(ctx, formId, async () => {
    const d = await doc();
    if (d.archive === DELETED) throw conflict(`Document '${d.name as string}' is deleted: it cannot be related to a form.`);
    return d;
  });
  await insertRows(ctx.reader, 'form_document', [{ form_id: p.formId, document_id: p.documentId }], true);
  return true;
}

async function unrelate(ctx: AppContext, formId: string, doc: () => Promise<DocumentRow>, named: string) {
  const p = await pair(ctx, formId, doc);
  if (!(await deleteRows(ctx.reader, 'form_document', sql`t.form_id = ${p.formId} and t.document_id = ${p.documentId}`))) {
    throw notFound(`Form '${formId}' is not related to document '${named}'.`);
  }
  return true;
}

/** Orders of the documents a user opened, on the access `a`: last opened first, most opened first. */
export const OPENED_ORDERS = { lastDocuments: 'a.accessed_at desc, t.id', frequentDocuments: 'a.access_count desc, a.accessed_at desc, t.id' };

/** The documents `userId` opened, in `order` (test/db/list-orders.test.ts EXPLAINs them). */
export const openedBy = (userId: string, order: string): Pick<RowQuery, 'from' | 'order'> => ({
  from: sql` join document_access a on a.tenant_id = t.tenant_id and a.document_id = t.id and a.user_id = ${userId}`,
  order,
});

/** The documents the caller opened that they may still see (src/domain/document-access.ts). */
const opened = (ctx: AppContext, args: ListArgs, order: string) => listPage(ctx, DOCUMENT, args, [], undefined, openedBy(ctx.caller.userId, order));

export const resolvers = {
  Query: {
    // Reading a document by its id opens it (src/domain/document-access.ts).
    document: async (_: unknown, { documentId }: { documentId: string }, ctx: AppContext) => {
      const doc = await documentRow(ctx, documentId);
      await recordAccess(ctx, doc.documentId);
      return doc;
    },
    lastDocuments: (_: unknown, args: ListArgs, ctx: AppContext) => opened(ctx, args, OPENED_ORDERS.lastDocuments),
    frequentDocuments: (_: unknown, args: ListArgs, ctx: AppContext) => opened(ctx, args, OPENED_ORDERS.frequentDocuments),
    documentRevisions: async (_: unknown, args: ListArgs & { documentId: string }, ctx: AppContext) => {
      const doc = await documentRow(ctx, args.documentId);
      return listPage(ctx, REVISION, args, [underRelation(DOCUMENT, 'revisions', doc.documentId)]);
    },
    documentRevision: async (_: unknown, a: { documentId: string; id: string }, ctx: AppContext) => {
      const doc = await documentRow(ctx, a.documentId);
      const [rev] = await selectRows(ctx.reader, REVISION, { where: [sql`t.id = ${a.id.toLowerCase()}`, sql`t.document_id = ${doc.documentId}`] });
      if (!rev) throw notFound(`Document '${a.documentId}' has no revision '${a.id}'.`);
      return rev;
    },
    documentRevisionById: (_: unknown, { id }: { id: string }, ctx: AppContext) => loadRow(ctx, REVISION, id),
    // The folder's documents as its list counts them, its subtree's when asked (the documents' row rule hides those of folders the caller may not see).
    folderDocumentCount: async (_: unknown, a: { id: string; includeSubfolders?: boolean | null; q?: string | null }, ctx: AppContext) => {
      const folder = (await loadRow(ctx, FOLDER, a.id)) as { id: string; folderPath: string; topLevelFolderId: string };
      const inFolder = a.includeSubfolders ? subtreeOf(folder, 'f') : sql`t.folder_id = ${folder.id}`;
      return listPage(ctx, DOCUMENT, { q: a.q }, [inFolder]).totalRecords();
    },
    formDocuments: async (_: unknown, args: ListArgs & { formId: string }, ctx: AppContext) => {
      const form = await instanceRow(ctx, args.formId);
      return listPage(ctx, DOCUMENT, args, [underRelation(resource('FormInstance'), 'documents', form.formId as string)]);
    },
  },
  Mutation: {
    createDocument: async (_: unknown, { input }: { input: Input }, ctx: AppContext) => reread(ctx, DOCUMENT, await createDocumentWithFile(ctx, input)),
    copyDocument: async (_: unknown, a: { documentId: string; input: Input }, ctx: AppContext) => reread(ctx, DOCUMENT, await copyDocument(ctx, a.documentId, a.input)),
    moveDocument: async (_: unknown, a: { documentId: string; input: Input }, ctx: AppContext) => reread(ctx, DOCUMENT, await moveDocument(ctx, a.documentId, a.input)),
    setDocumentExpiration: async (_: unknown, a: { documentId: string; input: Input }, ctx: AppContext) =>
      reread(ctx, DOCUMENT, await setDates(ctx, a.documentId, a.input, ['expirationDate'])),
    setDocumentDates: async (_: unknown, a: { documentId: string; input: Input }, ctx: AppContext) =>
      reread(ctx, DOCUMENT, await setDates(ctx, a.documentId, a.input, ['reviewDate', 'expirationDate'])),
    setDocumentCheckIn: async (_: unknown, a: { documentId: string; input: Input }, ctx: AppContext) => reread(ctx, DOCUMENT, await setCheckIn(ctx, a.documentId, checksIn(a.input))),
    // Marked deleted (archive 2), every revision, file and relation kept: read by id, no longer listed.
    deleteDocument: async (_: unknown, { documentId }: { documentId: string }, ctx: AppContext) => {
      // Locked first: of two deletes at once, the second finds it deleted.
      const doc = await documentRow(ctx, documentId, true);
      if (doc.archive === DELETED) throw notFound(`Document '${documentId}' is already deleted.`);
      assertNotHeldByOther(ctx, doc);
      await updateRows(ctx.reader, 'document', { archive: DELETED, modified_at: sql`now()`, modified_by_id: ctx.caller.userId }, sql`t.id = ${doc.documentId}`);
      await sendAlerts(ctx, 'documentDeleted', [doc.documentId]);
      return true;
    },
    deleteDocumentRevision: async (_: unknown, { revisionId }: { revisionId: string }, ctx: AppContext) => {
      await deleteRevision(ctx, revisionId);
      return true;
    },
    relateDocument: (_: unknown, a: ById, ctx: AppContext) => relate(ctx, a.formId, () => documentRow(ctx, a.relateToId, false, 'Document', 'relateToId')),
    relateDocumentByDocId: (_: unknown, a: ByDocId, ctx: AppContext) => relate(ctx, a.formId, () => documentByIdOrName(ctx, a.relateToDocId, 'relateToDocId')),
    unrelateDocument: (_: unknown, a: ById, ctx: AppContext) => unrelate(ctx, a.formId, () => documentRow(ctx, a.relateToId, false, 'Document', 'relateToId'), a.relateToId),
    unrelateDocumentByDocId: (_: unknown, a: ByDocId, ctx: AppContext) => unrelate(ctx, a.formId, () => documentByIdOrName(ctx, a.relateToDocId, 'relateToDocId'), a.relateToDocId),
  },
};
