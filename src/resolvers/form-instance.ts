/** Form instance reads by any of their ids, relations between forms, and the writes (src/domain/form-instances.ts). */
import type { AppContext } from '../context.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { createInstance, reviseInstance } from '../domain/form-instances.js';
import { formPdf } from '../domain/form-pdf.js';
import { prefilledBody } from '../domain/prefill.js';
import { instanceFieldMap, relatedFormsFilter, shownValues } from '../domain/form-instance-fields.js';
import { queryFieldMap } from '../read/fields.js';
import { DateTime } from '../scalars.js';
import { underRelation } from '../read/parent-keys.js';
import { listPage, relationResolvers, reread, type Page } from '../read/resolvers.js';
import type { ListArgs } from '../read/paging.js';
import { resource } from '../read/registry.js';
import { fieldOf, selectRows, type RowQuery } from '../read/rows.js';
import { deleteRows, insertRows } from '../db/tenant-writes.js';
import { sql } from '../sql.js';
import { templateRow } from '../domain/template-row.js';

type Row = Record<string, unknown>;
type Id = { id: string };

const INSTANCE = resource('FormInstance');
const REVISION = resource('FormInstanceRevision');
const FIELD = resource('FormField');

/**
 * The instance a client's id names: a revision id (an older one reads as that revision: its
 * values and who made it when) or the form id. A 404 otherwise. `lock`: the form's row stays
 * locked to the end of the mutation (RowQuery.lock), so a delete committed meanwhile is that 404.
 * `field`: the argument that sent the id (its 404 names it, AppError), not for the form a path names.
 */
export async function instanceRow(ctx: AppContext, id: string, lock: RowQuery['lock'] = false, field?: string): Promise<Row> {
  const key = id.toLowerCase();
  const [row] = await selectRows<Row>(ctx.reader, INSTANCE, {
    where: [sql`(t.revision_id = ${key} or t.id = ${key} or t.id = ${fieldOf(ctx.reader, REVISION, 'formId', [sql`t.id = ${key}`])})`],
    lock,
  });
  if (!row) throw notFound(`Form instance '${id}' was not found.`, { field });
  if (row.revisionId === key || row.formId === key) return row;
  const [old] = await selectRows<Row>(ctx.reader, REVISION, { where: [sql`t.id = ${key}`] });
  // Deleted with its form between the two reads.
  if (!old) throw notFound(`Form instance '${id}' was not found.`, { field });
  return {
    ...row, revisionId: old.id, revision: old.revision, values: old.values,
    modifyDate: old.createDate, modifyById: old.createById, modifyBy: old.createBy,
  };
}

/** The form `relateToDocId` names by its instance name (as names are found: any case and Unicode normal form; a 409 when several forms share it). */
async function instanceByDocId(ctx: AppContext, docId: string): Promise<Row> {
  const rows = await selectRows<Row>(ctx.reader, INSTANCE, { where: [sql`name_key(t.instance_name) = name_key(${docId})`], limit: 2, withoutDynamic: true, lock: 'keyShare' });
  const field = { field: 'relateToDocId' };
  if (rows.length === 0) throw notFound(`Form instance '${docId}' was not found.`, field);
  if (rows.length > 1) throw conflict(`More than one form instance is named '${docId}': name it by its id.`, field);
  return rows[0];
}

/** The instance under the template the path names, or a 404; `lock` as instanceRow's. */
async function instanceOf(ctx: AppContext, templateIdOrName: string, id: string): Promise<{ template: Row; instance: Row }> {
  const template = await templateRow(ctx, templateIdOrName);
  const instance = await instanceRow(ctx, id);
  if (instance.templateId !== template.id) throw notFound(`Form instance '${id}' was not found in form template '${templateIdOrName}'.`);
  return { template, instance };
}

