/**
 * GraphQL's messages for arguments it could not take ("Variable "$x" of required type "String!"
 * was not provided.") reworded for REST callers, who sent a body key, a query parameter or a
 * path segment and never a variable. The original stays as the developer message.
 */
import type { EnvelopeError } from '../graphql-errors.js';
import { CODE_SCALARS, DATE_TIME_WORDS } from '../scalars.js';

/** What each scalar takes, in words. */
const EXPECTED: Record<string, string> = {
  Boolean: 'true or false',
  Int: 'a whole number from -2147483648 to 2147483647',
  Float: 'a number',
  String: 'text',
  UUID: 'a GUID',
  DateTime: DATE_TIME_WORDS,
  JSON: 'JSON',
  ...Object.fromEntries(CODE_SCALARS.map((c) => [c.type.name, c.words])),
};

const MISSING = /^Variable "\$(\w+)" of (?:required|non-null) type "[^"]+" (?:was not provided|must not be null)\.$/;
const INVALID = /^Variable "\$(\w+)" got invalid value (.*?)(?: at "([^"]+)")?; (.*)$/s;

/** The key a caller sent: a field path without the argument that holds the whole body (`input` in every route row). */
function keyOf(variable: string, path: string | undefined): string {
  if (!path) return variable;
  return path.startsWith('input.') ? path.slice('input.'.length) : path;
}

/** Names in words: `a`, `a and b`, `a, b and c`. */
const inWords = (names: readonly string[]) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

const NOT_AN_OBJECT = /^Expected type "?(\w+)"? to be an object\.?$/;
/** A required key missing inside an object (graphql-jit: `Field value.items[0].name ...`; graphql-js: `Field "name" ...`). */
const KEY_MISSING = /^Field "?(?:[^"\s]*\.)?(\w+)"? of required type "?[^"\s]+"? was not provided\.?$/;
/** A null inside a list or object where a value is required. */
const NULL_REFUSED = /^Expected non-nullable type "?(\w+)!"? not to be null/;
/** An array where an input object belongs: GraphQL reads its indexes as the object's keys. */
const AN_ARRAY = /^Field "\d+" is not defined by type "?(\w+)"?\./;

/**
 * The value at a refusal's path (`input.items[0].name`, the variable first) in the arguments the
 * caller's request became, as JSON, which the caller sent; undefined when it is not there.
 */
function sentValueAt(sent: Record<string, unknown> | undefined, variable: string, path: string | undefined): string | undefined {
  const steps = path ? path.split(/\.|\[(\d+)\]/).filter(Boolean).slice(1) : [];
  let value: unknown = sent?.[variable];
  for (const step of steps) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined;
  return value === undefined ? undefined : JSON.stringify(value);
}

/**
 * A REST caller's refusal. `shapes` holds the keys of each input object type (src/rest/run-route.ts
 * gives the schema's): a value that should have been one is told the keys it takes, not the type's
 * name, which a REST caller never sees. `sent`, the arguments the request became: a refused value
 * is quoted from them as JSON, not as GraphQL's message prints it (`{ a: 1 }`).
 */
export function forRestCaller(e: EnvelopeError, shapes?: ReadonlyMap<string, readonly string[]>, sent?: Record<string, unknown>): EnvelopeError {
  const missing = MISSING.exec(e.message);
  if (missing) return { ...e, message: `The mandatory field '${missing[1]}' is missing.` };
  const invalid = INVALID.exec(e.message);
  if (!invalid) return e;
  const [, variable, value, path, reason] = invalid;
  const key = keyOf(variable, path);
  const inner = KEY_MISSING.exec(reason)?.[1];
  if (inner) return { ...e, message: `The mandatory field '${key}.${inner}' is missing.` };
  const nulled = NULL_REFUSED.exec(reason)?.[1];
  const nulledKeys = nulled === undefined ? undefined : shapes?.get(nulled);
  if (nulledKeys) return { ...e, message: `The field '${key}' takes objects with the keys ${inWords(nulledKeys)}, got null.` };
  if (nulled) return { ...e, message: `The field '${key}' must be ${EXPECTED[nulled] ?? 'a value'}, got null.` };
  const type = /Expected type "?(\w+)"?/.exec(reason)?.[1];
  const expected = type && EXPECTED[type];
  const quoted = sentValueAt(sent, variable, path) ?? value;
  const shown = quoted.length > 80 ? `${quoted.slice(0, 80)}…` : quoted;
  const keys = shapes?.get(NOT_AN_OBJECT.exec(reason)?.[1] ?? (value.startsWith('[') ? AN_ARRAY.exec(reason)?.[1] : undefined) ?? '');
  if (keys) return { ...e, message: `The field '${key}' takes objects with the keys ${inWords(keys)}, got ${shown}.` };
  return {
    ...e,
    message: expected ? `The field '${key}' must be ${expected}, got ${shown}.` : `The field '${key}' has a value that cannot be taken (${shown}): ${reason.replace(/^Expected type [^;]+; /, '')}`,
  };
}
