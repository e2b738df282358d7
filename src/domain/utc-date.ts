/** Dates as the legacy clients send them: ISO 8601, a missing zone meaning UTC. */
import { badRequest } from '../errors.js';

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,7})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The instant of an ISO 8601 date-time (no zone: UTC), or a 400 naming the field. */
export function parseUtcDate(value: string, label: string): Date {
  const s = value.trim();
  const m = ISO.exec(s);
  // Date would read 2030-02-30 as March 2nd: the day must exist in its month.
  const dayExists = m && Number(m[3]) >= 1 && Number(m[3]) <= new Date(Date.UTC(Number(m[1]), Number(m[2]), 0)).getUTCDate();
  const d = m && dayExists ? new Date(m[7] || m[4] === undefined ? s.replace(' ', 'T') : `${s.replace(' ', 'T')}Z`) : undefined;
  if (!d || Number.isNaN(d.getTime())) {
    throw badRequest(`The field '${label}' must be an ISO 8601 date-time such as 2030-01-31T12:00:00 (UTC unless a zone is given), got '${s.slice(0, 64)}'.`);
  }
  return d;
}
