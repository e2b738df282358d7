/**
 * Request bodies as legacy clients send them: JSON, form-encoded (even when labelled JSON) or
 * multipart (a file part read as text beside the other parts),
 * read with a size limit so an oversized body is a 413, not memory pressure, and taken from the
 * server's budget of bodies held at once (src/body-budget.ts) so that many of them are a 503.
 */
import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Busboy, type BusboyConfig, type BusboyInstance } from '@fastify/busboy';
import { createScanner, type SyntaxKind } from 'jsonc-parser';
import { AppError, badRequest } from '../errors.js';
import { clientClosedFrom } from '../client-closed.js';
import { chunksOf, readAtMost, type PaceOnly, type ReadLimit } from '../read-at-most.js';
import { partTypes, type PartTypes } from './part-types.js';
import { refuseCharset } from './body-charset.js';
import { LONE_SURROGATE } from '../domain/validate.js';
import type { BodyShare } from '../body-budget.js';

/** The body as text: UTF-8, or a 400 (`utf8Text`); labelled with another charset, a 415 before a byte is read. */
export async function readBody(request: Request, maxBytes: number, budget: BodyShare): Promise<string> {
  refuseCharset(request.headers.get('content-type'));
  return utf8Text(await readBodyBytes(request, maxBytes, budget), 'request body');
}

/**
 * Bytes as UTF-8 text, or a 400 naming `what`: decoding invalid bytes (`\xff`, Latin-1 text, a
 * sequence cut short) would store U+FFFD in their place, text changed rather than refused.
 */
export function utf8Text(bytes: Buffer, what: string): string {
  refuseNotUtf8(bytes, what);
  return bytes.toString('utf8');
}

/**
 * A file part's bytes as text: UTF-16 (little- or big-endian) when they start with its byte order
 * mark, as Windows tools save "Unicode" text, else UTF-8 (`utf8Text`). The one file read as text is
 * a designer's XML, and XML is read in both (XML 1.0, 4.3.3). Neither mark's bytes start UTF-8.
 */
export function fileText(bytes: Buffer, what: string): string {
  const bigEndian = bytes[0] === 0xfe && bytes[1] === 0xff;
  if (!bigEndian && !(bytes[0] === 0xff && bytes[1] === 0xfe)) return utf8Text(bytes, what);
  try {
    if (bytes.length % 2 !== 0) throw new Error('a byte left over');
    return new TextDecoder('utf-16le', { fatal: true }).decode(bigEndian ? Buffer.from(bytes).swap16() : bytes);
  } catch {
    throw badRequest(`The ${what} starts with a UTF-16 byte order mark but is not valid UTF-16 (a byte left over, or half of a surrogate pair): send it whole, as UTF-16 or UTF-8.`);
  }
}

/** The same check without the text, for bytes someone else decodes (Yoga's parser). */
export function refuseNotUtf8(bytes: Buffer, what: string): void {
  if (!isUtf8(bytes)) throw notUtf8(what);
}

const notUtf8 = (what: string) =>
  badRequest(`The ${what} is not valid UTF-8 (it holds bytes such as \\xFF, or text in another encoding such as Latin-1): send text as UTF-8.`);

/** Runs of percent-escapes (`%C3%A9`); a literal character between two runs ends a sequence anyway. */
const ESCAPE_RUN = /(?:%[0-9a-fA-F]{2})+/g;

/**
 * The first percent-escape that stands for no UTF-8 character, as sent (`%ad`), or undefined when
 * every escape's bytes are UTF-8. URLSearchParams decodes `%FF` as U+FFFD; the text around the
 * escapes is already text. One pass, each run checked on its own: an ASCII character between two
 * runs would break any sequence they formed. In a failing run, the escape named is the one where
 * decoding fails: a byte that starts no character, or the start of a sequence left incomplete.
 */
