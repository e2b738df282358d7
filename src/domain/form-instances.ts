/**
 * Form instance writes. An instance's name takes the next number of its template's sequence
 * (an UPDATE ... RETURNING: concurrent creates queue on the template's row, so no number repeats).
 * A revision is made on the form's latest revision, whose row its caller holds locked, so
 * concurrent revisions queue and each is the next.
 */
import type { AppContext } from '../context.js';
import { insertRows, updateRows } from '../db/tenant-writes.js';
import { badRequest, namedList, requireAgreement, type SentCopy } from '../errors.js';
import { newId } from '../ids.js';
import { sql } from '../sql.js';
import { deletedKey, templateFields } from './form-instance-fields.js';

export type Values = Record<string, string>;
type Row = Record<string, unknown>;

/** Longest form field value kept. */
export const MAX_VALUE = 100_000;

interface FieldRule {
  key: string;
  required: boolean;
}

interface FieldRules {
  /** The live (not deleted) fields of a template revision, by lower-case key. */
  byKey: Map<string, FieldRule>;
  /** The lower-case key of the live field a posted key names: its key or its id, in any case. */
  named: Map<string, string>;
  /** A deleted field's `__<key>`, as reads name it, by what a post may name it: key, id or `__<key>`. To say why a post naming one is refused. */
  deleted: Map<string, string>;
}

async function fieldRules(ctx: AppContext, revisionId: string): Promise<FieldRules> {
  const fields = await templateFields(ctx, revisionId);
  const live = fields.filter((f) => !f.deleted);
  return {
    byKey: new Map(live.map((f) => [f.key.toLowerCase(), { key: f.key, required: f.required }])),
    named: new Map(live.flatMap((f) => [[f.id.toLowerCase(), f.key.toLowerCase()], [f.key.toLowerCase(), f.key.toLowerCase()]])),
    deleted: new Map(fields.filter((f) => f.deleted).flatMap((f) => [f.id.toLowerCase(), f.key.toLowerCase(), deletedKey(f.key)].map((n) => [n, deletedKey(f.key)]))),
  };
}

/** A refusal's field (AppError) for the form field posted as `key`: a key of the mutation's JSON `input`. */
const atKey = (key: string) => ({ field: `input.${key}` });

/**
 * A posted body as lower-case key -> string. Each posted key names a field by its key or id, in any
 * case; unknown keys and non-scalar values are 400s naming them. A field named more than once (by
 * key and id, in two cases) must have the same text in each, the rule of every argument sent
 * twice (`requireAgreement`).
 */
function checkValues(body: unknown, rules: FieldRules): Values {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object mapping form field keys to values.', { field: 'input' });
  const copies = new Map<string, SentCopy[]>();
  const unknown: string[] = [];
  const deleted: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    const key = rules.named.get(k.trim().toLowerCase());
    if (key === undefined) {
      (rules.deleted.has(k.trim().toLowerCase()) ? deleted : unknown).push(k);
      continue;
    }
    if (v !== null && typeof v === 'object') throw badRequest(`The value of form field '${k}' must be a string, not an object or array.`, atKey(k));
    const text = v === null ? '' : String(v);
    if (text.length > MAX_VALUE) throw badRequest(`The value of form field '${k}' is longer than ${MAX_VALUE} characters.`, atKey(k));
    const copy = { sent: v, as: k, kept: text };
    const earlier = copies.get(key);
    if (earlier) earlier.push(copy);
    else copies.set(key, [copy]);
  }
  const out: Values = {};
  for (const [key, sent] of copies) {
    if (sent.length > 1) requireAgreement(`form field '${rules.byKey.get(key)!.key}'`, sent);
    out[key] = sent[0].kept as string;
  }
  const refusals = [];
  if (deleted.length) {
    const one = deleted.length === 1;
    const fields = namedList(deleted, (k) => `'${k.slice(0, 100)}' (read as '${rules.deleted.get(k.trim().toLowerCase())}')`);
    refusals.push(`The form field${one ? '' : 's'} ${fields} ${one ? 'was' : 'were'} deleted from the template: no value can be posted for ${one ? 'it' : 'them'}.`);
  }
  if (unknown.length) refusals.push(`The template has no form field named ${namedList(unknown)}.`);
  const refused = [...deleted, ...unknown];
  if (refusals.length) throw badRequest(refusals.join(' '), refused.length === 1 ? atKey(refused[0]) : {});
  return out;
}

