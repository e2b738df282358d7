/**
 * Persisted data rules: what a new dictionary must hold (docs/decisions.md, "Persisted data").
 * Who may see and delete one is the resource's row access (src/resources/persisted-data.ts).
 */
import type { AppContext } from '../context.js';
import { PersistedData } from '../entities/persisted-data.js';
import { badRequest } from '../errors.js';
import { newId } from '../ids.js';
import { editable } from './editable.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../nesting.js';
import { keptNumberText, maxLength, optionalString, requireName, shownNumber, unstorable } from './validate.js';
import { isoInstant } from '../scalars.js';

type Input = Record<string, unknown>;

export const LIMITS = { name: 256, persistedData: 1_000_000, dataMimeType: 100, linkedObjectId: 256 } as const;

/** The dictionary as JSON text of an object (sent as that text, or as the object itself). */
function dictionaryText(v: unknown): string {
  if (v === undefined || v === null) throw badRequest("The mandatory field 'persistedData' is missing.", { field: 'persistedData' });
  if (typeof v === 'string' && v.trim() === '') throw badRequest("The field 'persistedData' must not be blank: send JSON text of an object, '{}' for an empty dictionary.", { field: 'persistedData' });
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest("The field 'persistedData' must be JSON text of an object (a dictionary of names and values); it is not valid JSON.", { field: 'persistedData' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest("The field 'persistedData' must be JSON text of an object (a dictionary of names and values), not an array or a single value.", { field: 'persistedData' });
  }
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) throw badRequest(`The field 'persistedData' nests more than ${MAX_JSON_DEPTH} levels deep.`, { field: 'persistedData' });
  refuseUnstorable(parsed, typeof v !== 'string');
  return maxLength(text, LIMITS.persistedData, 'persistedData');
}

interface At {
  key: string;
  parent?: At;
}

/** `outer.inner`: the keys down to a value, each shown as JSON shows it (`\u0000` visible), built only for a refusal. */
function pathOf(at: At): string {
  const keys: string[] = [];
  for (let a: At | undefined = at; a; a = a.parent) keys.unshift(JSON.stringify(a.key).slice(1, -1).slice(0, 100));
  return keys.join('.');
}

/**
 * Refuses a dictionary (keys and values, nested too) holding text PostgreSQL cannot keep as sent:
 * its escaped JSON text stores, but a form made from it could not (JSONB refuses `\u0000`).
 */
function refuseUnstorable(parsed: object, sentAsObject: boolean): void {
  const stack: [unknown, At | undefined][] = [[parsed, undefined]];
  while (stack.length) {
    const [v, at] = stack.pop()!;
    const why = typeof v === 'string' ? unstorable(v) : undefined;
    if (why) throw badRequest(`The field 'persistedData' holds ${why} in the value of '${pathOf(at!)}', which cannot be stored as sent.`, { field: 'persistedData' });
    // `1e400`: JSON reads it as Infinity, as no reader of the dictionary could use; a request body's is refused alike.
    if (typeof v === 'number' && !Number.isFinite(v)) {
      throw badRequest(`The field 'persistedData' holds a number too large to keep in the value of '${pathOf(at!)}': send it as a string.`, { field: 'persistedData' });
    }
    // Sent as an object, its numbers were parsed with the body: one whose text parsing may change
    // (past 2^53, -0, more than 15 digits) would be stored otherwise than written.
    if (sentAsObject && typeof v === 'number' && keptNumberText(v) === undefined) {
      throw badRequest(
        `The field 'persistedData' holds a number in the value of '${pathOf(at!)}' (${shownNumber(v)}) that JSON parsing may already have rounded or rewritten, so it cannot be kept as written: send the dictionary as JSON text, or that number as a string.`,
        { field: 'persistedData' },
      );
    }
    if (!v || typeof v !== 'object') continue;
    for (const [key, child] of Object.entries(v)) {
      const here = { key, parent: at };
      const inKey = unstorable(key);
      if (inKey) throw badRequest(`The field 'persistedData' holds ${inKey} in the key '${pathOf(here)}', which cannot be stored as sent.`, { field: 'persistedData' });
      stack.push([child, here]);
    }
  }
}

