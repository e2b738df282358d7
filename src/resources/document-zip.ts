import { AUDIT_RELATIONS, column, computed, defineResource, joined } from '../read/define.js';
import { sql } from '../sql.js';

/** A zip's `status` column: queued or being built, built, or given up (src/jobs/zip-builder.ts). */
export const ZIP_STATUS = { pending: 0, ready: 1, failed: 2 } as const;

/**
 * A zip of documents' files (dataType DocumentZip), named by its `downloadKey`: what
 * `GetDocumentZipFileStatus` answers and `DownloadDocumentZipFile` streams (docs/decisions.md,
 * "Zip files"). Its creator reads it, and administrators; it is gone when it expires. Its size and
 * hash are null until it is built.
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
    // The file store's key for its bytes (src/rest/downloads.ts streams it).
    fileId: column('id', 'guid', { expandOnly: true }),
    status: computed(`case t.status when ${ZIP_STATUS.pending} then 'Pending' when ${ZIP_STATUS.ready} then 'Ready' else 'Failed' end`, 'string'),
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
  relations: { createByUser: AUDIT_RELATIONS.createByUser },
  queries: { documentZipFile: { op: 'get', arg: 'downloadKey' } },
  access: { see: (caller) => sql`t.created_by_id = ${caller}`, change: (caller) => sql`t.created_by_id = ${caller}` },
});
