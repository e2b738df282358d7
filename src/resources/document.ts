import { ZERO_GUID } from '../ids.js';
import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, computed, defineResource, type Join, joined } from '../read/define.js';
import { extensionOf } from './document-file.js';
import { folderSeenBy } from './folder.js';

/**
 * The file fields, from the revision's file joined as `df` (fileJoin; without one the all-zero
 * GUID, '' and 0), and who checked it in, the user joined as `ciu` (docs/decisions.md, "Documents",
 * "Files", "Check-out").
 */
export const FILE_FIELDS = {
  fileId: joined('df', 'id', 'guid', { nullAs: ZERO_GUID }),
  fileName: joined('df', 'file_name', 'string', { nullAs: '' }),
  fileSize: joined('df', 'size', 'integer', { nullAs: '0' }),
  extension: computed(extensionOf('df.file_name'), 'string'),
  contentType: joined('df', 'content_type', 'string', { nullAs: '' }),
  checkedInBy: joined('ciu', 'name', 'string', { nullAs: '' }),
};

/**
 * The check-out fields of the document read as `doc` (the row itself or a join), with the user
 * who has it checked out joined as `cou` (checkOutJoin): `checkInStatus` 1 while someone has
 * it checked out, else 0; nobody's id is the all-zero GUID, which the .NET client's Guid reads
 * (docs/decisions.md, "Check-out"). Two parts, each where the spec's Document lists it (records
 * show that order, and /meta the definition's).
 */
export const checkInStatusField = (doc: string) => ({
  checkInStatus: computed(`case when ${doc}.checked_out_by_id is null then 0 else 1 end`, 'integer'),
});
export const checkOutFields = (doc: string) => ({
  checkedOutById: computed(`coalesce(${doc}.checked_out_by_id::text, '${ZERO_GUID}')`, 'string'),
  checkedOutBy: joined('cou', 'name', 'string', { nullAs: '' }),
  checkOutDate: computed(`case when ${doc}.checked_out_by_id is null then null else ${doc}.checked_out_at end`, 'datetime'),
});
export const checkOutJoin = (doc: string): Join => ({ table: 'app_user', on: `cou.id = ${doc}.checked_out_by_id` });

/** The file of the revision `revision` (SQL on `t`), joined as `df` for FILE_FIELDS. */
export const fileJoin = (revision: string): Join => ({ table: 'document_file', on: `df.revision_id = ${revision}` });

/** A document as of its current revision: `id` is that revision's id, `documentId` the document's. */
export default defineResource({
  dataType: 'Document',
  typeName: 'Document',
  table: 'document',
  href: '~/documents/{id}',
  idField: 'id',
  label: 'Document',
  fields: {
    id: column('revision_id', 'guid'),
    documentId: column('id', 'guid'),
    name: column('name', 'string'),
    description: column('description', 'string'),
    releaseState: column('release_state', 'integer'),
    ...checkInStatusField('t'),
    revision: column('revision', 'string'),
    reviewDate: column('review_date', 'datetime'),
    expireDate: column('expire_date', 'datetime'),
    archive: column('archive', 'integer'),
    abstract: column('abstract', 'string'),
    keywords: column('keywords', 'string'),
    changeText: column('change_text', 'string'),
    folderId: column('folder_id', 'guid'),
    folderName: joined('f', 'name', 'string', { nullAs: '' }),
    folderPath: joined('f', 'path', 'string', { nullAs: '' }),
    ...FILE_FIELDS,
    ...checkOutFields('t'),
    ...auditFields(),
  },
  joins: {
    f: { table: 'folder', on: 'f.id = t.folder_id' },
    df: fileJoin('t.revision_id'),
    cou: checkOutJoin('t'),
    // Who last checked it in; until someone does, its creator.
    ciu: { table: 'app_user', on: 'ciu.id = coalesce(t.checked_in_by_id, t.created_by_id)' },
    ...AUDIT_JOINS,
  },
  // (tenant_id, lower(name), id) is indexed: documents by name.
  order: 'lower(t.name), t.id',
  relations: {
    folder: { kind: 'one', target: 'Folder', key: 'folderId' },
    revisions: { kind: 'many', target: 'DocumentRevision', column: 'document_id', parentKey: 'documentId' },
    forms: { kind: 'through', target: 'FormInstance', link: { table: 'form_document', from: 'document_id', to: 'form_id' }, parentKey: 'documentId' },
    indexFields: { kind: 'many', target: 'DocumentIndexField', column: 'revision_id' },
    file: { kind: 'one', target: 'DocumentFile', key: 'id' },
    checkedOutByUser: { kind: 'one', target: 'User', key: 'checkedOutById', graphqlOnly: true },
    ...AUDIT_RELATIONS,
  },
  queries: {
    documents: { op: 'list' },
    folderDocuments: { op: 'list', parent: { resource: 'Folder', arg: 'id', field: 'folderId' } },
  },
  access: { see: folderSeenBy('t.folder_id'), change: 'admin' },
  // A deleted document (archive 2) is read by its id, not listed (docs/decisions.md, "Documents").
  listed: 't.archive <> 2',
});
