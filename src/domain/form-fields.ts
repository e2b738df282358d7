/** Form field definitions: the type codes and the rules every revision's fields obey. */
import { badRequest } from '../errors.js';

/**
 * Field type codes (also `formFieldType` of the designer's field list), by the designer's
 * `FieldType` name, matched case-insensitively.
 */
export const FIELD_TYPES: Record<string, number> = {
  textbox: 1,
  textarea: 2,
  dropdownlist: 3,
  checkbox: 4,
  calendarfield: 5,
  cellfield: 6,
};

/** Designer elements that lay the form out and hold no data: skipped on import. */
export const LAYOUT_TYPES = new Set(['container', 'label', 'image', 'button', 'line', 'rectangle', 'hyperlink']);

/** The keys of every instance's base fields; no form field may take one. */
export const BASE_KEYS = ['revisionid', 'instancename', 'modifydate', 'modifyby', 'modifybyid', 'createdate', 'createby', 'createbyid'];

export const MAX_FIELDS = 2000;
const MAX_KEY = 100;

/** A field key as designers name fields: not blank, not a base key, not the deleted-field prefix `__`. */
export function checkKey(name: string): string {
  const key = name.trim();
  if (key === '') throw badRequest('A form field needs a name.');
  if (key.length > MAX_KEY) throw badRequest(`The form field name '${key.slice(0, 64)}...' is longer than ${MAX_KEY} characters.`);
  if (key.startsWith('__')) throw badRequest(`The form field name '${key}' may not start with '__' (it marks deleted fields).`);
  if (BASE_KEYS.includes(key.toLowerCase())) throw badRequest(`The form field name '${key}' is taken by a base field.`);
  return key;
}

export function fieldTypeCode(v: unknown): number {
  if (v === undefined || v === null) return FIELD_TYPES.textbox;
  const n = Number(v);
  if (!Object.values(FIELD_TYPES).includes(n)) throw badRequest(`The field type must be one of ${Object.values(FIELD_TYPES).join(', ')}, got '${String(v).slice(0, 32)}'.`);
  return n;
}
