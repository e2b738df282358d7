/**
 * `q` over a template's instances: the base fields, then the form fields by their type (a
 * calendar field compares as a date-time, a cell field as a number, a value that is not one as
 * NULL), then any other key as text (the resource's dynamic fields).
 */
import type { AppContext } from '../context.js';
import type { QueryField, QueryFieldMap } from '../query/index.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql } from '../sql.js';
import { FIELD_TYPES } from './form-fields.js';

export interface TemplateField {
  key: string;
  fieldType: number;
  required: boolean;
  deleted: boolean;
}

/** The field definitions of a template revision, deleted ones too. */
export const templateFields = (ctx: AppContext, templateRevisionId: string): Promise<TemplateField[]> =>
  selectRows<TemplateField>(ctx.reader, resource('FormField'), { where: [sql`t.revision_id = ${templateRevisionId}`] });

/**
 * A deleted field's key as the API names it: `__<key>` (the spec: "A field key that starts with a
 * double underscore is a deleted field ... its definition and data remain and are accessible
 * through the API"). Values are stored under the plain key, which a later revision may revive.
 */
export const deletedKey = (key: string) => `__${key.toLowerCase()}`;

export async function instanceFieldMap(ctx: AppContext, base: QueryFieldMap, templateRevisionId: string): Promise<QueryFieldMap> {
  const fields = await templateFields(ctx, templateRevisionId);
  const typed = new Map<string, QueryField>();
  for (const f of fields) {
    const key = f.key.toLowerCase();
    let field: QueryField | undefined;
    if (f.fieldType === FIELD_TYPES.calendarfield) field = { sql: sql`form_value_timestamp(t.values ->> ${key})`, type: 'datetime' };
    if (f.fieldType === FIELD_TYPES.cellfield) field = { sql: sql`form_value_numeric(t.values ->> ${key})`, type: 'numeric' };
    if (field) typed.set(key, field);
    if (f.deleted) typed.set(deletedKey(key), field ?? { sql: sql`t.values ->> ${key}`, type: 'string' });
  }
  return { get: (name) => typed.get(name) ?? base.get(name), keys: () => base.keys() };
}

/** The plain keys of the template revision's deleted fields (one statement). */
export async function deletedKeysOf(ctx: AppContext, templateRevisionId: string): Promise<Set<string>> {
  return new Set((await templateFields(ctx, templateRevisionId)).filter((f) => f.deleted).map((f) => f.key.toLowerCase()));
}

/** An instance record with each deleted field's value under `__<key>`, as the template's field map names it. */
export function withDeletedKeys<R extends Record<string, unknown>>(row: R, deleted: Set<string>): R {
  const values = row.values as Record<string, unknown> | undefined;
  if (!values || deleted.size === 0 || !Object.keys(values).some((k) => deleted.has(k))) return row;
  return { ...row, values: Object.fromEntries(Object.entries(values).map(([k, v]) => [deleted.has(k) ? deletedKey(k) : k, v])) };
}
