/** Input checks shared by every mutation: clear 400s that name the field. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { uniqueKeyOf } from '../db/constraint-errors.js';
import { badRequest, conflict } from '../errors.js';

type Input = Record<string, unknown> | null | undefined;

/** A mandatory string that may not be blank (a name, a password): sent, and more than spaces. */
export function requireString(input: Input, key: string, label = key): string {
  const v = requireText(input, key, label);
  if (v.trim() === '') throw badRequest(`The field '${label}' must not be blank.`, { field: label });
  return v;
}

/**
 * A mandatory text that may be empty (a description, an e-mail address): the key must be sent,
 * but `''` is a value, the spec's "unset" text (the seeded administrator's emailAddress is one).
 */
export function requireText(input: Input, key: string, label = key): string {
  const v = input?.[key];
  if (v === undefined || v === null) throw badRequest(`The mandatory field '${label}' is missing.`, { field: label });
  if (typeof v !== 'string') throw badRequest(`The field '${label}' must be a string.`, { field: label });
  return v;
}

export function optionalString(input: Input, key: string, label = key): string | undefined {
  const v = input?.[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw badRequest(`The field '${label}' must be a string.`, { field: label });
  return v;
}

/** A date-time argument (the DateTime scalar already parsed it): undefined when not sent, null to clear. */
export function optionalDate(v: unknown, label: string): Date | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (v instanceof Date) return v;
  throw badRequest(`The field '${label}' must be a date-time.`, { field: label });
}

export function maxLength(value: string, max: number, label: string): string {
  if (value.length > max) throw badRequest(`The field '${label}' is longer than ${max} characters.`, { field: label });
  return value;
}

/**
 * A name: trimmed, not blank, one line without control characters, at most `max` characters;
 * an update passes the name it would replace as `stored` (see `oneLine`).
 */
export function nameText(raw: string, max: number, label = 'name', stored?: unknown): string {
  const s = raw.trim();
  if (s === '') throw badRequest(`The field '${label}' must not be blank.`, { field: label });
  return maxLength(oneLine(s, label, stored), max, label);
}

/**
 * A name's key, as the database's `name_key` compares and keeps names unique: any case, any
 * Unicode normal form (`Résumé` in NFD is `Résumé` in NFC).
 */
export const nameKey = (s: string): string => s.toLowerCase().normalize('NFC');

/** A mandatory name (see `nameText`): missing is told apart from blank, as `requireString` tells them. */
export const requireName = (input: Input, max: number, label = 'name'): string => nameText(requireText(input, label), max, label);

/**
 * Control characters, Unicode's Cc: U+0000-U+001F (newline, tab, ESC...), DEL (U+007F) and the
 * C1 controls U+0080-U+009F (NEL, U+0085, is a line break).
 */
export const CONTROL = /\p{Cc}/u;

/**
 * Text of a name kept as sent (a person's first or last name, not trimmed), one line without
 * control characters (CONTROL), as `nameText` takes names. Only text a request brings new is
 * checked: an update resending `stored`, the value it would replace, keeps it, since names stored
 * before DEL and the C1 controls were refused may hold them and clients resend every key. (No
 * stored value holds U+0000: requests carrying one are refused before.)
 */
export function oneLine(s: string, label: string, stored?: unknown): string {
  if (s !== stored && CONTROL.test(s)) throw badRequest(`The field '${label}' may not contain control characters.`, { field: label });
  return s;
}

/**
 * A parsed JSON number's text, when that text is surely what was written: JSON parsing has already
 * rounded a long number (9007199254740993 arrives as 9007199254740992), made -0 of `-0` and
 * Infinity of `1e400`, and JavaScript writes some as exponents (`1e+21`). So a whole number past
 * 2^53, -0, and a fraction written with an exponent or more than 15 significant digits (what a
 * double keeps of any decimal) have none. Small integers and ordinary decimals (`42`, `1.5`) do.
 */
export function keptNumberText(n: number): string | undefined {
  const text = String(n);
  const significant = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').length;
  const kept = Number.isInteger(n) ? Number.isSafeInteger(n) && !Object.is(n, -0) : Number.isFinite(n) && !/e/.test(text) && significant <= 15;
  return kept ? text : undefined;
}

/** A number as a refusal shows it: `-0` as written. */
export const shownNumber = (n: number): string => (Object.is(n, -0) ? '-0' : String(n));

/** A high surrogate not followed by a low one, or a low one not after a high one (UTF-16 code units). */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * What in `s` PostgreSQL cannot keep as sent, or undefined: U+0000 (text and JSONB cannot hold
 * it) or a lone UTF-16 surrogate (UTF-8 cannot encode it; JSONB refuses its `\ud800` escape).
 */
export function unstorable(s: string): string | undefined {
  if (s.includes('\u0000')) return 'NUL (U+0000)';
  const lone = LONE_SURROGATE.exec(s);
  return lone ? `a lone UTF-16 surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()})` : undefined;
}

/** The first character a name may not hold, as `U+0001`: a control character (as `oneLine` refuses) or a lone surrogate. */
export function refusedNameChar(s: string): string | undefined {
  const m = CONTROL.exec(s) ?? LONE_SURROGATE.exec(s);
  return m ? `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}

/** Text as JSON writes it inside its quotes: control characters and lone surrogates readable as escapes. */
export const escaped = (s: string): string => JSON.stringify(s).slice(1, -1);

/**
 * Runs a write, turning a unique-constraint race into the same 409 a pre-check would give, its
 * `field` (AppError) the one the violated constraint is about (`uniqueKeyOf`).
 */
export async function uniquely<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw conflict(`${what} already exists.`, { field: uniqueKeyOf(err) });
    throw err;
  }
}

/**
 * The text keys of a partial update (absent keys stay as they are); at least one of them or of
 * `others` (the update's keys that are not text) must be sent, and a `name` is taken as `nameText`
 * takes it (not blank, one line), `stored` holding the one it replaces.
 */
export function textChanges<K extends string>(input: Input, limits: Record<K, number>, stored: { name?: unknown }, others: readonly string[] = []): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of Object.keys(limits) as K[]) {
    const v = optionalString(input, key);
    if (v === undefined) continue;
    out[key] = key === 'name' ? nameText(v, limits[key], key, stored.name) : maxLength(v, limits[key], key);
  }
  if (Object.keys(out).length === 0 && !others.some((key) => input?.[key] != null)) {
    throw badRequest(`Send at least one of: ${[...Object.keys(limits), ...others].join(', ')}.`);
  }
  return out;
}

/** Base64 as sent (whitespace between lines allowed, padding optional), or a 400: Buffer.from would quietly skip what is not base64. */
export function base64Bytes(text: string, label: string): Buffer {
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(text)) throw badRequest(`The field '${label}' must be base64: it holds characters base64 does not use.`, { field: label });
  return Buffer.from(text, 'base64');
}