export function nonUtf8Escape(text: string): string | undefined {
  if (!text.includes('%')) return undefined;
  for (const [run] of text.matchAll(ESCAPE_RUN)) {
    if (!/%[89a-fA-F]/.test(run)) continue;
    const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
    if (isUtf8(bytes)) continue;
    for (let i = 0; i < bytes.length; ) {
      const b = bytes[i];
      const length = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
      if (length === 0 || !isUtf8(bytes.subarray(i, i + length)) || i + length > bytes.length) return run.slice(3 * i, 3 * i + 3);
      i += length;
    }
  }
  return undefined;
}

export const isMultipart = (contentType: string | null) => /^\s*multipart\/form-data/i.test(contentType ?? '');

/**
 * The body's bytes, at most `maxBytes` of them (else a 413), counted as they stream in. Taken from
 * `budget` (the signed-in callers', or the token endpoint's share: src/body-budget.ts) by
 * `takeBody`.
 */
export async function readBodyBytes(request: Request, maxBytes: number, budget: BodyShare): Promise<Buffer> {
  return readAtMost(request.body, takeBody(request, maxBytes, budget));
}

/**
 * Takes a body from `budget`: the whole Content-Length before the first byte is read, so a body
 * begun is never refused halfway; without one, or from a share taken by chunk (the token
 * endpoint's: src/body-budget.ts), each chunk as it comes (`taking`). The reading's limit: at
 * most `maxBytes`, at the budget's least pace (src/body-pace.ts).
 */
function takeBody(request: Request, maxBytes: number, budget: BodyShare): ReadLimit {
  const limit: ReadLimit = { maxBytes, tooLarge: () => tooLarge(maxBytes), pace: budget.pace };
  const declared = declaredLength(request, maxBytes);
  if (declared !== undefined && !budget.byChunk) {
    budget.take(request, declared);
    return limit;
  }
  return { ...limit, taking: (n) => budget.take(request, n) };
}

/** Whether the request says it has a body: a Content-Length above 0, or chunked. */
export const carriesBody = (request: Request): boolean =>
  request.headers.has('transfer-encoding') || Number(request.headers.get('content-length')) > 0;

/** The Content-Length, if sent: a 400 when it is not a number of bytes, a 413 when over `maxBytes`. */
export function declaredLength(request: Request, maxBytes: number): number | undefined {
  const declared = request.headers.get('content-length');
  if (declared === null) return undefined;
  if (!/^\d+$/.test(declared)) throw badRequest('The Content-Length header must be a whole number of bytes.');
  if (Number(declared) > maxBytes) throw tooLarge(maxBytes);
  return Number(declared);
}

