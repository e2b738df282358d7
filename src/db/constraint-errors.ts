/**
 * PostgreSQL's refusals as client errors, in one place. A concurrent change (a user deleted
 * while being added to a group, the same name taken twice at once) reaches the database's
 * constraints, not our checks: it answers 404 or 409, never 500. Messages name what conflicts,
 * never the values (the error's detail quotes them and is not passed on).
 */
import { AppError, conflict, notFound } from '../errors.js';

/** What a tenant table's rows are called in messages. */
const LABELS: Record<string, string> = {
  site: 'a site',
  user_group: 'a group',
  app_user: 'a user',
  api_client: 'an API client',
  group_member: 'a group membership',
  user_supervisor: 'a supervisor link',
  refresh_token: 'a refresh token',
  web_token: 'a web token',
  folder: 'a folder',
  document: 'a document',
  document_revision: 'a document revision',
  form_document: 'a relation between a form and a document',
  index_field: 'an index field',
  folder_index_field: 'an index field of a folder',
  document_index_value: "a document's index field value",
  folder_member: 'a security member of a folder',
  dropdown_list: 'a drop-down list',
  dropdown_item: 'a drop-down list item',
  document_file: "a document revision's file",
  scheduled_process: 'a scheduled process',
};

/** The row a foreign key points at, by constraint (migrations/Migration20261125000000_tenant_keys.ts). */
const TARGETS: Record<string, string> = {
  user_group_site_fk: 'site',
  app_user_site_fk: 'site',
  group_member_group_fk: 'group',
  group_member_user_fk: 'user',
  user_supervisor_user_fk: 'user',
  user_supervisor_supervisor_fk: 'user',
  api_client_user_fk: 'user',
  refresh_token_user_fk: 'user',
  refresh_token_client_fk: 'API client',
  web_token_user_fk: 'user',
  folder_index_field_folder_fk: 'folder',
  folder_index_field_field_fk: 'index field',
  document_index_value_revision_fk: 'document revision',
  document_index_value_field_fk: 'index field',
  folder_member_folder_fk: 'folder',
  folder_member_user_fk: 'user',
  folder_member_group_fk: 'group',
  dropdown_item_list_fk: 'drop-down list',
  index_field_list_fk: 'drop-down list',
  folder_index_field_list_fk: 'drop-down list',
  document_file_revision_fk: 'document revision',
  document_checked_out_by_fk: 'user',
  scheduled_process_script_fk: 'script',
};

/**
 * The body's key a unique constraint is about (AppError.field), where one key alone decides it: a
 * name taken. A folder's path is not here: a create takes it from `name` or from `folderPath`, and
 * skips a path taken (src/domain/folders.ts); a rename names its `name`, a move or copy its
 * `targetFolderId` or `targetFolderPath` (`namingTaken`, src/domain/folder-moves.ts).
 */
const UNIQUE_KEYS: Record<string, string> = {
  user_group_name_uq: 'name',
  app_user_user_id_uq: 'userid',
  document_type_name_uq: 'name',
  dropdown_list_name_uq: 'name',
  form_template_name_uq: 'name',
  form_template_field_key_uq: 'name',
  index_field_label_uq: 'label',
  saved_search_name_uq: 'name',
  scheduled_process_name_uq: 'name',
  script_name_uq: 'name',
};

interface PgError {
  code?: unknown;
  table?: string;
  constraint?: string;
  detail?: string;
}

const AGAIN = 'Another change to the same data happened at the same time: try again.';

/** The key a unique violation (PostgreSQL's, or MikroORM's that copies it) is about, if one alone decides it (UNIQUE_KEYS). */
export const uniqueKeyOf = (err: unknown): string | undefined => UNIQUE_KEYS[(err as PgError | null)?.constraint ?? ''];

/**
 * The client error for a PostgreSQL constraint, serialization or deadlock error; undefined for
 * anything else. `field`: the key a unique violation is about, where the write knows it and no
 * one key decides the constraint (a folder's path: UNIQUE_KEYS).
 */
export function constraintError(err: unknown, field?: string): AppError | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as PgError;
  const what = LABELS[e.table ?? ''] ?? 'a record';
  switch (e.code) {
    case '23505':
      return conflict(`Such ${what.replace(/^an? /, '')} already exists (it may have just been created): choose another or try again.`, { field: field ?? uniqueKeyOf(e) });
    case '23503': {
      const target = TARGETS[e.constraint ?? ''] ?? 'record';
      // The referenced row is gone (an insert or update) or still needed (a delete).
      return /still referenced/.test(e.detail ?? '')
        ? conflict(`This ${target} is still referenced by ${what}: remove or reassign that first.`)
        : notFound(`The ${target} referred to was not found (it may have just been deleted).`);
    }
    case '40001':
    case '40P01':
      return new AppError('CONFLICT', AGAIN);
    default:
      return undefined;
  }
}

/**
 * A catch for a write that can lose a race on the unique index `constraint`, which no one key
 * decides (not in UNIQUE_KEYS): its 409 names `field`, the input's key the write knows the value
 * came from; any other error goes on as it was.
 */
export const namingTaken = (constraint: string, field: string) => (err: unknown): never => {
  const e = err as PgError | null;
  throw e?.code === '23505' && e.constraint === constraint ? constraintError(err, field)! : err;
};