/** The instance's PDF: the fields of the template revision a get answers, then any other stored value under its key. */
async function pdf(ctx: AppContext, templateIdOrName: string, id: string) {
  const { template, instance } = await instanceOf(ctx, templateIdOrName, id);
  const fields = await selectRows<Row>(ctx.reader, FIELD, { where: [sql`t.revision_id = ${template.revisionId}`], order: FIELD.order });
  const values = instance.values as Record<string, string>;
  // Own keys only: a field named `constructor` or `toString` with no value has none, not Object.prototype's.
  const valueOf = (f: Row): string | undefined => {
    const key = (f.key as string).toLowerCase();
    return Object.hasOwn(values, key) ? values[key] : undefined;
  };
  const shown = fields.filter((f) => !f.deleted || valueOf(f) !== undefined);
  const keys = new Set(shown.map((f) => (f.key as string).toLowerCase()));
  const bytes = await formPdf({
    templateName: template.name as string,
    instanceName: instance.instanceName as string,
    revision: instance.revision as number,
    revisionId: instance.revisionId as string,
    createDate: DateTime.serialize(instance.createDate) as string,
    createBy: instance.createBy as string,
    modifyDate: DateTime.serialize(instance.modifyDate) as string,
    modifyBy: instance.modifyBy as string,
    fields: [
      ...shown.map((f) => ({ label: f.label as string, value: valueOf(f) ?? '' })),
      ...Object.entries(values).filter(([k]) => !keys.has(k)).map(([label, value]) => ({ label, value })),
    ],
  });
  return { fileName: `${instance.instanceName as string}.pdf`, contentType: 'application/pdf', content: Buffer.from(bytes).toString('base64') };
}

/**
 * A new revision of `form` (any of its revisions, as `id` named it) on top of its latest revision,
 * read under the form's row lock: concurrent posts queue, each the next revision, and nothing
 * a revision in between changed is lost. A delete committed meanwhile is an unknown form's 404.
 */
async function revise(ctx: AppContext, form: Row, id: string, input: unknown) {
  const [latest] = await selectRows<Row>(ctx.reader, INSTANCE, { where: [sql`t.id = ${form.formId}`], lock: true });
  if (!latest) throw notFound(`Form instance '${id}' was not found.`);
  const template = await templateRow(ctx, latest.templateId as string);
  const revisionId = await reviseInstance(ctx, latest, template.revisionId as string, input);
  return reread(ctx, INSTANCE, revisionId);
}

/** The form ids of a relation: form `formId` (any of its ids, held against its delete) and the one `other` reads. */
async function relation(ctx: AppContext, formId: string, other: () => Promise<Row>) {
  const [x, y] = [await instanceRow(ctx, formId, 'keyShare'), await other()];
  if (x.formId === y.formId) throw badRequest('A form cannot be related to itself.');
  return [x.formId as string, y.formId as string];
}

/** Relates two forms, both ways round; relating them again changes nothing. */
async function relate(ctx: AppContext, formId: string, other: () => Promise<Row>) {
  const [x, y] = await relation(ctx, formId, other);
  await insertRows(ctx.reader, 'form_instance_relation', [{ form_id: x, related_id: y }, { form_id: y, related_id: x }], true);
  return true;
}

/** Removes the relation both ways round; forms that are not related are a 404, as unrelateDocument's. */
async function unrelate(ctx: AppContext, formId: string, other: () => Promise<Row>, named: string) {
  const [x, y] = await relation(ctx, formId, other);
  if (!(await deleteRows(ctx.reader, 'form_instance_relation', sql`(t.form_id = ${x} and t.related_id = ${y}) or (t.form_id = ${y} and t.related_id = ${x})`))) {
    throw notFound(`Form '${formId}' is not related to form '${named}'.`);
  }
  return true;
}

type ById = { formId: string; relateToId: string };
type ByDocId = { formId: string; relateToDocId: string };

/** Read wherever a form is shown (lists, relations, a write's answer): in the form's order, deleted fields under `__<key>`. */
const values = { values: (row: { templateId: string; values: Record<string, string> }, _: unknown, ctx: AppContext) => shownValues(row, ctx) };