const tooLarge = (max: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${max} bytes.`);

/** Text parts over their limit, where files may come to more beside them. */
const textTooLarge = (max: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `The text parts of the request come to more than the limit of ${max} bytes (MAX_BODY_BYTES).`);

/** `a=1&b=2` style text: what form-encoding looks like, whatever the Content-Type says. */
const FORM = /^[^=&{}[\]"\s]+=[^&]*(&[^=&]+=[^&]*)*&?$/;

/**
 * The most values a JSON or form-encoded body may hold: object keys, list elements and top-level
 * form keys, counted before it is parsed as the commas and opening brackets outside strings (a
 * form's `&`). The largest bodies the routes take hold about 30,000 (a drop-down list of 10,000
 * items); parsing and checking cost about a microsecond a value, for which no byte limit speaks:
 * 9.5 MB of `{"k1":1,"k2":1,...}` (800,000 keys) or 6 MB of `[1,1,...]` held the server, every
 * tenant's requests, for 4 to 7 s, on any route, parsed before the route looked at them.
 */
export const MAX_BODY_VALUES = 100_000;

export const manyValues = (what: string) =>
  `The ${what} holds more than ${MAX_BODY_VALUES} values (keys and list elements): send fewer in one request.`;

/** Whether JSON text holds more than `max` values, by its commas and opening brackets outside strings; stops there. */
export function holdsMoreValues(json: string, max = MAX_BODY_VALUES): boolean {
  let values = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) {
      // To the string's closing quote: one after an even run of backslashes. Malformed: the parser says so.
      let end = json.indexOf('"', i + 1);
      for (; end !== -1; end = json.indexOf('"', end + 1)) {
        let b = end - 1;
        while (json.charCodeAt(b) === 0x5c) b--;
        if ((end - 1 - b) % 2 === 0) break;
      }
      if (end === -1) return false;
      i = end;
    } else if ((c === 0x2c || c === 0x5b || c === 0x7b) && ++values > max) return true;
  }
  return false;
}

/** Whether form-encoded text holds more than `max` pairs; stops there. */
function formHoldsMoreValues(text: string, max = MAX_BODY_VALUES): boolean {
  let pairs = 1;
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) if (++pairs > max) return true;
  return false;
}

export function parseForm(text: string): Record<string, unknown> {
  if (formHoldsMoreValues(text)) throw badRequest(manyValues('form-encoded request body'));
  if (nonUtf8Escape(text) !== undefined) {
    // Named by its key, as far as that key can be read.
    const pair = text.split('&').find((p) => nonUtf8Escape(p) !== undefined) ?? '';
    const key = [...new URLSearchParams(pair).keys()][0] ?? '';
    throw badRequest(`The form-encoded request body's value of '${key.slice(0, 64)}' has percent-escapes that are not valid UTF-8 (such as %FF, or Latin-1 text escaped byte by byte): escape the text's UTF-8 bytes.`);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(text)) addPart(out, k, v);
  return out;
}

/**
 * The values of a form key sent more than once, in order: a list where the input takes one, the
 * last where it takes one value (src/rest/input.ts). A JSON array is not one of these.
 */
export class RepeatedKey extends Array<string> {}

/** Adds a form value under its key: the value itself, or a RepeatedKey once the key comes again. */
export function addPart(out: Record<string, unknown>, key: string, value: string): void {
  // Own keys only: `constructor=x` is sent once, and `__proto__=x` is a key, not the body's prototype.
  const prev = Object.hasOwn(out, key) ? out[key] : undefined;
  // Added to in place: copying the list on every repeat made a body of one key sent 20,000 times cost seconds.
  if (prev instanceof RepeatedKey) prev.push(value);
  else Object.defineProperty(out, key, { value: prev === undefined ? value : RepeatedKey.from([prev as string, value]), enumerable: true, writable: true, configurable: true });
}

/**
 * Adds a multipart text part, refusing one whose decoded text holds U+FFFD. busboy decodes a part
 * by its declared charset (UTF-8 when none is declared, as the Node, Python and PHP clients send
 * them; the Java client declares its caller's) and puts U+FFFD where the bytes are not valid in it,
 * handing over no bytes to check: a replacement character is refused, whether it replaced bytes or
 * was sent as itself (which nothing here can tell apart).
 */
function addTextPart(out: Record<string, unknown>, name: string, value: string): void {
  if (name.includes('\ufffd') || value.includes('\ufffd')) throw replaced(`multipart text part '${name.slice(0, 64)}'`);
  addPart(out, name, value);
}

/** A file part's file name, decoded by busboy as a text part is (the same rule: `addTextPart`). A file part is taken whatever its name, or with none. */
export function checkFileName(part: string | undefined, fileName: string | undefined): void {
  if (fileName?.includes('\ufffd')) throw replaced(part === undefined ? 'file name of a multipart file part' : `file name of the multipart part '${part.slice(0, 64)}'`);
}

/** A text part is read by its name: one without (RFC 7578 requires it) could only be dropped unread. */
const unnamedPart = () =>
  badRequest('A text part of the multipart request body has no name: give each part a Content-Disposition header naming it (form-data; name="<key>").');

const replaced = (what: string) =>
  badRequest(`The ${what} is not valid text in its charset (UTF-8 unless its Content-Type names another), or holds U+FFFD, the replacement character: send the text as UTF-8, without U+FFFD.`);

/**
 * The same rule for what a multipart /graphql request's parts became (Yoga decodes them, putting
 * U+FFFD where the bytes are not UTF-8): any key or string holding U+FFFD. Iterative.
 */
export function refuseReplaced(value: unknown, what: string): void {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string' && v.includes('\ufffd')) throw replaced(what);
    if (!v || typeof v !== 'object') continue;
    for (const [k, child] of Object.entries(v)) {
      if (k.includes('\ufffd')) throw replaced(what);
      stack.push(child);
    }
  }
}

/** Deeper than any legacy body nests; input fitting and GraphQL coercion recurse. */
const MAX_DEPTH = 32;

/**
 * Refuses, as a 400, what would otherwise fail deeper down or be kept as something else: U+0000
 * in a key or string (PostgreSQL text cannot hold it), a lone UTF-16 surrogate (`"\ud800"` in
 * JSON: UTF-8 cannot encode it, so the driver would store U+FFFD instead), a number past a
 * double's range (JSON parses `1e400` as Infinity, which reaches an operation as null) and, below
 * `maxDepth`, excessive nesting. Iterative, so depth cannot hurt it. `what` names the thing in
 * the message ("request body").
 */
export function refuseNul(value: unknown, what: string, maxDepth = Infinity): void {
  const stack: [unknown, number][] = [[value, 0]];
  const nul = () => badRequest(`The ${what} must not contain NUL (U+0000) characters.`);
  const text = (s: string) => {
    if (s.includes('\u0000')) throw nul();
    if (LONE_SURROGATE.test(s)) throw badRequest(`The ${what} holds a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape), which no text can keep: send the character whole.`);
  };
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') text(v);
    if (typeof v === 'number' && !Number.isFinite(v)) throw badRequest(`The ${what} holds a number too large to keep: send it as a string.`);
    if (!v || typeof v !== 'object') continue;
    if (depth >= maxDepth) throw badRequest(`The ${what} nests more than ${maxDepth} levels deep.`);
    for (const [k, child] of Object.entries(v)) {
      text(k);
      stack.push([child, depth + 1]);
    }
  }
}

/**
 * Parses a body as an object; an empty body is `{}`. Arrays and scalars are a 400. `notJson`: the
 * refusal of a body that is neither a form nor JSON, where the route has a better word than JSON's parser.
 */
export function parseBody(text: string, contentType: string | null, notJson?: () => Error): Record<string, unknown> {
  const { value, json } = parseValue(text, contentType, notJson);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('The request body must be a JSON object.');
  }
  refuseNul(value, 'request body', MAX_DEPTH);
  if (json) refuseRepeatedKeys(json, value);
  return value as Record<string, unknown>;
}

/** Parses a body as any JSON value, for an argument of the JSON scalar (a script's input); an empty body is `{}`. */
export function parseAnyBody(text: string, contentType: string | null): unknown {
  const { value, json } = parseValue(text, contentType);
  refuseNul(value, 'request body', MAX_DEPTH);
  if (json) refuseRepeatedKeys(json, value);
  return value;
}

/** The body's value, and its text when it was read as JSON (a form's repeated keys are RepeatedKey lists). */
function parseValue(text: string, contentType: string | null, notJson?: () => Error): { value: unknown; json?: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { value: {} };
  const type = (contentType ?? '').toLowerCase();
  const looksJson = trimmed.startsWith('{') || trimmed.startsWith('[');
  if (looksJson && holdsMoreValues(trimmed)) throw badRequest(manyValues('request body'));
  if (type.includes('application/x-www-form-urlencoded')) {
    const json = looksJson ? jsonOrUndefined(trimmed) : undefined;
    return json === undefined ? { value: parseForm(trimmed) } : { value: json, json: trimmed };
  }
  if (!looksJson && FORM.test(trimmed)) return { value: parseForm(trimmed) };
  try {
    return { value: JSON.parse(trimmed), json: trimmed };
  } catch (err) {
    throw notJson?.() ?? badRequest(`The request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** JSON labelled as a form (some clients label every body so) is read as JSON; what does not parse stays a form. */
