import { column, computed, defineResource, joined } from '../read/define.js';
import { sql } from '../sql.js';

/**
 * A zip of documents' files (dataType DocumentZip), named by its `downloadKey`: what
 * `GetDocumentZipFileStatus` answers and `DownloadDocumentZipFile` streams (docs/decisions.md,
 * "Zip files"). Its creator reads it, and administrators; it is gone when it expires.
 */
export default defineResource({
  dataType: 'DocumentZip',
  typeName: 'DocumentZip',
  table: 'document_zip',
  href: '~/documents/GetDocumentZipFileStatus?downloadKey={downloadKey}',
  idField: 'downloadKey',
  label: 'Zip file',
  fields: {
    downloadKey: column('id', 'guid'),
    // The file store's key for its bytes (src/rest/run-route.ts streams it).
    fileId: column('id', 'guid', { expandOnly: true }),
    status: computed("'Ready'", 'string'),
    fileName: column('file_name', 'string'),
    contentType: computed("'application/zip'", 'string'),
    fileSize: column('size', 'integer'),
    fileCount: column('file_count', 'integer'),
    sha256: column('sha256', 'string'),
    createDate: column('created_at', 'datetime'),
    expireDate: column('expires_at', 'datetime'),
    createById: column('created_by_id', 'guid'),
    createBy: joined('cu', 'name', 'string', { nullAs: '' }),
  },
  joins: { cu: { table: 'app_user', on: 'cu.id = t.created_by_id' } },
  live: 't.expires_at > now()',
  order: 't.created_at, t.id',
  queries: { documentZipFile: { op: 'get', arg: 'downloadKey' } },
  access: { see: (caller) => sql`t.created_by_id = ${caller}`, change: (caller) => sql`t.created_by_id = ${caller}` },
});
