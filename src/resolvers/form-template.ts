/** Form template reads by id, revision id or name, the fields descriptions, and the writes (src/domain/form-templates.ts). Who may call each: schema/form-template.graphql. */
import type { AppContext } from '../context.js';
import { FormTemplate, FormTemplateField, type FormTemplateRevision } from '../entities/form-template.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { checkKey, fieldTypeCode, MAX_FIELDS } from '../domain/form-fields.js';
import { addDraft, assertNameFree, draftOf, lockTemplate, release, touch } from '../domain/form-templates.js';
import { designerFields, writingDesignerFields } from '../domain/form-xml.js';
import { templateRow } from '../domain/template-row.js';
import { templatesFieldMaps } from '../domain/form-instance-fields.js';
import { maxLength, oneLine, optionalString, requireName, requireString, uniquely } from '../domain/validate.js';
import { matchingQ, relationResolvers, reread } from '../read/resolvers.js';
import { queryFieldMap } from '../read/fields.js';
import { resource } from '../read/registry.js';
import { selectRows } from '../read/rows.js';
import { sql } from '../sql.js';

type Input = Record<string, unknown>;

const TEMPLATE = resource('FormTemplate');
const REVISION = resource('FormTemplateRevision');
const FIELD = resource('FormField');
const INSTANCE = resource('FormInstance');

/** Labels of the base keys (the spec's fixed two-letter service prefix is `VV`). */
const BASE_LABELS: Record<string, string> = {
  revisionid: 'DhID',
  instancename: 'DhDocID',
  modifydate: 'VVModifyDate',
  modifyby: 'VVModifyBy',
  modifybyid: 'VVModifyByUsID',
  createdate: 'VVCreateDate',
  createby: 'VVCreateBy',
  createbyid: 'VVCreateByUsID',
};
const BASE_FIELDS = ['RevisionId', 'InstanceName', 'ModifyDate', 'ModifyById', 'ModifyBy', 'CreateDate', 'CreateById', 'CreateBy'];

/** Every field of a revision: at most MAX_FIELDS, so one page holds them all. */
const fieldsOf = (ctx: AppContext, revisionId: string) => ctx.loaders.many(REVISION, 'fields', { limit: MAX_FIELDS, offset: 0 }).load(revisionId);

async function fieldsDescription(ctx: AppContext, idOrName: string) {
  const t = await templateRow(ctx, idOrName);
  const fields: Record<string, string> = { ...BASE_LABELS };
  for (const f of await fieldsOf(ctx, t.revisionId as string)) {
    fields[`${f.deleted ? '__' : ''}${(f.key as string).toLowerCase()}`] = f.label as string;
  }
  return { fields, baseFields: BASE_FIELDS };
}

async function designer(ctx: AppContext, idOrName: string) {
  const t = await templateRow(ctx, idOrName);
  const fields = await fieldsOf(ctx, t.latestRevisionId as string);
  return { formFieldList: fields.filter((f) => !f.deleted).map((f) => ({ id: f.id, name: f.key, formFieldType: f.fieldType })) };
}

async function createTemplate(ctx: AppContext, input: Input) {
  const name = requireName(input, 256);
  const description = maxLength(optionalString(input, 'description') ?? '', 4000, 'description');
  // One line, as the instance names (DhDocID) it begins are shown and sent in headers.
  const instancePrefix = oneLine(maxLength(optionalString(input, 'instanceNamePrefix') ?? `${name}-`, 64, 'instanceNamePrefix'), 'instanceNamePrefix');
  await assertNameFree(ctx, name);
  const t = ctx.em().create(FormTemplate, {
    id: newId(), name, description, instancePrefix, createdById: ctx.caller.userId, modifiedById: ctx.caller.userId,
  });
  await uniquely(`A form template named '${name}'`, () => ctx.em().flush());
  await addDraft(ctx, t, []);
  return reread(ctx, TEMPLATE, t.id);
}

async function importTemplate(ctx: AppContext, idOrName: string, input: Input) {
  // An unknown template is a 404 whatever the body holds.
  const t = await lockTemplate(ctx, idOrName);
  const xml = optionalString(input, 'fileUpload', 'fileUpload');
  if (xml === undefined) throw badRequest("The mandatory file part 'fileUpload' (the template XML) is missing.", { field: 'fileUpload' });
  if (!xml.trim()) throw badRequest("The file part 'fileUpload' (the template XML) is empty: send the designer's XML export in it.", { field: 'fileUpload' });
  const fields = designerFields(xml, ctx.services.config.formImportMaxBytes);
  const description = optionalString(input, 'description');
  const templateRevision = optionalString(input, 'revision')?.trim() || undefined;
  if (description !== undefined) t.description = maxLength(description, 4000, 'description');
  const revision = templateRevision && oneLine(maxLength(templateRevision, 64, 'revision'), 'revision');
  await writingDesignerFields(() => addDraft(ctx, t, fields, revision));
  return reread(ctx, TEMPLATE, t.id);
}

/** The draft's fields, and the one with this key (case-insensitively) or a 404. */
/** A live field of the draft: a deleted one keeps its key and values (read as `__<key>`) but takes no edit. */
async function draftField(ctx: AppContext, draft: FormTemplateRevision, key: string) {
  const all = await ctx.em().find(FormTemplateField, { revisionId: draft.id });
  const field = all.find((f) => f.key.toLowerCase() === key.trim().toLowerCase());
  if (!field) throw notFound(`Form field '${key}' was not found in the template's draft.`);
  if (field.deleted) throw notFound(`Form field '${field.key}' was deleted from the template's draft; its values read as '__${field.key.toLowerCase()}' and it takes no more edits.`);
  return { field, all };
}

