/**
 * Conditional and range requests (RFC 9110 13 and 14) on a download, whose bytes never change
 * under its entity tag: a stored file's id, or a hash of bytes made per request (docs/decisions.md,
 * "Files"). The preconditions are read in the order of RFC 9110 13.2.2; then one byte range, or the whole file.
 */
import parseRange from 'range-parser';
import { AppError } from '../errors.js';
import type { ByteRange } from '../storage/index.js';

export interface Validators {
  /** A strong entity tag, quoted. */
  etag: string;
  /** None for bytes made on each request: then If-Modified-Since and If-Unmodified-Since are ignored (RFC 9110 13.1.3, 13.1.4). */
  lastModified?: Date;
}

/** What a download sends: the whole file, one range of it, or nothing new (304). */
export type Selection = { status: 200 } | { status: 206; range: ByteRange } | { status: 304 };

/** The entity tags a header lists (`*` as itself), each trimmed. */
const tagsOf = (header: string) => header.split(',').map((t) => t.trim());

/** Whether If-None-Match names `tag` (compared weakly, as RFC 9110 13.1.2 asks for GET), or is `*`. */
export function noneMatchNames(ifNoneMatch: string | null, tag: string): boolean {
  return !!ifNoneMatch && tagsOf(ifNoneMatch).some((t) => ['*', tag].includes(t.replace(/^W\//, '')));
}

/** The three forms of an HTTP-date (RFC 9110 5.6.7): IMF-fixdate, RFC 850's, and asctime's, which names no zone: it is GMT. */
const TIME = '\\d{2}:\\d{2}:\\d{2}';
const IMF_FIXDATE = new RegExp(`^[A-Za-z]{3}, \\d{2} [A-Za-z]{3} \\d{4} ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^[A-Za-z]{6,9}, \\d{2}-[A-Za-z]{3}-\\d{2} ${TIME} GMT$`);
const ASCTIME = new RegExp(`^[A-Za-z]{3} [A-Za-z]{3} [ \\d]\\d ${TIME} \\d{4}$`);

/**
 * A header's HTTP-date, in whole seconds (as Last-Modified is sent); undefined when it is none
 * (then the header is ignored, RFC 9110 13.1.3). Matched to its forms before Date reads it: Date
 * reads a date without a zone in the process's time zone, and takes much that is no date ('2099
 * GMT' is 2099-01-01).
 */
function secondsOf(header: string | null): number | undefined {
  const t = header?.trim() ?? '';
  const ms = IMF_FIXDATE.test(t) || RFC850_DATE.test(t) ? Date.parse(t) : ASCTIME.test(t) ? Date.parse(`${t} GMT`) : NaN;
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

export function selectBytes(request: Request, size: number, v: Validators): Selection {
  const h = request.headers;
  const modified = v.lastModified && Math.floor(v.lastModified.getTime() / 1000);
  const ifMatch = h.get('if-match');
  const unmodifiedSince = secondsOf(h.get('if-unmodified-since'));
  // If-Match compares strongly: a weak tag never matches.
  const fails = ifMatch !== null ? !tagsOf(ifMatch).some((t) => t === '*' || t === v.etag) : modified !== undefined && unmodifiedSince !== undefined && modified > unmodifiedSince;
  if (fails) {
    const when = v.lastModified ? `, last modified ${v.lastModified.toUTCString()}` : '';
    const msg = `The file is not the one the request's ${ifMatch !== null ? 'If-Match' : 'If-Unmodified-Since'} names: its ETag is ${v.etag}${when}.`;
    throw new AppError('PRECONDITION_FAILED', msg);
  }
  const ifNoneMatch = h.get('if-none-match');
  const modifiedSince = secondsOf(h.get('if-modified-since'));
  if (ifNoneMatch !== null ? noneMatchNames(ifNoneMatch, v.etag) : modified !== undefined && modifiedSince !== undefined && modified <= modifiedSince) return { status: 304 };

  // Range is for GET alone (RFC 9110 14.2): HEAD answers as a GET without it would. An empty file
  // has no range to send: it goes whole. So does a range of another unit, malformed ones, and
  // several that do not join (RFC 9110 14.2 lets a server ignore Range; one part, not multipart/byteranges).
  const header = h.get('range');
  if (request.method !== 'GET' || header === null || size === 0 || !/^bytes=/i.test(header) || !rangeStillApplies(h.get('if-range'), v.etag)) {
    return { status: 200 };
  }
  // range-parser 1.3 finds a suffix (`-n`) longer than the file unsatisfiable; it is the whole file (RFC 9110 14.1.2).
  const ranges = parseRange(size, header.replace(/([=,]\s*)-(\d+)/g, (all, before: string, n: string) => (Number(n) > size ? `${before}-${size}` : all)), { combine: true });
  if (ranges === -2 || (ranges !== -1 && ranges.length > 1)) return { status: 200 };
  if (ranges === -1) {
    const msg = `The range '${header.slice(0, 64)}' names none of the file's ${size} bytes (0 to ${size - 1}): ask for a first byte among them and a last one not before it.`;
    throw new AppError('RANGE_NOT_SATISFIABLE', msg, msg, {}, { 'content-range': `bytes */${size}` });
  }
  return { status: 206, range: ranges[0] };
}

/**
 * If-Range (RFC 9110 13.1.5): the range is of this file when it names its entity tag (strongly);
 * else the whole file goes. A date is no strong validator here: `files/{documentId}` serves the
 * next revision's file once it is stored, in the same second as the one before maybe, and with
 * that Last-Modified its bytes would be spliced onto the other's. Every answer has the ETag to send.
 */
const rangeStillApplies = (ifRange: string | null, etag: string) => ifRange === null || ifRange.trim() === etag;