function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A key's end in JSON text: a quote, blanks, a colon. Every key ends so, once each, its quote
 * unescaped: after no backslash, or after a run of an even number (`"a\\":` is the key `a\`). A
 * quote after a single backslash (`\"`) is inside a string (`"{\"a\":1}"`) and is not counted. A
 * string value that begins with a colon (`":00"`) or holds `\\\":` counts too, so the count is at
 * least the number of keys, never fewer.
 */
const KEY_END = /(?<![^\\]\\)"[ \t\n\r]*:/g;

/**
 * Refuses JSON text (already parsed, to `parsed`) that repeats a key in one object, at any depth,
 * as a form key sent twice is refused (src/rest/run-route.ts): JSON.parse keeps the last value
 * without a word. Cheap when no key repeats: the keys the text can hold
 * (`KEY_END`) are counted against those parsed, which JSON.parse made one per repeated key; only
 * when the text holds more is it tokenized (`repeatedKey`). The message is the form's, the key
 * named by its path when nested (`fileUpload[1].name`).
 */
export function refuseRepeatedKeys(json: string, parsed: unknown, refusal: (repeated: Repeated) => Error = keySentTwice): void {
  const parsedKeys = keysIn(parsed);
  let seen = 0;
  KEY_END.lastIndex = 0;
  while (seen <= parsedKeys && KEY_END.test(json)) seen++;
  if (seen <= parsedKeys) return;
  const repeated = repeatedKey(json);
  if (repeated) throw refusal(repeated);
}

/** A key one object of a JSON body holds more than once: its path (`fileUpload[1].name`) and how many times. */
export interface Repeated {
  key: string;
  times: number;
}

/** The words for a key sent more than once, in a form, in multipart parts or in JSON, on every route and the token endpoint. */
export const sentMoreThanOnce = ({ key, times }: Repeated) => `The key '${key}' was sent ${times} times in the request body: send it once, with one value.`;

const keySentTwice = (repeated: Repeated) => badRequest(sentMoreThanOnce(repeated));

/** The scanner's tokens this reads: its SyntaxKind is a const enum, which this build cannot inline. */
const Token = {
  OpenBrace: 1 as SyntaxKind,
  CloseBrace: 2 as SyntaxKind,
  OpenBracket: 3 as SyntaxKind,
  CloseBracket: 4 as SyntaxKind,
  Comma: 5 as SyntaxKind,
  String: 10 as SyntaxKind,
  End: 17 as SyntaxKind,
};

/** How many keys the objects of a parsed JSON value hold in all, found without recursion. */
function keysIn(value: unknown): number {
  const stack = [value];
  let keys = 0;
  while (stack.length) {
    const v = stack.pop();
    if (!v || typeof v !== 'object') continue;
    if (!Array.isArray(v)) keys += Object.keys(v).length;
    for (const child of Object.values(v)) stack.push(child);
  }
  return keys;
}

/**
 * The first key (in the text's order) that one object of valid JSON text holds more than once: its
 * path (each key cut to 64 characters) and how many times that object holds it. Tokens come from
 * jsonc-parser's scanner (keys unescaped as JSON.parse reads them: `"\u0061"` is `a`), the nesting
 * kept on a stack here.
 */
export function repeatedKey(json: string): Repeated | undefined {
  // Per open object its keys and counts, per open array its index; `at` is where the frame stands in it.
  const frames: { keys?: Map<string, number>; at: string | number }[] = [];
  let first: { keys: Map<string, number>; name: string; key: string } | undefined;
  let expectKey = false;
  const scanner = createScanner(json, true);
  for (let token = scanner.scan(); token !== Token.End; token = scanner.scan()) {
    const top = frames.at(-1);
    const keyHere = expectKey;
    expectKey = false;
    if (token === Token.OpenBrace) {
      frames.push({ keys: new Map(), at: '' });
      expectKey = true;
    } else if (token === Token.OpenBracket) frames.push({ at: 0 });
    else if (token === Token.CloseBrace || token === Token.CloseBracket) {
      frames.pop();
      if (first && top?.keys === first.keys) return { key: first.key, times: first.keys.get(first.name)! };
    } else if (token === Token.Comma && top) {
      if (top.keys) expectKey = true;
      else top.at = (top.at as number) + 1;
    } else if (token === Token.String && keyHere && top?.keys) {
      const name = scanner.getTokenValue();
      top.at = name;
      const times = (top.keys.get(name) ?? 0) + 1;
      top.keys.set(name, times);
      if (times === 2 && !first) first = { keys: top.keys, name, key: pathOf(frames) };
    }
  }
  return undefined;
}

/**
 * `fileUpload[1].name`: where the innermost frame's current key or index stands, each key cut to
 * 64 characters and the path to 256 (a token body is not held to REST's depth).
 */
function pathOf(frames: readonly { keys?: Map<string, number>; at: string | number }[]): string {
  let path = '';
  for (const { at } of frames) {
    if (typeof at === 'number') path += `[${at}]`;
    else path += `${path ? '.' : ''}${at.slice(0, 64)}`;
    if (path.length > 256) return path.slice(0, 256);
  }
  return path;
}

/** A multipart body's text parts, as an object, and its file parts, in order. */
export interface Multipart {
  texts: Record<string, unknown>;
  files: UploadedFile[];
}

/**
 * A multipart body's parts, parsed by busboy (as lenient as the clients need: `form-Data`, a file
 * part without a Content-Type, a leading CRLF) as the body arrives: at most `maxBytes` in all, of
 * which at most `maxTextBytes` text parts. The body is taken from `budget` as `readBodyBytes` takes
 * one, but never held whole beside its parts (an e-mail's attachments, docs/decisions.md "E-mail"):
 * each file part's chunks are kept as busboy hands them over and joined once at the part's end. A
 * refusal (a text part too large, a malformed part) is answered without waiting for the rest of
 * the body. A text part sent twice is a list, in order. A file part's type is
 * the one it declared, or none (not busboy's text/plain) when it has no Content-Type
 * (src/rest/part-types.ts).
 */
export async function parseMultipart(request: Request, maxBytes: number, budget: BodyShare, maxTextBytes = maxBytes): Promise<Multipart> {
  const types = partTypes(request.headers.get('content-type') ?? '');
  // Its headers' refusals (a 400, a 415) before the budget's: a full budget would answer them 503.
  const bb = multipartParser(request, maxTextBytes, types);
  const limit = takeBody(request, maxBytes, budget);
  const texts: Record<string, unknown> = {};
  const files: UploadedFile[] = [];
  gatherTextParts(bb, texts, maxTextBytes);
  // The clients name the file part fileUpload, fileupload, fileupload_<i> or uploadFile, whatever it holds.
  bb.on('file', (name, stream, filename, _encoding, mimeType) => {
    // A part cut short fails busboy too, which refuses the body; this one has nothing to add.
    stream.on('error', () => undefined);
    try {
      checkFileName(name, filename);
    } catch (err) {
      stream.resume();
      return bb.destroy(err as Error);
    }
    const type = types.declared(mimeType);
    const chunks: Buffer[] = [];
    const at = files.push(new UploadedFile(filename, type, Buffer.alloc(0), name)) - 1;
    stream.on('data', (c: Buffer) => chunks.push(c));
    // busboy finishes once every file part has ended.
    stream.on('end', () => (files[at] = new UploadedFile(filename, type, Buffer.concat(chunks), name)));
  });
  try {
    await pipeline(Readable.from(partChunks(request, types, limit)), bb);
  } catch (err) {
    throw multipartError(err);
  }
  refuseNul(texts, 'request body');
  return { texts, files };
}

/**
 * Gathers busboy's text parts into `texts`, held to `maxTextBytes` in all (a 413 past it); `take`
 * counts each against the budget of bodies held where the body is not taken whole (an upload).
 */
export function gatherTextParts(bb: BusboyInstance, texts: Record<string, unknown>, maxTextBytes: number, take: (bytes: number) => void = () => undefined): void {
  let textBytes = 0;
  bb.on('field', (name: string | undefined, value, _nameTruncated, valueTruncated) => {
    // busboy hands on a part with no name (or no Content-Disposition) as named `undefined`.
    if (name === undefined) return bb.destroy(unnamedPart());
    const size = Buffer.byteLength(name) + Buffer.byteLength(value);
    textBytes += size;
    if (valueTruncated || textBytes > maxTextBytes) return bb.destroy(textTooLarge(maxTextBytes));
    try {
      take(size);
      addTextPart(texts, name, value);
    } catch (err) {
      bb.destroy(err as Error);
    }
  });
}

/** busboy for a multipart request, its text parts held to `maxTextBytes`; the Content-Type's refusals are `multipartReader`'s. */
export function multipartParser(request: Request, maxTextBytes: number, types: PartTypes): BusboyInstance {
  return multipartReader(request.headers.get('content-type')!, { defCharset: 'utf-8', limits: { fieldSize: maxTextBytes }, isPartAFile: types.isPartAFile });
}

/**
 * busboy for a multipart Content-Type, or the refusal its headers alone earn: a Content-Type busboy
 * cannot read (no boundary, an empty one) is a 400, one labelled with a charset not UTF-8 a 415.
 * One rule for both faces, checked before the body takes from the budget (a full one would answer
 * them 503): REST's reader, and /graphql's transport, which builds one only to judge the headers
 * (Yoga's parser reads the parts).
 */
export function multipartReader(contentType: string, config: Omit<BusboyConfig, 'headers'> = {}): BusboyInstance {
  refuseEmptyBoundary(contentType);
  refuseCharset(contentType);
  try {
    return Busboy({ headers: { 'content-type': contentType }, ...config });
  } catch (err) {
    throw multipartError(err);
  }
}

/** A multipart body's chunks as they arrive (within `limit`, or only its pace), each shown to `types` before busboy gets it. */
export async function* partChunks(request: Request, types: PartTypes, limit: ReadLimit | PaceOnly): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunksOf(request.body, limit)) {
    types.see(chunk);
    yield chunk;
  }
}

