/**
 * The route table: one row per REST route, and the only list of routes. SOFA's `routes` config,
 * the path matcher and the OpenAPI paths are all generated from it.
 *
 * Paths are relative to `/api/v1/{customeralias}/{databasealias}` unless `scope` is 'root'.
 * `:name` segments are path parameters and must match the root field's argument names (or be
 * renamed onto one by the row's `params`).
 */
export type Shape = 'list' | 'one' | 'object' | 'none';
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface SofaRoute {
  method: Method;
  path: string;
  /** `Query.x` or `Mutation.x`. */
  field: string;
  status?: 200 | 201;
  /** How `data` is shaped: array, one-element array, single object, or no data key. */
  shape: Shape;
  /** Adds the `pagination` object (the spec lists which calls carry it). */
  paged?: boolean;
  /** The argument that receives the whole request body. */
  body?: string;
  /**
   * A path parameter that fills an argument of another name (`{ token: 'id' }`): two rows on one
   * path shape must name its parameters alike, as OpenAPI holds paths that differ only in those
   * names to be one path. Any other path parameter fills the argument of its own name.
   */
  params?: Record<string, string>;
  /**
   * The body argument (of the JSON scalar) takes whatever JSON is sent: a script's input, which
   * the clients send as an array. Without it a body is a JSON object or a form, as on every route:
   * `null` or an array is a 400 (no body at all leaves the argument out).
   */
  anyJson?: true;
  /** Chosen over a row with the same method and path when a query parameter has one of these values (`*`: any value). */
  when?: { param: string; values: string[] };
  scope?: 'tenant';
  /** Answers every available field unless `fields` names some (a record read or written whole). */
  allFields?: true;
  /** The keys a record leads with, in this order, where the spec shows one its data type's order differs from. */
  keyOrder?: readonly string[];
  /**
   * The route sends a file's bytes with its Content-Type, not an envelope: `content`, the bytes
   * the field answers (a FileContent, base64); `stored`, the bytes of the DocumentFile it answers,
   * streamed from the file store.
   */
  file?: 'content' | 'stored';
  /**
   * The Content-Type a file route's bytes always go out with (a zip's, a PDF's), as the OpenAPI
   * document declares it; without it, the file's own type (any: a document's file, an attachment).
   */
  fileType?: string;
  /**
   * A multipart body's first file part streams into the file store (src/rest/upload.ts), up to
   * FILE_MAX_BYTES beside MAX_BODY_BYTES of text parts; the field finds it in its context.
   */
  upload?: true;
  /**
   * A multipart body's file parts are an e-mail's attachments: up to EMAIL_MAX_ATTACHMENT_BYTES of
   * them beside MAX_BODY_BYTES of text parts (src/rest/body-limit.ts).
   */
  attachments?: true;
  /**
   * The field calls the outside process that runs scripts (src/domain/scripts.ts): its failure is a
   * 502, an answer later than SCRIPT_TIMEOUT_SECONDS a 504, as the OpenAPI document says.
   */
  outside?: true;
  /**
   * A refusal of what was sent (400, 404, 413) goes out as HTTP 200 with the real status in
   * `meta.status`, as the real service answers `POST emails` and its clients expect.
   */
  refusalsAs200?: true;
}

export interface HandlerRoute {
  method: Method;
  path: string;
  /**
   * A dedicated handler in src/rest/ (binary, form or token routes; the OpenAPI document and its
   * reference page, which the document itself does not list), or `notServed`: a route the clients
   * call that this service does not serve, answered 404 with the row's `reason` (not documented).
   */
  handler: 'token' | 'openapi' | 'docs' | 'notServed';
  scope: 'tenant' | 'root';
  /** Why a `notServed` route is not served, as its 404 says it. */
  reason?: string;
}

export type Route = SofaRoute | HandlerRoute;

export const isSofaRoute = (r: Route): r is SofaRoute => 'field' in r;