function assertKeyFree(all: FormTemplateField[], key: string, except?: FormTemplateField) {
  const taken = all.find((f) => f !== except && f.key.toLowerCase() === key.toLowerCase());
  if (taken?.deleted) throw conflict(`The draft has a deleted field named '${taken.key}', whose values forms keep (read as '__${taken.key.toLowerCase()}'): choose another name.`, { field: 'name' });
  if (taken) throw conflict(`The draft already has a field named '${key}'.`, { field: 'name' });
}

function options(input: Input): string[] | undefined {
  const v = input.options;
  if (v === undefined || v === null) return undefined;
  return (v as string[]).map((o, i) => maxLength(o, 400, `options[${i}]`));
}

/** Runs a field edit on the template's draft and answers the draft as read back. */
async function onDraft(ctx: AppContext, idOrName: string, edit: (draft: FormTemplateRevision) => Promise<void>) {
  const t = await lockTemplate(ctx, idOrName);
  const draft = await draftOf(ctx, t);
  await edit(draft);
  touch(ctx, draft);
  touch(ctx, t);
  await uniquely('A field of that name', () => ctx.em().flush());
  return reread(ctx, REVISION, draft.id);
}

const label = (input: Input, fallback: string) => maxLength(optionalString(input, 'label')?.trim() || fallback, 400, 'label');

/** A revision of the template (as templateRow names it), or a 404: another template's revision is not found here. */
async function revisionOf(ctx: AppContext, templateIdOrName: string, id: string) {
  const template = await templateRow(ctx, templateIdOrName);
  const revision = await ctx.loaders.byId(REVISION).load(id.toLowerCase());
  if (!revision || revision.templateId !== template.id) throw notFound(`Form template revision '${id}' was not found in form template '${templateIdOrName}'.`);
  return revision;
}

export const resolvers = {
  // A template's forms take `q` as formInstances does for it: its fields' types and deleted keys.
  FormTemplate: relationResolvers(TEMPLATE, 'forms', (reader, ids) => templatesFieldMaps(reader, queryFieldMap(INSTANCE), ids)),
  Query: {
    formTemplate: async (_: unknown, { id, q }: { id: string; q?: string | null }, ctx: AppContext) => matchingQ(ctx, TEMPLATE, await templateRow(ctx, id), q, id),
    formTemplateRevision: (_: unknown, a: { templateId: string; id: string }, ctx: AppContext) => revisionOf(ctx, a.templateId, a.id),
    formTemplateField: async (_: unknown, a: { templateId: string; revisionId: string; id: string }, ctx: AppContext) => {
      const revision = await revisionOf(ctx, a.templateId, a.revisionId);
      const [field] = await selectRows(ctx.reader, FIELD, { where: [sql`t.revision_id = ${revision.id as string}`, sql`t.field_id = ${a.id.toLowerCase()}`] });
      if (!field) throw notFound(`Form field '${a.id}' was not found in revision '${a.revisionId}' of form template '${a.templateId}'.`);
      return field;
    },
    formTemplateFields: (_: unknown, { id }: { id: string }, ctx: AppContext) => fieldsDescription(ctx, id),
    formDesignerFields: (_: unknown, { id }: { id: string }, ctx: AppContext) => designer(ctx, id),
  },
  Mutation: {
    createFormTemplate: (_: unknown, { input }: { input: Input }, ctx: AppContext) => createTemplate(ctx, input),
    importFormTemplate: (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) => importTemplate(ctx, id, input),
    releaseFormTemplate: async (_: unknown, { id }: { id: string }, ctx: AppContext) => {
      const t = await lockTemplate(ctx, id);
      await release(ctx, t);
      return reread(ctx, TEMPLATE, t.id);
    },
    addFormTemplateField: (_: unknown, { id, input }: { id: string; input: Input }, ctx: AppContext) =>
      onDraft(ctx, id, async (draft) => {
        const key = checkKey(requireString(input, 'name'), undefined, 'name');
        const all = await ctx.em().find(FormTemplateField, { revisionId: draft.id });
        assertKeyFree(all, key);
        if (all.length >= MAX_FIELDS) throw badRequest(`A template may hold at most ${MAX_FIELDS} fields (deleted ones included).`);
        ctx.em().create(FormTemplateField, {
          id: newId(), revisionId: draft.id, fieldId: newId(), key, label: label(input, key),
          fieldType: fieldTypeCode(input.fieldType), required: input.required === true, options: options(input) ?? [],
          ord: Math.max(0, ...all.map((f) => f.ord)) + 1, deleted: false,
        });
      }),
    updateFormTemplateField: (_: unknown, a: { id: string; key: string; input: Input }, ctx: AppContext) =>
      onDraft(ctx, a.id, async (draft) => {
        const { field, all } = await draftField(ctx, draft, a.key);
        const name = optionalString(a.input, 'name');
        if (name !== undefined) {
          const key = checkKey(name, field.key, 'name');
          assertKeyFree(all, key, field);
          field.label = label(a.input, key);
          field.key = key;
        } else if (a.input.label != null) field.label = label(a.input, field.label);
        if (a.input.fieldType != null) field.fieldType = fieldTypeCode(a.input.fieldType);
        if (typeof a.input.required === 'boolean') field.required = a.input.required;
        field.options = options(a.input) ?? field.options;
      }),
    deleteFormTemplateField: (_: unknown, a: { id: string; key: string }, ctx: AppContext) =>
      onDraft(ctx, a.id, async (draft) => {
        (await draftField(ctx, draft, a.key)).field.deleted = true;
      }),
  },
};