export const resolvers = {
  // Its related forms filtered as REST's forminstance/{id}/forms: each by its own template's fields.
  FormInstance: { ...values, ...relationResolvers(INSTANCE, 'relatedForms', { filter: (reader, formIds, q) => relatedFormsFilter(reader, queryFieldMap(INSTANCE), formIds, q) }) },
  FormInstanceRevision: values,
  Query: {
    formInstances: async (_: unknown, args: ListArgs & { templateId: string }, ctx: AppContext): Promise<Page<Row>> => {
      const template = await templateRow(ctx, args.templateId);
      const fields = args.q ? await instanceFieldMap(ctx, queryFieldMap(INSTANCE), template.revisionId as string) : undefined;
      return listPage(ctx, INSTANCE, args, [underRelation(resource('FormTemplate'), 'forms', template.id as string)], fields);
    },
    formInstance: async (_: unknown, a: { templateId: string; revisionId: string }, ctx: AppContext) =>
      (await instanceOf(ctx, a.templateId, a.revisionId)).instance,
    formInstancePdf: (_: unknown, a: { templateId: string; revisionId: string }, ctx: AppContext) => pdf(ctx, a.templateId, a.revisionId),
    relatedForms: async (_: unknown, args: ListArgs & { formId: string }, ctx: AppContext) => {
      const form = await instanceRow(ctx, args.formId);
      const q = args.q ? await relatedFormsFilter(ctx.reader, queryFieldMap(INSTANCE), [form.formId as string], args.q) : undefined;
      return listPage(ctx, INSTANCE, { ...args, q: undefined }, [underRelation(INSTANCE, 'relatedForms', form.formId as string), ...(q ? [q] : [])]);
    },
  },
  Mutation: {
    createFormInstance: async (_: unknown, a: { templateId: string; input?: unknown; persistedDataId?: string | null }, ctx: AppContext) => {
      const template = await templateRow(ctx, a.templateId);
      const body = a.persistedDataId ? await prefilledBody(ctx, template.id as string, a.persistedDataId, a.input) : a.input;
      const revisionId = await createInstance(ctx, template, body);
      return reread(ctx, INSTANCE, revisionId);
    },
    reviseFormInstance: async (_: unknown, a: { templateId: string; revisionId: string; input?: unknown }, ctx: AppContext) =>
      revise(ctx, (await instanceOf(ctx, a.templateId, a.revisionId)).instance, a.revisionId, a.input),
    reviseForm: async (_: unknown, a: { formId: string; input?: unknown }, ctx: AppContext) =>
      revise(ctx, await instanceRow(ctx, a.formId), a.formId, a.input),
    deleteFormInstance: async (_: unknown, { id }: Id, ctx: AppContext) => {
      const form = await instanceRow(ctx, id);
      // None deleted: another delete got it first (this one waited for its row).
      if (!(await deleteRows(ctx.reader, 'form_instance', sql`t.id = ${form.formId}`))) throw notFound(`Form instance '${id}' was not found.`);
      return true;
    },
    relateForm: (_: unknown, a: ById, ctx: AppContext) => relate(ctx, a.formId, () => instanceRow(ctx, a.relateToId, 'keyShare', 'relateToId')),
    relateFormByDocId: (_: unknown, a: ByDocId, ctx: AppContext) => relate(ctx, a.formId, () => instanceByDocId(ctx, a.relateToDocId)),
    unrelateForm: (_: unknown, a: ById, ctx: AppContext) => unrelate(ctx, a.formId, () => instanceRow(ctx, a.relateToId, 'keyShare', 'relateToId'), a.relateToId),
    unrelateFormByDocId: (_: unknown, a: ByDocId, ctx: AppContext) => unrelate(ctx, a.formId, () => instanceByDocId(ctx, a.relateToDocId), a.relateToDocId),
  },
};
