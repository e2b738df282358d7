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

export async function instanceFieldMap(ctx: AppContext, base: QueryFieldMap, templateRevisionId: string): Promise<QueryFieldMap> {
  const fields = await templateFields(ctx, templateRevisionId);
  const typed = new Map<string, QueryField>();
  for (const f of fields) {
    const key = f.key.toLowerCase();
    if (f.fieldType === FIELD_TYPES.calendarfield) typed.set(key, { sql: sql`form_value_timestamp(t.values ->> ${key})`, type: 'datetime' });
    if (f.fieldType === FIELD_TYPES.cellfield) typed.set(key, { sql: sql`form_value_numeric(t.values ->> ${key})`, type: 'numeric' });
  }
  return { get: (name) => typed.get(name) ?? base.get(name), keys: () => base.keys() };
}
