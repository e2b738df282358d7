import { ZERO_GUID } from '../ids.js';
import { AUDIT_RELATIONS, column, defineResource, joined } from '../read/define.js';
import { fieldOf, type Reader } from '../read/rows.js';
import { sql, type Sql } from '../sql.js';
import { checkInStatusField, checkOutFields, checkOutJoin, FILE_FIELDS, fileJoin } from './document.js';
import { FOLDER_OF_DOCUMENT, folderSeenBy } from './folder.js';

/**
 * One kept revision of a document, shaped as a Document (the spec's revision list): its own id,
 * revision, name, description and change text; the rest as the document has them now.
 */
const DocumentRevision = defineResource({
  dataType: 'Document',
  typeName: 'DocumentRevision',
  table: 'document_revision',
  // Its own address: `~/documents/{id}` reads the document's current revision, not this one.
  href: '~/documents/{documentId}/revisions/{id}',
  idField: 'id',
  label: 'Document revision',
  fields: {
    id: column('id', 'guid'),
    documentId: column('document_id', 'guid'),
    name: column('name', 'string'),
    description: column('description', 'string'),
    releaseState: joined('d', 'release_state', 'integer'),
    ...checkInStatusField('d'),
    revision: column('revision', 'string'),
    reviewDate: joined('d', 'review_date', 'datetime'),
    expireDate: joined('d', 'expire_date', 'datetime'),
    archive: joined('d', 'archive', 'integer'),
    abstract: joined('d', 'abstract', 'string'),
    keywords: joined('d', 'keywords', 'string'),
    changeText: column('change_text', 'string'),
    folderId: joined('d', 'folder_id', 'guid'),
    folderName: joined('f', 'name', 'string', { nullAs: '' }),
    folderPath: joined('f', 'path', 'string', { nullAs: '' }),
    ...FILE_FIELDS,
    ...checkOutFields('d'),
    createDate: column('created_at', 'datetime'),
    modifyDate: column('created_at', 'datetime'),
    createById: column('created_by_id', 'guid', { nullAs: ZERO_GUID }),
    modifyById: column('created_by_id', 'guid', { nullAs: ZERO_GUID }),
    createBy: joined('cu', 'name', 'string', { nullAs: '' }),
    modifyBy: joined('cu', 'name', 'string', { nullAs: '' }),
  },
  joins: {
    d: { table: 'document', on: 'd.id = t.document_id' },
    f: { table: 'folder', on: 'f.id = d.folder_id' },
    cu: { table: 'app_user', on: 'cu.id = t.created_by_id' },
    df: fileJoin('t.id'),
    cou: checkOutJoin('d'),
    // A revision was checked in by its creator (who uploaded it).
    ciu: { table: 'app_user', on: 'ciu.id = t.created_by_id' },
  },
  relations: {
    // A Document's id field is its current revision's id: its own id is `documentId`.
    document: { kind: 'one', target: 'Document', key: 'documentId', targetKey: 'documentId', graphqlOnly: true },
    indexFields: { kind: 'many', target: 'DocumentIndexField', column: 'revision_id' },
    file: { kind: 'one', target: 'DocumentFile', key: 'id' },
    folder: { kind: 'one', target: 'Folder', key: 'folderId', graphqlOnly: true },
    checkedOutByUser: { kind: 'one', target: 'User', key: 'checkedOutById', graphqlOnly: true },
    ...AUDIT_RELATIONS,
  },
  // (tenant_id, document_id, created_at, id) is indexed: oldest first under a document.
  order: 't.document_id, t.created_at, t.id',
  access: { see: folderSeenBy(FOLDER_OF_DOCUMENT), change: 'admin' },
});

export default DocumentRevision;

/**
 * The document (alias `t`) a client's id names: its own id, its current revision's, or an older
 * revision's. The revision's document is an uncorrelated subquery (fieldOf): correlated on
 * `t.tenant_id`, PostgreSQL ran it once per document and read every document of the tenant.
 */
export const namedBy = (reader: Reader, key: string): Sql =>
  sql`(t.id = ${key} or t.revision_id = ${key} or t.id = ${fieldOf(reader, DocumentRevision, 'documentId', [sql`t.id = ${key}`])})`;
