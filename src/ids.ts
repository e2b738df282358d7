/** Identifiers: time-ordered UUID v7 for index locality; the all-zero GUID stands for "unset"; reading one a client sent. */
import { v7 } from 'uuid';
import { badRequest, shownValue } from './errors.js';

export const ZERO_GUID = '00000000-0000-0000-0000-000000000000';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const newId = (): string => v7();
export const isGuid = (s: unknown): s is string => typeof s === 'string' && GUID.test(s);

/** A GUID argument or body value; the all-zero GUID counts as unset (undefined). */
export function guidOrUnset(v: unknown, label: string): string | undefined {
  if (v === undefined || v === null || v === '' || v === ZERO_GUID) return undefined;
  if (!isGuid(v)) throw badRequest(`The field '${label}' must be a GUID, got ${shownValue(v)}.`, { field: label });
  return (v as string).toLowerCase();
}

export function requireGuid(v: unknown, label: string): string {
  // Sent, it is not missing: the all-zero GUID stands for "none", and the field must name a record.
  if (v === ZERO_GUID) throw badRequest(`The field '${label}' is the all-zero GUID, which names nothing: send the id of a record.`, { field: label });
  const id = guidOrUnset(v, label);
  if (!id) throw badRequest(`The mandatory field '${label}' is missing.`, { field: label });
  return id;
}
