/** Identifiers: time-ordered UUID v7 for index locality; the all-zero GUID stands for "unset". */
import { v7 } from 'uuid';

export const ZERO_GUID = '00000000-0000-0000-0000-000000000000';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const newId = (): string => v7();
export const isGuid = (s: unknown): s is string => typeof s === 'string' && GUID.test(s);
