/**
 * `q` over a template's instances: the base fields, then the form fields by their type (a
 * calendar field compares as a date-time, a cell field as a number, a value that is not one as
 * NULL), then any other key as text (the resource's dynamic fields).
 */
import type { AppContext } from '../context.js';
import type { QueryField, QueryFieldMap } from '../query/index.js';
import { run } from '../read/rows.js';
import { sql } from '../read/sql.js';
import { FIELD_TYPES } from './form-fields.js';

export async function instanceFieldMap(ctx: AppContext, base: QueryFieldMap, templateRevisionId: string): Promise<QueryFieldMap> {
  const fields = await run<{ key: string; fieldType: number }>(
    ctx.reader,
    sql`select key, field_type as "fieldType" from form_template_field where tenant_id = ${ctx.tenantId} and revision_id = ${templateRevisionId}`,
  );
  const typed = new Map<string, QueryField>();
  for (const f of fields) {
    const key = f.key.toLowerCase();
    if (f.fieldType === FIELD_TYPES.calendarfield) typed.set(key, { sql: sql`form_value_timestamp(t.values ->> ${key})`, type: 'datetime' });
    if (f.fieldType === FIELD_TYPES.cellfield) typed.set(key, { sql: sql`form_value_numeric(t.values ->> ${key})`, type: 'numeric' });
  }
  return { get: (name) => typed.get(name) ?? base.get(name), keys: () => base.keys() };
}