function checkRequired(values: Values, rules: FieldRules) {
  // Own keys only: a required `constructor` without a value has none (not Object.prototype's).
  const missing = [...rules.byKey].filter(([key, r]) => r.required && !(Object.hasOwn(values, key) && values[key].trim())).map(([, r]) => r.key);
  if (missing.length) throw badRequest(`The required form field${missing.length > 1 ? 's' : ''} ${namedList(missing)} must have a value.`, missing.length === 1 ? atKey(missing[0]) : {});
}

/**
 * A new instance of the template (a row of the template resource) holding `body` (field key ->
 * value; pre-population passes its merged values here). Returns the new revision's id.
 */
export async function createInstance(ctx: AppContext, template: Row, body: unknown): Promise<string> {
  const rules = await fieldRules(ctx, template.revisionId as string);
  const values = checkValues(body, rules);
  checkRequired(values, rules);
  const [{ seq, prefix }] = await updateRows<{ seq: string; prefix: string }>(
    ctx.reader,
    'form_template',
    { next_instance_seq: sql`next_instance_seq + 1` },
    sql`t.id = ${template.id}`,
    sql`next_instance_seq - 1 as seq, instance_prefix as prefix`,
  );
  const formId = newId();
  const revisionId = newId();
  const json = JSON.stringify(values);
  const by = ctx.caller.userId;
  await insertRows(ctx.reader, 'form_instance', [
    {
      id: formId, template_id: template.id, revision_id: revisionId, revision: 1, seq,
      instance_name: instanceName(prefix, Number(seq)), values: sql`${json}::jsonb`, created_by_id: by, modified_by_id: by,
    },
  ]);
  await keepRevision(ctx, revisionId, formId, 1, json);
  return revisionId;
}

/** The instance name: the prefix and the sequence number, six digits at least. */
export const instanceName = (prefix: string, seq: number) => `${prefix}${String(seq).padStart(6, '0')}`;

async function keepRevision(ctx: AppContext, id: string, formId: string, revision: number, json: string) {
  await insertRows(ctx.reader, 'form_instance_revision', [
    { id, form_id: formId, revision, values: sql`${json}::jsonb`, created_by_id: ctx.caller.userId },
  ]);
}

/**
 * A new revision of `instance` (a row of the instance resource at its latest revision, read under
 * the form row's lock): its values plus `body`'s, checked against the fields of the template's
 * current revision. Returns the new revision's id.
 */
export async function reviseInstance(ctx: AppContext, instance: Row, templateRevisionId: string, body: unknown): Promise<string> {
  const rules = await fieldRules(ctx, templateRevisionId);
  const values: Values = { ...(instance.values as Values), ...checkValues(body, rules) };
  checkRequired(values, rules);
  const revisionId = newId();
  const json = JSON.stringify(values);
  const [won] = await updateRows<{ revision: number }>(
    ctx.reader,
    'form_instance',
    { revision_id: revisionId, revision: sql`revision + 1`, values: sql`${json}::jsonb`, modified_at: sql`now()`, modified_by_id: ctx.caller.userId },
    sql`t.id = ${instance.formId} and t.revision_id = ${instance.revisionId}`,
    sql`revision`,
  );
  if (!won) throw new Error(`Form ${String(instance.formId)} was revised past ${String(instance.revisionId)} under its row lock`);
  await keepRevision(ctx, revisionId, instance.formId as string, won.revision, json);
  return revisionId;
}
