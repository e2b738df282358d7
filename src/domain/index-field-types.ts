/**
 * What a value of each index field type must be, for a document's value and for a field's
 * default alike: numbers are numbers, dates are dates (kept as ISO 8601 without a zone, in UTC, as
 * the API writes date-times; a date alone stays a date). Other types take any text.
 */
import { badRequest } from '../errors.js';
import type { FieldType } from '../query/fields.js';
import { formatDateTime, isoInstant } from '../scalars.js';

/** Single-line text (the Node client's `Text`). */
export const TEXT_FIELD = 1;
export const NUMERIC_FIELD = 5;
export const DATE_FIELD = 4;
/** A drop-down list: a value is one of its list's items' values (src/domain/document-index-values.ts). */
export const LIST_FIELD = 6;
/** A modifiable drop-down list: the list offers values, any text may be kept. */
export const MODIFIABLE_LIST_FIELD = 8;

/**
 * The index field type a value of each `q` type is entered with, for fields that are not index
 * fields (the document fields of `GET documentfields`): numbers numeric, date-times calendar, and
 * text, GUIDs and booleans single-line text (no index field type holds a GUID or a boolean).
 */
export const FIELD_TYPE_OF_VALUE: Record<FieldType, number> = {
  string: TEXT_FIELD,
  guid: TEXT_FIELD,
  boolean: TEXT_FIELD,
  integer: NUMERIC_FIELD,
  numeric: NUMERIC_FIELD,
  datetime: DATE_FIELD,
};

/** A month/day/year date as the US-locale clients write it. */
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** `text` (trimmed, not empty) as kept for a field of `fieldType`, or a 400 naming what it is for (and `field`, the input it came in: AppError). */
export function typedValue(fieldType: number, what: string, text: string, field?: string): string {
  if (fieldType === NUMERIC_FIELD) {
    if (!(NUMBER.test(text) && Number.isFinite(Number(text)))) throw badRequest(`${what} is numeric: '${text.slice(0, 64)}' is not a number.`, { field });
    return text;
  }
  if (fieldType === DATE_FIELD) {
    const us = US_DATE.exec(text);
    const iso = us ? `${us[3]}-${us[1].padStart(2, '0')}-${us[2].padStart(2, '0')}` : text;
    const at = isoInstant(iso);
    if (!at) throw badRequest(`${what} is a date: '${text.slice(0, 64)}' is not one (ISO 8601 such as 2026-01-31, or 1/31/2026).`, { field });
    return /^\d{4}-\d{2}-\d{2}$/.test(iso) ? iso : formatDateTime(at);
  }
  return text;
}
