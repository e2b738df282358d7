/**
 * A template's fields as instance reads see them. `q` over its instances: the base fields, then
 * the form fields by their type (a calendar field compares as a date-time, a cell field as a
 * number, a value that is not one as NULL), then any other key as text (the resource's dynamic
 * fields). Values: a deleted field's under `__<key>`.
 */
import DataLoader from 'dataloader';
import type { AppContext } from '../context.js';
import type { QueryField, QueryFieldMap } from '../query/index.js';
import { resource } from '../read/registry.js';
import { selectRows, type Reader } from '../read/rows.js';
import { raw, sql } from '../sql.js';
import { FIELD_TYPES } from './form-fields.js';

const FIELD = resource('FormField');

type Values = Record<string, string>;

const NONE: ReadonlySet<string> = new Set();

export interface TemplateField {
  id: string;
  key: string;
  fieldType: number;
  required: boolean;
  deleted: boolean;
}

/** The field definitions of a template revision, deleted ones too, in the form's order (what messages list). */
export const templateFields = (ctx: AppContext, templateRevisionId: string): Promise<TemplateField[]> =>
  selectRows<TemplateField>(ctx.reader, FIELD, { where: [sql`t.revision_id = ${templateRevisionId}`], order: FIELD.order });

/**
 * A deleted field's key as the API names it: `__<key>` (the spec: "A field key that starts with a
 * double underscore is a deleted field ... its definition and data remain and are accessible
 * through the API"). Values are stored under the plain key, which a later revision may revive.
 */
export const deletedKey = (key: string) => `__${key.toLowerCase()}`;

/**
 * `q`'s names are the display's: a deleted field is `__<key>`, and its plain key (which no live
 * field of the revision can have) is an unknown field, unless a base field has that name.
 */
export async function instanceFieldMap(ctx: AppContext, base: QueryFieldMap, templateRevisionId: string): Promise<QueryFieldMap> {
  return fieldMapOf(base, await templateFields(ctx, templateRevisionId));
}

/**
 * instanceFieldMap for each template of a batch (`FormTemplate.forms` under many templates), by
 * template id: the fields of the revision each one's get answers (its released one, else its
 * latest draft), all in one statement.
 */
export async function templatesFieldMaps(reader: Reader, base: QueryFieldMap, templateIds: readonly string[]): Promise<Map<string, QueryFieldMap>> {
  const rows = await selectRows<TemplateField & { template: string }>(reader, FIELD, {
    extra: raw(', tp.id as "template"'),
    from: raw(' join form_template tp on tp.tenant_id = t.tenant_id and t.revision_id = coalesce(tp.released_revision_id, tp.latest_revision_id)'),
    where: [sql`tp.id = any(${templateIds}::uuid[])`],
    order: FIELD.order,
  });
  return new Map(templateIds.map((id) => [id, fieldMapOf(base, rows.filter((r) => r.template === id))]));
}

/** `base` with the fields of one template revision: typed, and deleted ones as `__<key>` (the plain key hidden). */
function fieldMapOf(base: QueryFieldMap, fields: readonly TemplateField[]): QueryFieldMap {
  const declared = new Set(base.keys());
  const typed = new Map<string, QueryField>();
  const live = new Set<string>();
  const hidden = new Set<string>();
  for (const f of fields) {
    const key = f.key.toLowerCase();
    let field: QueryField | undefined;
    if (f.fieldType === FIELD_TYPES.calendarfield) field = { sql: sql`form_value_timestamp(t.values ->> ${key})`, type: 'datetime', shownAsKept: true };
    if (f.fieldType === FIELD_TYPES.cellfield) field = { sql: sql`form_value_numeric(t.values ->> ${key})`, type: 'numeric' };
    if (!f.deleted) {
      // A base field of the same name (`revision`) wins, as it does in the record.
      if (declared.has(key)) continue;
      live.add(key);
      if (field) typed.set(key, field);
      continue;
    }
    typed.set(deletedKey(key), field ?? { sql: sql`t.values ->> ${key}`, type: 'string', nullIsEmpty: true });
    if (!declared.has(key)) hidden.add(key);
  }
  return {
    get: (name) => typed.get(name) ?? (hidden.has(name) ? undefined : base.get(name)),
    // The live form fields too: the names an unknown field's message offers instead.
    keys: () => [...declared, ...live, ...[...hidden].map(deletedKey)],
  };
}

/**
 * The plain keys each form's template has deleted (in its released revision, else its latest
 * draft), by form id: one statement for every form a request shows, whatever its template.
 */
function deletedKeysByForm(ctx: AppContext): DataLoader<string, ReadonlySet<string>> {
  return ctx.loaders.cached('FormInstance.deletedKeys', () => new DataLoader(async (formIds: readonly string[]) => {
    const rows = await selectRows<{ key: string; form: string }>(ctx.reader, FIELD, {
      extra: raw(', fi.id as "form"'),
      from: raw(
        ' join form_template tp on tp.tenant_id = t.tenant_id and t.revision_id = coalesce(tp.released_revision_id, tp.latest_revision_id)' +
          ' join form_instance fi on fi.tenant_id = t.tenant_id and fi.template_id = tp.id',
      ),
      where: [sql`t.deleted`, sql`fi.id = any(${formIds}::uuid[])`],
    });
    const byForm = new Map<string, Set<string>>();
    for (const r of rows) {
      const keys = byForm.get(r.form) ?? new Set<string>();
      byForm.set(r.form, keys.add(r.key.toLowerCase()));
    }
    return formIds.map((id) => byForm.get(id) ?? NONE);
  }));
}

/**
 * A form's values (of an instance or of one of its revisions) as every read shows them: each
 * deleted field's under `__<key>`. Stored values keep the plain key, which writes read.
 */
export async function shownValues(row: { formId: string; values: Values }, ctx: AppContext): Promise<Values> {
  const deleted = await deletedKeysByForm(ctx).load(row.formId);
  if (deleted.size === 0 || !Object.keys(row.values).some((k) => deleted.has(k))) return row.values;
  return Object.fromEntries(Object.entries(row.values).map(([k, v]) => [deleted.has(k) ? deletedKey(k) : k, v]));
}