/**
 * A row without `body` whose method carries one (not GET) takes the field's arguments that the path
 * does not fill from the query string or from the body's keys (a JSON object, a form or multipart
 * parts; keys in any case, values fitted as a body's are; other keys ignored): the .NET client posts
 * a scheduled run's report as JSON where the other clients put it in the query string, and a body
 * sent anywhere is read, not thrown away unread. Given in both, a value must be the same in both,
 * else a 400 naming it; a blank one counts as not given, as a blank query parameter does. An empty
 * body is none.
 */
export const bodyHoldsArgs = (r: SofaRoute): boolean => !r.body && r.method !== 'GET';

/** A row's path parameters, in order: `/sites/:id/users/:userId` has `id` and `userId`. */
export const pathParams = (path: string): string[] => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);

/** A row's path as the spec and OpenAPI write it: `/sites/{id}`. */
export const bracedPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** A new form revision's answer as the spec shows it: "href, dataType, instanceName, revisionId" (a list's elements lead with revisionId). */
const NEW_REVISION_KEYS = ['href', 'dataType', 'instanceName', 'revisionId'];

export const routes: Route[] = [
  // Auth
  { method: 'POST', path: '/oauth/token', handler: 'token', scope: 'root' },
  { method: 'POST', path: '/oauth/token', handler: 'token', scope: 'tenant' },

  // The OpenAPI document of these routes and its reference page (src/rest/openapi.ts, docs.ts)
  { method: 'GET', path: '/api/openapi.json', handler: 'openapi', scope: 'root' },
  { method: 'GET', path: '/api/docs', handler: 'docs', scope: 'root' },
  { method: 'GET', path: '/api/docs/:asset', handler: 'docs', scope: 'root' },

  // Meta and configuration
  { method: 'GET', path: '/meta', field: 'Query.metaDataTypes', shape: 'list', paged: true, when: { param: 'expand', values: ['true', 'data'] } },
  { method: 'GET', path: '/meta', field: 'Query.meta', shape: 'object' },
  { method: 'GET', path: '/meta/:datatype', field: 'Query.metaDataType', shape: 'object' },
  { method: 'GET', path: '/configuration/:name', field: 'Query.configuration', shape: 'object' },

  // Sites
  { method: 'GET', path: '/sites', field: 'Query.sites', shape: 'list' },
  { method: 'POST', path: '/sites', field: 'Mutation.createSite', shape: 'object', body: 'input' },
  { method: 'PUT', path: '/sites/changeusersite', field: 'Mutation.changeUserSite', shape: 'object', body: 'input' },
  { method: 'PUT', path: '/sites/changegroupsite', field: 'Mutation.changeGroupSite', shape: 'object', body: 'input' },
  { method: 'GET', path: '/sites/:id', field: 'Query.site', shape: 'one' },
  { method: 'PUT', path: '/sites/:id', field: 'Mutation.updateSite', shape: 'object', body: 'input' },
  { method: 'DELETE', path: '/sites/:id', field: 'Mutation.deleteSite', shape: 'none' },
  { method: 'GET', path: '/sites/:siteId/groups', field: 'Query.siteGroups', shape: 'list' },
  { method: 'POST', path: '/sites/:siteId/groups', field: 'Mutation.createSiteGroup', shape: 'object', body: 'input' },
  { method: 'GET', path: '/sites/:siteId/groups/:groupId', field: 'Query.siteGroup', shape: 'one' },
  { method: 'PUT', path: '/sites/:siteId/groups/:groupId', field: 'Mutation.updateSiteGroup', shape: 'object', body: 'input' },
  { method: 'GET', path: '/sites/:siteId/users', field: 'Query.siteUsers', shape: 'list' },
  { method: 'POST', path: '/sites/:siteId/users', field: 'Mutation.createSiteUser', shape: 'object', body: 'input' },
  { method: 'GET', path: '/sites/:siteId/users/:userId', field: 'Query.siteUser', shape: 'one' },
  { method: 'PUT', path: '/sites/:siteId/users/:userId', field: 'Mutation.updateSiteUser', shape: 'object', body: 'input' },

  // Groups
  { method: 'GET', path: '/groups', field: 'Query.groups', shape: 'list' },
  { method: 'POST', path: '/groups', field: 'Mutation.createGroup', shape: 'object', body: 'input' },
  { method: 'GET', path: '/groups/:id', field: 'Query.group', shape: 'one' },
  { method: 'PUT', path: '/groups/:id', field: 'Mutation.updateGroup', shape: 'object', body: 'input' },
  { method: 'DELETE', path: '/groups/:id', field: 'Mutation.deleteGroup', shape: 'none' },
  { method: 'GET', path: '/groups/:groupId/users', field: 'Query.groupUsers', shape: 'list', paged: true },
  { method: 'POST', path: '/groups/:groupId/users', field: 'Mutation.addGroupUsers', shape: 'list', body: 'input' },
  { method: 'PUT', path: '/groups/:groupId/users', field: 'Mutation.addGroupUsers', shape: 'list', status: 201, body: 'input' },
  { method: 'DELETE', path: '/groups/:groupId/users', field: 'Mutation.removeGroupUserByName', shape: 'none' },
  { method: 'GET', path: '/groups/:groupId/users/:userId', field: 'Query.groupUser', shape: 'one', paged: true },
  { method: 'PUT', path: '/groups/:groupId/users/:userId', field: 'Mutation.putGroupUser', shape: 'list', status: 201 },
  { method: 'DELETE', path: '/groups/:groupId/users/:userId', field: 'Mutation.removeGroupUser', shape: 'none' },

  // Users
  { method: 'GET', path: '/users', field: 'Query.users', shape: 'list', paged: true },
  { method: 'POST', path: '/users', field: 'Mutation.createUser', shape: 'object', body: 'input' },
  { method: 'GET', path: '/users/me', field: 'Query.me', shape: 'object' },
  { method: 'GET', path: '/users/getjwt', field: 'Query.getJwt', shape: 'object' },
  { method: 'GET', path: '/users/:id', field: 'Query.user', shape: 'object' },
  { method: 'PUT', path: '/users/:id', field: 'Mutation.updateUser', shape: 'object', body: 'input' },
  { method: 'DELETE', path: '/users/:id', field: 'Mutation.deleteUser', shape: 'none' },
  { method: 'GET', path: '/users/:userId/groups', field: 'Query.userGroups', shape: 'list' },
  { method: 'GET', path: '/users/:userId/supervisors', field: 'Query.userSupervisors', shape: 'list', paged: true },
  { method: 'GET', path: '/users/:userId/supervisees', field: 'Query.userSupervisees', shape: 'list', paged: true },
  { method: 'GET', path: '/users/:userId/webtoken', field: 'Query.userWebToken', shape: 'object' },
  { method: 'PUT', path: '/users/:id/password', field: 'Mutation.changeUserPassword', shape: 'object', body: 'input' },
  { method: 'PUT', path: '/users/:id/userid', field: 'Mutation.changeUserId', shape: 'object', body: 'input' },
  // The .NET client's calls of users that this service does not serve (docs/decisions.md, "Not served")
  { method: 'GET', path: '/users/DefaultCustomer', handler: 'notServed', scope: 'tenant', reason: 'a user here belongs to one customer and database, the ones this address names' },
  { method: 'GET', path: '/users/AccountOwner', handler: 'notServed', scope: 'tenant', reason: 'no one user is the account owner here; GET users?isVaultAccess=true lists the account owners' },
  { method: 'GET', path: '/users/Invites', handler: 'notServed', scope: 'tenant', reason: 'there are no invitations here; an administrator makes users with POST users' },
  { method: 'POST', path: '/users/Invites', handler: 'notServed', scope: 'tenant', reason: 'there are no invitations here; an administrator makes users with POST users' },

  // Form templates: `:id` is a template's id, one of its revision ids or its name
  { method: 'GET', path: '/formtemplates', field: 'Query.formTemplates', shape: 'list' },
  { method: 'POST', path: '/formtemplates', field: 'Mutation.createFormTemplate', shape: 'object', body: 'input', allFields: true },
  { method: 'GET', path: '/formtemplates/:id', field: 'Query.formTemplate', shape: 'one', allFields: true },
  { method: 'PUT', path: '/formtemplates/:id/import', field: 'Mutation.importFormTemplate', shape: 'object', body: 'input', allFields: true },
  { method: 'PUT', path: '/formtemplates/:id/release', field: 'Mutation.releaseFormTemplate', shape: 'object', allFields: true },
  { method: 'GET', path: '/formtemplates/:id/fields', field: 'Query.formTemplateFields', shape: 'object' },
  { method: 'GET', path: '/formtemplates/:templateId/revisions/:id', field: 'Query.formTemplateRevision', shape: 'object' },
  { method: 'GET', path: '/formtemplates/:templateId/revisions/:revisionId/fields/:id', field: 'Query.formTemplateField', shape: 'object' },
  { method: 'GET', path: '/formdesigner/forms/formtemplates/:id/fields', field: 'Query.formDesignerFields', shape: 'object' },

  { method: 'GET', path: '/formtemplates/:templateId/forms', field: 'Query.formInstances', shape: 'list', paged: true },
  { method: 'POST', path: '/formtemplates/:templateId/forms', field: 'Mutation.createFormInstance', shape: 'object', status: 201, body: 'input', allFields: true },
  { method: 'GET', path: '/formtemplates/:templateId/forms/:revisionId', field: 'Query.formInstance', shape: 'one', allFields: true },
  { method: 'GET', path: '/formtemplates/:templateId/forms/:revisionId/pdf', field: 'Query.formInstancePdf', shape: 'object', file: 'content', fileType: 'application/pdf' },
  { method: 'POST', path: '/formtemplates/:templateId/forms/:revisionId', field: 'Mutation.reviseFormInstance', shape: 'object', status: 201, body: 'input', keyOrder: NEW_REVISION_KEYS },
  { method: 'POST', path: '/forms/:formId', field: 'Mutation.reviseForm', shape: 'object', status: 201, body: 'input', keyOrder: NEW_REVISION_KEYS },
  { method: 'PUT', path: '/forminstance/:formId/relateForm', field: 'Mutation.relateFormByDocId', shape: 'none', when: { param: 'relateToDocId', values: ['*'] } },
  { method: 'PUT', path: '/forminstance/:formId/relateForm', field: 'Mutation.relateForm', shape: 'none' },
  { method: 'PUT', path: '/forminstance/:formId/unrelateForm', field: 'Mutation.unrelateFormByDocId', shape: 'none', when: { param: 'relateToDocId', values: ['*'] } },
  { method: 'PUT', path: '/forminstance/:formId/unrelateForm', field: 'Mutation.unrelateForm', shape: 'none' },
  { method: 'GET', path: '/forminstance/:formId/forms', field: 'Query.relatedForms', shape: 'list', paged: true },
  { method: 'DELETE', path: '/forminstance/:id', field: 'Mutation.deleteFormInstance', shape: 'none' },
  { method: 'GET', path: '/formtemplates/:id/forms/new', field: 'Query.newForm', shape: 'object' },

  // Folders (docs/decisions.md, "Folders")
  { method: 'GET', path: '/folders', field: 'Query.topFolders', shape: 'list', paged: true, when: { param: 'folderPath', values: ['/'] } },
  { method: 'GET', path: '/folders', field: 'Query.folderByPath', shape: 'object' },
  { method: 'POST', path: '/folders', field: 'Mutation.createFolder', shape: 'object', body: 'input' },
  { method: 'POST', path: '/folders/copy', field: 'Mutation.copyFolder', shape: 'object', body: 'input' },
  { method: 'PUT', path: '/folders/move', field: 'Mutation.moveFolder', shape: 'object', body: 'input' },
  { method: 'GET', path: '/folders/:id', field: 'Query.folder', shape: 'object' },
  { method: 'POST', path: '/folders/:id', field: 'Mutation.createChildFolder', shape: 'object', body: 'input' },
  { method: 'PUT', path: '/folders/:id', field: 'Mutation.updateFolder', shape: 'object', body: 'input' },
  { method: 'DELETE', path: '/folders/:id', field: 'Mutation.deleteFolder', shape: 'none' },
  { method: 'GET', path: '/folders/:id/folders', field: 'Query.childFolders', shape: 'list', paged: true },
  { method: 'GET', path: '/folders/:id/indexfields', field: 'Query.folderIndexFields', shape: 'list' },
  { method: 'GET', path: '/folders/:folderId/indexfields/:id', field: 'Query.folderIndexField', shape: 'object' },
  { method: 'PUT', path: '/folders/:folderId/indexfields/:id', field: 'Mutation.updateFolderIndexField', shape: 'none', body: 'input' },
  { method: 'DELETE', path: '/folders/:folderId/indexfields/:id', field: 'Mutation.removeFolderIndexField', shape: 'none' },
  // Files (docs/decisions.md, "Files")
  { method: 'POST', path: '/files', field: 'Mutation.uploadFile', shape: 'object', body: 'input', upload: true },
  { method: 'GET', path: '/files', field: 'Query.documentFileByQuery', shape: 'object', file: 'stored' },
  { method: 'GET', path: '/files/:id', field: 'Query.documentFile', shape: 'object', file: 'stored' },
  // Folder security (docs/decisions.md, "Folder security")
  { method: 'GET', path: '/folders/:folderId/securitymembers', field: 'Query.folderSecurityMembers', shape: 'list', paged: true },
  { method: 'PUT', path: '/folders/:folderId/securitymembers', field: 'Mutation.updateFolderSecurityMembers', shape: 'object', body: 'input' },
  { method: 'GET', path: '/folders/:folderId/securitymembers/:memberId', field: 'Query.folderSecurityMember', shape: 'object' },
  { method: 'PUT', path: '/folders/:folderId/securitymembers/:memberId', field: 'Mutation.setFolderSecurityMember', shape: 'object', body: 'input' },
  { method: 'DELETE', path: '/folders/:folderId/securitymembers/:memberId', field: 'Mutation.removeFolderSecurityMember', shape: 'object' },
  { method: 'GET', path: '/securitymembers', field: 'Query.securityMembers', shape: 'list', paged: true },
  { method: 'POST', path: '/securitymembers', field: 'Mutation.addSecurityMember', shape: 'object', body: 'input', status: 201 },
  { method: 'PUT', path: '/securitymembers', field: 'Mutation.addSecurityMember', shape: 'object', body: 'input' },
  { method: 'DELETE', path: '/securitymembers', field: 'Mutation.removeSecurityMember', shape: 'none' },
  { method: 'GET', path: '/folders/:folderId/indexfields/:id/selectoptions', field: 'Query.folderIndexFieldOptions', shape: 'list', paged: true },
  // Drop-down lists (docs/decisions.md, "Drop-down lists")
  { method: 'GET', path: '/lists', field: 'Query.dropDownLists', shape: 'list', paged: true },
  { method: 'POST', path: '/lists', field: 'Mutation.createDropDownList', shape: 'object', body: 'input' },
  { method: 'GET', path: '/lists/:id', field: 'Query.dropDownList', shape: 'object' },
  { method: 'PUT', path: '/lists/:id', field: 'Mutation.updateDropDownList', shape: 'object', body: 'input' },
  { method: 'DELETE', path: '/lists/:id', field: 'Mutation.deleteDropDownList', shape: 'none' },
  { method: 'GET', path: '/lists/:id/items', field: 'Query.dropDownListItems', shape: 'list' },
  { method: 'GET', path: '/lists/:id/items/:itemId', field: 'Query.dropDownListItem', shape: 'object' },
  { method: 'DELETE', path: '/lists/:id/items', field: 'Mutation.deleteDropDownListItems', shape: 'none' },
  // Index field definitions (docs/decisions.md, "Index fields")
  { method: 'GET', path: '/indexfields', field: 'Query.indexFields', shape: 'list', paged: true },
  { method: 'POST', path: '/indexfields', field: 'Mutation.createIndexField', shape: 'object', body: 'input' },
  { method: 'POST', path: '/indexfields/MoveIndexFieldAfter', field: 'Mutation.moveIndexFieldAfter', shape: 'object', body: 'input' },
  { method: 'GET', path: '/indexfields/:id', field: 'Query.indexField', shape: 'object' },
  { method: 'PUT', path: '/indexfields/:id', field: 'Mutation.updateIndexField', shape: 'object', body: 'input' },
  { method: 'DELETE', path: '/indexfields/:id', field: 'Mutation.deleteIndexField', shape: 'none' },
  { method: 'PUT', path: '/indexfields/:id/folders/:folderId', field: 'Mutation.relateIndexFieldToFolder', shape: 'object' },
  // The fields documents have, as the Node client's getDocumentFields reads them (docs/decisions.md, "Document fields")
  { method: 'GET', path: '/documentfields', field: 'Query.documentFields', shape: 'list' },
  { method: 'GET', path: '/documentfields/:name', field: 'Query.documentField', shape: 'object' },
  // Documents (docs/decisions.md, "Documents")
  { method: 'GET', path: '/documents', field: 'Query.documents', shape: 'list', paged: true },
  { method: 'POST', path: '/documents', field: 'Mutation.createDocument', shape: 'object', body: 'input', upload: true },
  { method: 'GET', path: '/documents/:documentId', field: 'Query.document', shape: 'object' },
  // Zip files of documents (docs/decisions.md, "Zip files"), as the Node client names them
  { method: 'POST', path: '/documents/CreateDocumentZipFile', field: 'Mutation.createDocumentZipFile', shape: 'object', body: 'input' },
  { method: 'GET', path: '/documents/GetDocumentZipFileStatus', field: 'Query.documentZipFile', shape: 'object' },
  { method: 'GET', path: '/documents/DownloadDocumentZipFile', field: 'Query.readyDocumentZipFile', shape: 'object', file: 'stored', fileType: 'application/zip' },
  { method: 'GET', path: '/lastdocuments', field: 'Query.lastDocuments', shape: 'list', paged: true },
  { method: 'GET', path: '/frequentdocuments', field: 'Query.frequentDocuments', shape: 'list', paged: true },
  { method: 'DELETE', path: '/documents/:documentId', field: 'Mutation.deleteDocument', shape: 'none' },
  { method: 'GET', path: '/documents/revisions/:revisionId', field: 'Query.documentRevisionById', shape: 'object', params: { revisionId: 'id' } },
  { method: 'DELETE', path: '/documents/revisions/:revisionId', field: 'Mutation.deleteDocumentRevision', shape: 'none' },
  { method: 'POST', path: '/documents/:documentId/copy', field: 'Mutation.copyDocument', shape: 'object', body: 'input' },
  { method: 'PUT', path: '/documents/:documentId/move', field: 'Mutation.moveDocument', shape: 'object', body: 'input' },
  { method: 'PUT', path: '/documents/:documentId/expiration', field: 'Mutation.setDocumentExpiration', shape: 'object', body: 'input' },
  { method: 'PUT', path: '/documents/:documentId/status', field: 'Mutation.setDocumentCheckIn', shape: 'object', body: 'input' },
  { method: 'GET', path: '/documents/:documentId/revisions', field: 'Query.documentRevisions', shape: 'list', paged: true },
  { method: 'GET', path: '/documents/:documentId/revisions/:id', field: 'Query.documentRevision', shape: 'object' },
  // The .NET client's GetFolderDocumentsCount: `data` is the count.
  { method: 'GET', path: '/folders/:id/documents', field: 'Query.folderDocumentCount', shape: 'object', when: { param: 'metaonly', values: ['true', '1'] } },
  { method: 'GET', path: '/folders/:id/documents', field: 'Query.folderDocuments', shape: 'list', paged: true },
  { method: 'GET', path: '/documents/:documentId/indexfields', field: 'Query.documentIndexFields', shape: 'list' },
  { method: 'PUT', path: '/documents/:documentId/indexfields', field: 'Mutation.setDocumentIndexFields', shape: 'list', body: 'input' },
  { method: 'GET', path: '/documents/:documentId/indexfields/:fieldId', field: 'Query.documentIndexField', shape: 'object' },
  { method: 'PUT', path: '/documents/:documentId/indexfields/:fieldId', field: 'Mutation.setDocumentIndexField', shape: 'object', body: 'input' },
  { method: 'GET', path: '/documents/:documentId/revisions/:id/indexfields', field: 'Query.revisionIndexFields', shape: 'list' },
  { method: 'GET', path: '/documents/:documentId/revisions/:id/indexfields/:fieldId', field: 'Query.revisionIndexField', shape: 'object' },
  { method: 'PUT', path: '/forminstance/:formId/relateDocument', field: 'Mutation.relateDocumentByDocId', shape: 'none', when: { param: 'relateToDocId', values: ['*'] } },
  { method: 'PUT', path: '/forminstance/:formId/relateDocument', field: 'Mutation.relateDocument', shape: 'none' },
  { method: 'PUT', path: '/forminstance/:formId/unrelateDocument', field: 'Mutation.unrelateDocumentByDocId', shape: 'none', when: { param: 'relateToDocId', values: ['*'] } },
  { method: 'PUT', path: '/forminstance/:formId/unrelateDocument', field: 'Mutation.unrelateDocument', shape: 'none' },
  { method: 'GET', path: '/forminstance/:formId/documents', field: 'Query.formDocuments', shape: 'list', paged: true },
  // Document types (docs/decisions.md, "Document types")
  { method: 'GET', path: '/documenttypes', field: 'Query.documentTypes', shape: 'list', paged: true },
  { method: 'POST', path: '/documenttypes', field: 'Mutation.createDocumentType', shape: 'object', body: 'input' },
  { method: 'GET', path: '/documenttypes/:id', field: 'Query.documentType', shape: 'object' },
  { method: 'PUT', path: '/documenttypes/:id', field: 'Mutation.updateDocumentType', shape: 'object', body: 'input' },
  { method: 'DELETE', path: '/documenttypes/:id', field: 'Mutation.deleteDocumentType', shape: 'none' },
  // Alerts (docs/decisions.md, "Alerts"): the clients' subscribe and unsubscribe calls, and reads of them
  { method: 'GET', path: '/alertevents', field: 'Query.alertEvents', shape: 'list', paged: true },
  { method: 'GET', path: '/alertevents/:eventId', field: 'Query.alertEvent', shape: 'object' },
  { method: 'GET', path: '/alerts', field: 'Query.alertSubscriptions', shape: 'list', paged: true },
  { method: 'GET', path: '/alerts/:id', field: 'Query.alertSubscription', shape: 'object' },
  { method: 'DELETE', path: '/alerts/:id', field: 'Mutation.deleteAlertSubscription', shape: 'none' },
  { method: 'GET', path: '/folders/:id/alerts', field: 'Query.folderAlerts', shape: 'list', paged: true },
  { method: 'POST', path: '/folders/:id/alerts/:eventId', field: 'Mutation.subscribeFolderAlert', shape: 'object' },
  { method: 'DELETE', path: '/folders/:id/alerts/:eventId', field: 'Mutation.unsubscribeFolderAlert', shape: 'none' },
  { method: 'GET', path: '/documents/:documentId/alerts', field: 'Query.documentAlerts', shape: 'list', paged: true },
  { method: 'POST', path: '/documents/:documentId/alerts/:eventId', field: 'Mutation.subscribeDocumentAlert', shape: 'object' },
  { method: 'DELETE', path: '/documents/:documentId/alerts/:eventId', field: 'Mutation.unsubscribeDocumentAlert', shape: 'none' },
  // Saved searches (docs/decisions.md, "Saved searches"), as the Node client names them
  { method: 'GET', path: '/savedsearches', field: 'Query.savedSearches', shape: 'list', paged: true },
  { method: 'POST', path: '/savedsearches', field: 'Mutation.createSavedSearch', shape: 'object', body: 'input' },
  { method: 'GET', path: '/savedsearches/:asid', field: 'Query.savedSearch', shape: 'object' },
  { method: 'PUT', path: '/savedsearches/:asid', field: 'Mutation.updateSavedSearch', shape: 'object', body: 'input' },
  { method: 'DELETE', path: '/savedsearches/:asid', field: 'Mutation.deleteSavedSearch', shape: 'none' },
  { method: 'GET', path: '/savedsearchdocuments/:savedSearchId', field: 'Query.savedSearchDocuments', shape: 'list', paged: true },
  { method: 'GET', path: '/savedSearchIndexFields', field: 'Query.savedSearchIndexFields', shape: 'list', paged: true },
  // Persisted data
  { method: 'GET', path: '/persisteddata', field: 'Query.persistedDataList', shape: 'list', paged: true },
  { method: 'POST', path: '/persisteddata', field: 'Mutation.createPersistedData', shape: 'object', body: 'input', allFields: true },
  { method: 'GET', path: '/persisteddata/:id', field: 'Query.persistedData', shape: 'object' },
  { method: 'PUT', path: '/persisteddata/:id', field: 'Mutation.updatePersistedData', shape: 'object', body: 'input', allFields: true },
  { method: 'DELETE', path: '/persisteddata/:id', field: 'Mutation.deletePersistedData', shape: 'object' },
  // Scripts, run by the outside process (docs/decisions.md, "Scripts")
  { method: 'GET', path: '/scripts', field: 'Query.scripts', shape: 'list', paged: true },
  { method: 'GET', path: '/scripts/:id', field: 'Query.script', shape: 'object' },
  { method: 'POST', path: '/scripts', field: 'Mutation.runScript', shape: 'object', body: 'input', anyJson: true, outside: true },
  { method: 'POST', path: '/scripts/:id', field: 'Mutation.runScript', shape: 'object', body: 'input', anyJson: true, outside: true },
  // The clients' completion of a workflow's script (docs/decisions.md, "Not served")
  { method: 'POST', path: '/scripts/CompleteWorkflowScript', handler: 'notServed', scope: 'tenant', reason: 'workflows do not exist in this service, so there is no workflow execution to complete' },
  // Scheduled processes (docs/decisions.md, "Scheduled processes")
  { method: 'GET', path: '/outsideprocesses', field: 'Query.scheduledProcesses', shape: 'list', paged: true },
  { method: 'GET', path: '/outsideprocesses/:id', field: 'Query.scheduledProcess', shape: 'object' },
  { method: 'PUT', path: '/scheduledProcess/Run', field: 'Mutation.runScheduledProcesses', shape: 'list' },
  { method: 'GET', path: '/scheduledProcess/:token', field: 'Query.scheduledRun', shape: 'object', params: { token: 'id' } },
  { method: 'POST', path: '/scheduledProcess/:token', field: 'Mutation.completeScheduledRun', shape: 'object' },
  // E-mail (docs/decisions.md, "E-mail")
  { method: 'GET', path: '/emails', field: 'Query.emails', shape: 'list', paged: true },
  { method: 'GET', path: '/emails/:id', field: 'Query.email', shape: 'object' },
  { method: 'GET', path: '/emails/:messageId/attachments/:id', field: 'Query.emailAttachmentFile', shape: 'object', file: 'content' },
  { method: 'POST', path: '/emails', field: 'Mutation.sendEmail', shape: 'object', body: 'input', status: 201, attachments: true, refusalsAs200: true },
];
