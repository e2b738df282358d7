/**
 * Pre-population: a template's fields with values from a persisted data dictionary, its keys
 * matched to field keys case-insensitively (an exact-case key wins over another spelling).
 * `GET formtemplates/{id}/forms/new?persistedDataId=` answers `prefilledFields`; creating a form
 * from a dictionary takes `prefillValues` (posted values win there).
 */
import type { AppContext } from '../context.js';
import { badRequest } from '../errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../nesting.js';
import { loadRow } from '../read/resolvers.js';
import { resource } from '../read/registry.js';
import { templateRow } from './template-row.js';
import { MAX_FIELDS } from './form-fields.js';
import { keptNumberText, shownNumber, unstorable } from './validate.js';

type Row = Record<string, unknown>;

export interface PrefilledField {
  id: string;
  key: string;
  label: string;
  fieldType: number;
  required: boolean;
  /** The dictionary's value as text; null when no key matched (or no dictionary was named). */
  value: string | null;
}

export interface Prefill {
  templateId: string;
  revisionId: string;
  persistedDataId: string | null;
  fields: PrefilledField[];
}

/**
 * A dictionary value as form text: strings as they are, numbers and booleans written out, objects
 * as JSON; one nested too deep to write (kept before such dictionaries were refused) as none. A
 * number whose text JSON parsing may have changed (`12345678901234567890`, `1e400`) is a 400
 * naming the field, as that number posted to the form is: the form would keep other digits.
 */
function asText(v: unknown, key: string): string | null {
  if (v === null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return nestsDeeperThan(v, MAX_JSON_DEPTH) ? null : JSON.stringify(v);
  if (typeof v !== 'number') return String(v);
  const text = keptNumberText(v);
  if (text !== undefined) return text;
  throw badRequest(
    `The persisted data's value for the form field '${key}' is a JSON number (read as ${shownNumber(v)}) whose digits may have been rounded or rewritten when read: a form keeps only text as written, so store it in the dictionary as a string, or post a value for '${key}'.`,
    { field: 'persistedDataId' },
  );
}

/** The dictionary's entries by lower-case key; an exact-case key wins, otherwise the first in the text. */
function byLowerKey(dictionary: Record<string, unknown>): (key: string) => unknown {
  const lower = new Map<string, unknown>();
  for (const [k, v] of Object.entries(dictionary)) if (!lower.has(k.toLowerCase())) lower.set(k.toLowerCase(), v);
  return (key) => (Object.hasOwn(dictionary, key) ? dictionary[key] : lower.get(key.toLowerCase()));
}

/**
 * The fields (not deleted) of the revision the template's get answers, with the dictionary's values.
 * A dictionary the caller cannot read (unknown, expired, another user's own) is a 404.
 */
export async function prefilledFields(ctx: AppContext, templateIdOrName: string, persistedDataId?: string | null, posted: (f: Row) => boolean = () => false): Promise<Prefill> {
  const [t, dictionary] = await Promise.all([
    templateRow(ctx, templateIdOrName),
    persistedDataId ? loadRow(ctx, resource('PersistedData'), persistedDataId) : undefined,
  ]);
  const fields = await ctx.loaders.many(resource('FormTemplateRevision'), 'fields', { limit: MAX_FIELDS, offset: 0 }).load(t.revisionId as string);
  const valueOf = dictionary ? byLowerKey(JSON.parse(dictionary.persistedData as string) as Record<string, unknown>) : () => undefined;
  return {
    templateId: t.id as string,
    revisionId: t.revisionId as string,
    persistedDataId: (dictionary?.id as string | undefined) ?? null,
    fields: fields.filter((f: Row) => !f.deleted).map((f: Row) => {
      // A field the caller posts a value for takes none of the dictionary's.
      const v = posted(f) ? undefined : valueOf(f.key as string);
      return {
        id: f.id as string, key: f.key as string, label: f.label as string, fieldType: f.fieldType as number, required: f.required as boolean,
        value: v === undefined ? null : asText(v, f.key as string),
      };
    }),
  };
}

/** Field key -> value for the fields the dictionary fills. */
const filled = (fields: PrefilledField[]): Record<string, string> => Object.fromEntries(fields.filter((f) => f.value !== null).map((f) => [f.key, f.value!]));

/** Field key -> value for the fields the dictionary fills (for creating a form from it). */
export async function prefillValues(ctx: AppContext, templateIdOrName: string, persistedDataId: string): Promise<Record<string, string>> {
  return filled((await prefilledFields(ctx, templateIdOrName, persistedDataId)).fields);
}

/**
 * A new form's body from a dictionary: the dictionary's values for the template's fields, under
 * the posted ones (a posted key wins for its field, whether it names the field's key in any case
 * or its id). A body that is no object is passed on as it is, for the form's own check to refuse.
 */
export async function prefilledBody(ctx: AppContext, templateIdOrName: string, persistedDataId: string, posted: unknown): Promise<unknown> {
  if (posted != null && (typeof posted !== 'object' || Array.isArray(posted))) return posted;
  const given = new Set(Object.keys(posted ?? {}).map((k) => k.trim().toLowerCase()));
  const isGiven = (f: Row | PrefilledField) => given.has((f.key as string).toLowerCase()) || given.has((f.id as string).toLowerCase());
  const unnamed = (await prefilledFields(ctx, templateIdOrName, persistedDataId, isGiven)).fields.filter((f) => !isGiven(f));
  // Dictionaries stored before such text was refused: a 400 naming the key, not JSONB's 500.
  for (const f of unnamed) {
    const why = f.value === null ? undefined : unstorable(f.value);
    if (why) throw badRequest(`The persisted data's value for the form field '${f.key}' holds ${why}, which a form cannot store: post a value for '${f.key}' instead.`, { field: 'persistedDataId' });
  }
  return { ...filled(unnamed), ...(posted as Record<string, unknown> | null) };
}
