import { AUDIT_JOINS, AUDIT_RELATIONS, auditFields, column, defineResource } from '../read/define.js';

/**
 * A document type (dataType DocumentType): a named kind of document a tenant's administrators
 * keep (`GET`/`POST documenttypes`, docs/decisions.md "Document types"). Anyone in the tenant reads them.
 */
export default defineResource({
  dataType: 'DocumentType',
  typeName: 'DocumentType',
  table: 'document_type',
  href: '~/documenttypes/{id}',
  idField: 'id',
  label: 'Document type',
  fields: {
    id: column('id', 'guid'),
    name: column('name', 'string'),
    description: column('description', 'string'),
    ...auditFields(),
  },
  joins: AUDIT_JOINS,
  // Names are unique per tenant, case-insensitively: the unique index gives this order (an id after it made PostgreSQL sort).
  order: 'name_key(t.name)',
  relations: { ...AUDIT_RELATIONS },
  queries: { documentTypes: { op: 'list' }, documentType: { op: 'get' } },
  access: { see: 'tenant', change: 'admin' },
});
