/**
 * Fits a legacy body onto a GraphQL input type: keys match case-insensitively (`emailaddress`,
 * `UserId`), form strings become booleans and numbers where the field wants them, and keys the
 * type does not know are dropped. Values that still do not fit are left for GraphQL to reject.
 */
import { badRequest, requireAgreement } from '../errors.js';
import { codeScalarNamed } from '../scalars.js';
import { keptNumberText, shownNumber } from '../domain/validate.js';
import { RepeatedKey, UploadedFile, fileText } from './body.js';
import {
  getNullableType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  isInputObjectType,
  isListType,
  isScalarType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
} from 'graphql';

/** Where a value sits: the schema's path to it and the path as the body spelled it (`items[0].itemName`, `Items[0].ItemName`). */
interface At {
  path: string;
  sent: string;
}

const TOP: At = { path: '', sent: '' };
const inside = (at: At, name: string, key: string): At => (at.path ? { path: `${at.path}.${name}`, sent: `${at.sent}.${key}` } : { path: name, sent: key });

/**
 * `sentAs`, when given, learns each field the body spelled otherwise, by the schema's path to it
 * (`dropDownListId` sent as `dropdownListId`, `items[0].itemName` as `ItemName`), for `asSent`.
 * A field sent in several spellings (`dropdownListId`, `dropDownListId`) must fit to one value in
 * all of them, as a query parameter sent twice must (`requireAgreement`): the later one won
 * without a word.
 */
export function fitInput(type: GraphQLInputObjectType, body: Record<string, unknown>, sentAs?: Map<string, string>, at = TOP): Record<string, unknown> {
  const fields = type.getFields();
  const byLower = new Map(Object.keys(fields).map((name) => [name.toLowerCase(), name]));
  const spellings = new Map<string, string[]>();
  for (const [key, value] of Object.entries(body)) {
    const name = byLower.get(key.toLowerCase());
    if (!name || value === undefined) continue;
    const keys = spellings.get(name);
    if (keys) keys.push(key);
    else spellings.set(name, [key]);
  }
  const out: Record<string, unknown> = {};
  for (const [name, keys] of spellings) {
    // Only the kept (first) copy teaches `sentAs` its nested spellings: a later copy's would name
    // a value that was dropped.
    const copies = keys.map((key, i) => {
      const here = inside(at, name, key);
      return { sent: body[key], as: here.sent, kept: fitValue(fields[name].type, body[key], here, i === 0 ? sentAs : undefined), path: here.path };
    });
    if (copies.length > 1) requireAgreement(`field '${copies[0].path}'`, copies);
    if (keys[0] !== name) sentAs?.set(copies[0].path, keys[0]);
    if (copies[0].kept !== undefined) out[name] = copies[0].kept;
  }
  return out;
}

/**
 * A path of the schema's (`items[0].itemName`, as GraphQL's refusals and ours name it) as the body
 * spelled it (`Items[0].ItemName`), by what `fitInput` learnt in `sentAs`.
 */
export function asSent(path: string, sentAs: ReadonlyMap<string, string>): string {
  let schema = '';
  let sent = '';
  // A field's name at the start or after a dot; any other character (an index's) as it is.
  for (const [step, dot, name] of path.matchAll(/(^|\.)(\w+)|[\s\S]/g)) {
    schema += step;
    sent += name === undefined ? step : dot + (sentAs.get(schema) ?? name);
  }
  return sent;
}

function fitValue(type: GraphQLInputType, value: unknown, at: At, sentAs: Map<string, string> | undefined): unknown {
  const t = getNullableType(type);
  if (value === null) return null;
  // One value where a list is wanted stays one: GraphQL makes it a list, and a refusal names it as sent, with no index.
  if (isListType(t)) {
    if (!Array.isArray(value)) return fitValue(t.ofType, value, at, sentAs);
    return value.map((v, i) => fitValue(t.ofType, v, { path: `${at.path}[${i}]`, sent: `${at.sent}[${i}]` }, sentAs));
  }
  if (value instanceof UploadedFile) return fitFile(t, value);
  // Several file parts where one file is wanted: the first is the upload.
  if (Array.isArray(value) && value[0] instanceof UploadedFile) return fitFile(t, value[0]);
  // A form sent a key twice where one value is wanted: the last one wins. A JSON array there is
  // left as it is, for GraphQL to refuse: nothing sent is dropped without a word.
  if (value instanceof RepeatedKey && !(isScalarType(t) && t.name === 'JSON')) return fitValue(type, value[value.length - 1], at, sentAs);
  if (isInputObjectType(t)) {
    // Anything but an object (an array too: its indexes are no keys) is left for GraphQL to refuse.
    return value && typeof value === 'object' && !Array.isArray(value) ? fitInput(t, value as Record<string, unknown>, sentAs, at) : value;
  }
  if (typeof value !== 'string') {
    if (t === GraphQLBoolean && typeof value === 'number' && (value === 0 || value === 1)) return value === 1;
    if (isScalarType(t) && t.name === 'String' && typeof value === 'number') return numberAsText(value, at.sent);
    if (isScalarType(t) && t.name === 'String' && typeof value === 'boolean') return String(value);
    return value;
  }
  const s = value.trim();
  if (t === GraphQLBoolean) {
    if (s === '') return undefined;
    if (/^(true|1)$/i.test(s)) return true;
    if (/^(false|0)$/i.test(s)) return false;
    return value;
  }
  if (t === GraphQLInt || t === GraphQLFloat) {
    if (s === '') return undefined;
    return /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : value;
  }
  if (isScalarType(t) && (t.name === 'UUID' || t.name === 'DateTime' || codeScalarNamed(t.name)) && s === '') return undefined;
  return value;
}

/**
 * A number sent where text is wanted (legacy clients send `"firstName": 42`), as its text, when
 * that text is surely what was sent (`keptNumberText`); otherwise a 400 asking for a string.
 */
export function numberAsText(n: number, label: string): string {
  const text = keptNumberText(n);
  if (text === undefined) {
    throw badRequest(`The field '${label.slice(0, 64)}' takes text: send this value as a string in quotes. As a JSON number (${shownNumber(n)}) it may already have been rounded or rewritten, so it cannot be kept as sent.`);
  }
  return text;
}

/** A file part: its text where a string is wanted (a designer's XML), else its name, type and bytes (base64). */
function fitFile(type: GraphQLInputType, file: UploadedFile): unknown {
  if (!isInputObjectType(type)) {
    const text = fileText(file.bytes, 'file part sent as text');
    if (text.includes('\u0000')) throw badRequest('The request body must not contain NUL (U+0000) characters.');
    return text;
  }
  return { name: file.name, type: file.type, base64: file.bytes.toString('base64') };
}
