import { ZERO_GUID } from '../ids.js';
import { AUDIT_RELATIONS, column, computed, defineResource, joined } from '../read/define.js';
import { FOLDER_OF_REVISION, folderSeenBy } from './folder.js';

/** A file name's extension, lower case, without the dot ('' without one), as SQL over `name`. */
export const extensionOf = (name: string) => `coalesce(lower(substring(${name} from '\\.([^./\\\\]+)$')), '')`;

/**
 * A document revision's file (GraphQL DocumentFile): its name, type, size and SHA-256. Its bytes
 * are read only to send them (src/domain/files.ts), never with the rest. As in the spec's `GET
 * files/{id}`, a file is known by its revision's id (`id`); `fileId` is its own (docs/decisions.md, "Files").
 */
export default defineResource({
  dataType: 'File',
  typeName: 'DocumentFile',
  table: 'document_file',
  href: '~/files/{id}',
  idField: 'id',
  label: 'File',
  fields: {
    id: column('revision_id', 'guid'),
    fileId: column('id', 'guid'),
    documentId: joined('r', 'document_id', 'guid', { nullAs: ZERO_GUID }),
    fileName: column('file_name', 'string'),
    extension: computed(extensionOf('t.file_name'), 'string'),
    contentType: column('content_type', 'string'),
    fileSize: column('size', 'integer'),
    sha256: column('sha256', 'string'),
    createDate: column('created_at', 'datetime'),
    createById: column('created_by_id', 'guid', { nullAs: ZERO_GUID }),
    // Moves on whenever the document's current file changes (an upload, its current revision
    // deleted): `GET files/{documentId}`'s and `GET files?q=`'s Last-Modified is the later of it and createDate.
    documentModifyDate: joined('d', 'modified_at', 'datetime'),
  },
  joins: {
    r: { table: 'document_revision', on: 'r.id = t.revision_id' },
    d: { table: 'document', on: 'd.id = r.document_id' },
  },
  order: 't.created_at, t.id',
  relations: {
    document: { kind: 'one', target: 'Document', key: 'documentId', targetKey: 'documentId', graphqlOnly: true },
    revision: { kind: 'one', target: 'DocumentRevision', key: 'id', graphqlOnly: true },
    createByUser: AUDIT_RELATIONS.createByUser,
  },
  access: { see: folderSeenBy(FOLDER_OF_REVISION), change: 'admin' },
});
