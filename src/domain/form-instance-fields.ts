/**
 * A template's fields as instance reads see them. `q` over its instances: the base fields, then
 * the form fields by their type (a calendar field compares as a date-time, a cell field as a
 * number, a value that is not one as NULL, and `eq ''`/`ne ''`/`in ('')` whether it holds any text), then
 * any other key as text (the resource's dynamic fields). Values: in the form's order, a deleted
 * field's under `__<key>`.
 */
import DataLoader from 'dataloader';
import type { AppContext } from '../context.js';
import { badRequest } from '../errors.js';
import { compileQText, type QueryField, type QueryFieldMap } from '../query/index.js';
import { resource } from '../read/registry.js';
import { run, selectRows, type Reader } from '../read/rows.js';
import { join, MAX_PARAMETERS, raw, sql, type Sql } from '../sql.js';
import { FIELD_TYPES } from './form-fields.js';

const FIELD = resource('FormField');

type Values = Record<string, string>;

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
 * The fields (deleted ones too, in the form's order) of the revision each template's get answers
 * (its released one, else its latest draft), by template id: one statement for the whole batch.
 */
async function fieldsOfTemplates(reader: Reader, templateIds: readonly string[]): Promise<Map<string, TemplateField[]>> {
  const rows = await selectRows<TemplateField & { template: string }>(reader, FIELD, {
    extra: raw(', tp.id as "template"'),
    from: raw(' join form_template tp on tp.tenant_id = t.tenant_id and t.revision_id = coalesce(tp.released_revision_id, tp.latest_revision_id)'),
    where: [sql`tp.id = any(${templateIds}::uuid[])`],
    order: FIELD.order,
  });
  const byTemplate = new Map<string, TemplateField[]>(templateIds.map((id) => [id, []]));
  for (const r of rows) byTemplate.get(r.template)!.push(r);
  return byTemplate;
}

/** instanceFieldMap for each template of a batch (`FormTemplate.forms` under many templates), by template id. */
export async function templatesFieldMaps(reader: Reader, base: QueryFieldMap, templateIds: readonly string[]): Promise<Map<string, QueryFieldMap>> {
  const fields = await fieldsOfTemplates(reader, templateIds);
  return new Map(templateIds.map((id) => [id, fieldMapOf(base, fields.get(id)!)]));
}

/**
 * `q` over the forms related to forms `formIds`, which may be of several templates: each template's
 * forms by its own fields (a cell field as a number, a calendar field as a date, a deleted one as
 * `__<key>`), as that template's list reads them, or a 400 where one of them refuses it. REST's
 * `forminstance/{id}/forms` and GraphQL's nested `FormInstance.relatedForms` (a batch of parents) both read it.
 */
export async function relatedFormsFilter(reader: Reader, base: QueryFieldMap, formIds: readonly string[], q: string): Promise<Sql> {
  const templates = (await run<{ id: string }>(reader, sql`select distinct f.template_id as id from form_instance_relation l
    join form_instance f on f.tenant_id = l.tenant_id and f.id = l.related_id where l.tenant_id = ${reader.tenantId} and l.form_id = any(${formIds}::uuid[])`)).map((r) => r.id);
  // No related form: q is still checked, as on any list.
  if (templates.length === 0) {
    compileQText(q, base);
    return sql`false`;
  }
  const maps = await templatesFieldMaps(reader, base, templates);
  const filter = sql`(${join(templates.map((id) => sql`(t.template_id = ${id} and ${compileQText(q, maps.get(id)!)!})`), ' or ')})`;
  // Repeated per template, a long q could pass what one statement takes (one template's alone cannot).
  if (filter.values.length > MAX_PARAMETERS - 100) {
    throw badRequest(`The q is too long to apply to related forms of ${templates.length} templates (it is read once for each): send a shorter one.`, { field: 'q' });
  }
  return filter;
}

/**
 * `base` with the fields of one template revision: typed, and deleted ones as `__<key>` (the plain
 * key hidden). Lookups go by lower-case key; the message lists each form key as the template spells it.
 */
function fieldMapOf(base: QueryFieldMap, fields: readonly TemplateField[]): QueryFieldMap {
  const declared = base.names();
  const typed = new Map<string, QueryField>();
  const live = new Map<string, string>();
  const deleted = new Map<string, string>();
  const hidden = new Set<string>();
  for (const f of fields) {
    const key = f.key.toLowerCase();
    let field: QueryField | undefined;
    const keptText = sql`t.values ->> ${key}`;
    if (f.fieldType === FIELD_TYPES.calendarfield) field = { sql: sql`form_value_timestamp(${keptText})`, type: 'datetime', shownAsKept: true, keptText, foldsCaseOnly: true };
    if (f.fieldType === FIELD_TYPES.cellfield) field = { sql: sql`form_value_numeric(${keptText})`, type: 'numeric', keptText, foldsCaseOnly: true };
    if (!f.deleted) {
      // A base field of the same name (`revision`) wins, as it does in the record.
      if (declared.has(key)) continue;
      live.set(key, f.key);
      if (field) typed.set(key, field);
      continue;
    }
    typed.set(deletedKey(key), field ?? { sql: keptText, type: 'string', nullIsEmpty: true, foldsCaseOnly: true });
    // Every deleted field is offered as `__<key>`, one sharing a base field's name (`revision`) too; only the others hide their plain key.
    deleted.set(deletedKey(key), `__${f.key}`);
    if (!declared.has(key)) hidden.add(key);
  }
  // The live form fields too: the names an unknown field's message offers instead.
  const names = new Map([...declared, ...live, ...deleted]);
  return {
    get: (name) => typed.get(name) ?? (hidden.has(name) ? undefined : base.get(name)),
    names: () => names,
  };
}

/** How a template's forms show their values: its live keys and its deleted ones, each in the form's order. */
interface ShownOrder {
  live: string[];
  deleted: string[];
  /** Every key a field of the revision has: a stored key outside it (a renamed field's old one) comes last. */
  named: ReadonlySet<string>;
}

/**
 * Each template's ShownOrder, by template id: one statement for every form a request shows,
 * whatever its template, and each template's order made once, not per form.
 */
function shownOrders(ctx: AppContext): DataLoader<string, ShownOrder> {
  return ctx.loaders.cached('FormInstance.shownOrder', () => new DataLoader(async (templateIds: readonly string[]) => {
    const byTemplate = await fieldsOfTemplates(ctx.reader, templateIds);
    return templateIds.map((id) => {
      const fields = byTemplate.get(id)!;
      const keys = (deleted: boolean) => fields.filter((f) => f.deleted === deleted).map((f) => f.key.toLowerCase());
      const [live, deleted] = [keys(false), keys(true)];
      return { live, deleted, named: new Set([...live, ...deleted]) };
    });
  }));
}

/**
 * A form's values (of an instance or of one of its revisions) as every read shows them: in the
 * form's order (not JSONB's, which sorts keys by length), then each deleted field's under
 * `__<key>`, then any key no field of the revision has. Stored values keep the plain key, which
 * writes read. An array index key (`7`) still comes first: JavaScript orders such keys so.
 */
export async function shownValues(row: { templateId: string; values: Values }, ctx: AppContext): Promise<Values> {
  const order = await shownOrders(ctx).load(row.templateId);
  const values = row.values;
  if (order.deleted.length === 0 && inLiveOrder(values, order.live)) return values;
  const shown: Values = {};
  let n = 0;
  for (const k of order.live) if (Object.hasOwn(values, k)) (shown[k] = values[k]), n++;
  for (const k of order.deleted) if (Object.hasOwn(values, k)) defineKey(shown, deletedKey(k), values[k]), n++;
  if (n < Object.keys(values).length) for (const k of Object.keys(values)) if (!order.named.has(k)) defineKey(shown, k, values[k]);
  return shown;
}

/** The values' keys are live keys in the form's order (same-length keys, as JSONB sorts them): nothing to move. */
function inLiveOrder(values: Values, live: readonly string[]): boolean {
  let j = 0;
  for (const k in values) {
    while (j < live.length && live[j] !== k) j++;
    if (j++ === live.length) return false;
  }
  return true;
}

/** A key as an own key, `__proto__` too (a deleted `proto__`), not the object's prototype. */
function defineKey(o: Values, k: string, v: string) {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}