/**
 * Our own errors as they are, and the client's hang-up as it is (its request ends as 499:
 * src/client-closed.ts); the parser's as a 400 that says what it found.
 */
export function multipartError(err: unknown): Error {
  if (err instanceof AppError || clientClosedFrom(err)) return err as Error;
  return badRequest(`The multipart request body is malformed: ${err instanceof Error ? err.message : String(err)}`);
}

/**
 * The text parts with the file parts (or what stands for them) under `fileUpload`, the key they
 * are read under, in place of a text part of that name: one as itself, several as a list, in order.
 */
export const withFiles = (texts: Record<string, unknown>, files: readonly unknown[]): Record<string, unknown> =>
  files.length === 0 ? texts : { ...texts, fileUpload: files.length === 1 ? files[0] : files };

/**
 * A multipart Content-Type whose boundary is empty (`boundary=`, `boundary=""`) is a 400 saying so:
 * busboy takes it, finds no part and says "Unexpected end of multipart data".
 */
export function refuseEmptyBoundary(contentType: string): void {
  if (/;[ \t]*boundary[ \t]*=[ \t]*(?:""[ \t]*)?(?:;|$)/i.test(contentType)) {
    throw badRequest('The multipart request body is malformed: the boundary its Content-Type names is empty (boundary=); name the string that separates its parts.');
  }
}

/** A file part of a multipart body: its file's name, the type it declared (undefined when it has no Content-Type), its bytes and the part's own name. */
export class UploadedFile {
  constructor(
    readonly name: string,
    readonly type: string | undefined,
    readonly bytes: Buffer,
    readonly part: string,
  ) {}
}
