/**
 * Form template writes. Every change to a template's revisions first locks the template's row,
 * so concurrent imports, releases and field edits run one after another: revision numbers never
 * clash and a second release finds the first one done.
 */
import { LockMode } from '@mikro-orm/core';
import type { AppContext } from '../context.js';
import { FormTemplate, FormTemplateField, FormTemplateRevision } from '../entities/form-template.js';
import { conflict } from '../errors.js';
import { newId } from '../ids.js';
import { dbNow } from '../db/clock.js';
import { nameEquals } from '../db/lookup.js';
import type { FieldSpec } from './form-xml.js';
import { templateRow } from './template-row.js';

/** Revision `status` codes. */
export const STATUS = { draft: 0, released: 1, superseded: 2 } as const;

/**
 * A template as every route names one (templateRow), locked for the rest of the mutation.
 * Templates are never deleted, so the row found is there to lock.
 */
export async function lockTemplate(ctx: AppContext, idOrName: string): Promise<FormTemplate> {
  const { id } = await templateRow(ctx, idOrName);
  return ctx.em().findOneOrFail(FormTemplate, { id: id as string }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

export async function assertNameFree(ctx: AppContext, name: string) {
  const taken = await ctx.em().findOne(FormTemplate, nameEquals('name', name), { fields: ['id'] });
  if (taken) throw conflict(`A form template named '${name}' already exists.`, { field: 'name' });
}

/**
 * Stamps the caller and the database's clock as the row's last change: the date is set, not left
 * to the update, since a change of the row's parts alone (a draft's fields) leaves the row itself
 * unchanged when the caller already stamped it, and the unit of work would write no update.
 */
export function touch(ctx: AppContext, row: { modifiedById?: string | null; modifiedAt?: unknown }) {
  row.modifiedById = ctx.caller.userId;
  row.modifiedAt = dbNow();
}

/** A new draft revision after the template's latest, holding `fields`. */
export async function addDraft(ctx: AppContext, t: FormTemplate, fields: FieldSpec[], templateRevision?: string): Promise<FormTemplateRevision> {
  const latest = t.latestRevisionId ? await ctx.em().findOneOrFail(FormTemplateRevision, { id: t.latestRevisionId }) : null;
  const revision = (latest?.revision ?? 0) + 1;
  const em = ctx.em();
  const draft = em.create(FormTemplateRevision, {
    id: newId(),
    templateId: t.id,
    revision,
    templateRevision: templateRevision ?? String(revision),
    status: STATUS.draft,
    createdById: ctx.caller.userId,
    modifiedById: ctx.caller.userId,
  });
  // The entities declare no relations, so the unit of work does not order their inserts: each
  // table's rows are flushed after those they reference.
  await em.flush();
  fields.forEach((f, i) => em.create(FormTemplateField, { id: newId(), revisionId: draft.id, ord: i + 1, ...f }));
  t.latestRevisionId = draft.id;
  touch(ctx, t);
  await em.flush();
  return draft;
}

/** The draft field edits work on: the latest revision when it is a draft, else a new draft copying it. */
export async function draftOf(ctx: AppContext, t: FormTemplate): Promise<FormTemplateRevision> {
  const latest = await ctx.em().findOneOrFail(FormTemplateRevision, { id: t.latestRevisionId! });
  if (latest.status === STATUS.draft) return latest;
  const fields = await ctx.em().find(FormTemplateField, { revisionId: latest.id }, { orderBy: { ord: 'asc' } });
  return addDraft(ctx, t, fields.map(({ fieldId, key, label, fieldType, required, options, deleted }) => ({ fieldId, key, label, fieldType, required, options, deleted })));
}

/**
 * Releases the latest revision; the one released before is superseded. Releasing a revision
 * already released changes nothing.
 */
export async function release(ctx: AppContext, t: FormTemplate): Promise<void> {
  const latest = await ctx.em().findOneOrFail(FormTemplateRevision, { id: t.latestRevisionId! });
  if (latest.status === STATUS.released) return;
  if (t.releasedRevisionId) {
    const before = await ctx.em().findOneOrFail(FormTemplateRevision, { id: t.releasedRevisionId });
    before.status = STATUS.superseded;
    touch(ctx, before);
  }
  latest.status = STATUS.released;
  touch(ctx, latest);
  t.releasedRevisionId = latest.id;
  touch(ctx, t);
  await ctx.em().flush();
}