function expiry(input: Input): Date | null {
  const v = optionalString(input, 'expirationDateUtc');
  // The text `null` too: the PHP client's form body says "never" so (a form has no null).
  if (v === undefined || v.trim() === '' || /^null$/i.test(v.trim())) return null;
  const at = isoInstant(v);
  if (!at) {
    throw badRequest(`The field 'expirationDateUtc' must be an ISO 8601 date-time such as 2030-01-31T12:00:00 (UTC unless a zone is given), from year 1 to 9999 in UTC, got '${v.trim().slice(0, 64)}'.`, { field: 'expirationDateUtc' });
  }
  if (at.getTime() <= Date.now()) throw badRequest("The field 'expirationDateUtc' must lie in the future (or be null: never expires).", { field: 'expirationDateUtc' });
  return at;
}

/**
 * The fields `input` sends, each checked (a refusal is a 400 naming it, in this order); a key not
 * sent is left out, but for `name` and `persistedData` on a create (`create`), which must be sent.
 */
function sentFields(input: Input, create: boolean) {
  const sent = (key: string) => create || input[key] !== undefined;
  const name = sent('name') ? requireName(input, LIMITS.name) : undefined;
  const data = sent('persistedData') ? dictionaryText(input.persistedData) : undefined;
  const given = (key: string) => input[key] !== undefined;
  return {
    ...(name !== undefined ? { name } : {}),
    // A DataScope (src/scalars.ts): 0 or 1 when sent.
    ...(given('scope') ? { scope: (input.scope as number | null) ?? 0 } : {}),
    ...(data !== undefined ? { data, dataLength: data.length } : {}),
    ...(given('dataMimeType') ? { dataMimeType: maxLength(optionalString(input, 'dataMimeType')?.trim() || 'application/json', LIMITS.dataMimeType, 'dataMimeType') } : {}),
    ...(given('linkedObjectId') ? { linkedObjectId: maxLength(optionalString(input, 'linkedObjectId') ?? '', LIMITS.linkedObjectId, 'linkedObjectId') } : {}),
    // A LinkedObjectType (src/scalars.ts): one of its codes when sent.
    ...(given('linkedObjectType') ? { linkedObjectType: (input.linkedObjectType as number | null) ?? 0 } : {}),
    ...(given('expirationDateUtc') ? { expiresAt: expiry(input) } : {}),
  };
}

/** A new dictionary owned by the caller; every field checked, each refusal a 400 naming it. */
export function createPersistedData(ctx: AppContext, input: Input): PersistedData {
  const fields = sentFields(input, true) as ReturnType<typeof sentFields> & { name: string; data: string; dataLength: number };
  return ctx.em().create(PersistedData, {
    id: newId(), scope: 0, dataMimeType: 'application/json', linkedObjectId: '', linkedObjectType: 0, expiresAt: null,
    ...fields, createdById: ctx.caller.userId, modifiedById: ctx.caller.userId,
  });
}

/**
 * `PUT persistedData/{id}` (the .NET client's PersistedClientData.Update, which sends the whole
 * record): the keys sent change as on create, the rest stay; the record's own keys (`id`,
 * `dataLength`, the audit) are not input and are ignored. Its row is locked to the end.
 */
export async function updatePersistedData(ctx: AppContext, id: string, input: Input): Promise<void> {
  const changes = sentFields(input, false);
  if (Object.keys(changes).length === 0) throw badRequest(`Send at least one of: ${UPDATABLE.join(', ')}.`);
  const row = await editable(ctx, PersistedData, id, 'Persisted data', true);
  ctx.em().assign(row, { ...changes, modifiedById: ctx.caller.userId });
}

const UPDATABLE = ['name', 'scope', 'persistedData', 'dataMimeType', 'linkedObjectId', 'linkedObjectType', 'expirationDateUtc'];
