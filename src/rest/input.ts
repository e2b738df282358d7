/**
 * Fits a legacy body onto a GraphQL input type: keys match case-insensitively (`emailaddress`,
 * `UserId`), form strings become booleans and numbers where the field wants them, and keys the
 * type does not know are dropped. Values that still do not fit are left for GraphQL to reject.
 */
import { badRequest } from '../errors.js';
import { RepeatedKey, UploadedFile, utf8Text } from './body.js';
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

/** `sentAs`, when given, learns each top-level field the body spelled otherwise (`dropdownListId` for `dropDownListId`). */
export function fitInput(type: GraphQLInputObjectType, body: Record<string, unknown>, sentAs?: Map<string, string>): Record<string, unknown> {
  const fields = type.getFields();
  const byLower = new Map(Object.keys(fields).map((name) => [name.toLowerCase(), name]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const name = byLower.get(key.toLowerCase());
    if (!name || value === undefined) continue;
    if (key !== name) sentAs?.set(name, key);
    const fitted = fitValue(fields[name].type, value);
    if (fitted !== undefined) out[name] = fitted;
  }
  return out;
}

function fitValue(type: GraphQLInputType, value: unknown): unknown {
  const t = getNullableType(type);
  if (value === null) return null;
  if (isListType(t)) return (Array.isArray(value) ? value : [value]).map((v) => fitValue(t.ofType, v));
  if (value instanceof UploadedFile) return fitFile(t, value);
  // Several file parts where one file is wanted: the first is the upload.
  if (Array.isArray(value) && value[0] instanceof UploadedFile) return fitFile(t, value[0]);
  // A form sent a key twice where one value is wanted: the last one wins. A JSON array there is
  // left as it is, for GraphQL to refuse: nothing sent is dropped without a word.
  if (value instanceof RepeatedKey && !(isScalarType(t) && t.name === 'JSON')) return fitValue(type, value[value.length - 1]);
  if (isInputObjectType(t)) {
    return value && typeof value === 'object' ? fitInput(t, value as Record<string, unknown>) : value;
  }
  if (typeof value !== 'string') {
    if (t === GraphQLBoolean && typeof value === 'number' && (value === 0 || value === 1)) return value === 1;
    if (isScalarType(t) && t.name === 'String' && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
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
  if (isScalarType(t) && (t.name === 'UUID' || t.name === 'DateTime') && s === '') return undefined;
  return value;
}

/** A file part: its text where a string is wanted (a designer's XML), else its name, type and bytes (base64). */
function fitFile(type: GraphQLInputType, file: UploadedFile): unknown {
  if (!isInputObjectType(type)) {
    const text = utf8Text(file.bytes, 'file part sent as text');
    if (text.includes('\u0000')) throw badRequest('The request body must not contain NUL (U+0000) characters.');
    return text;
  }
  return { name: file.name, type: file.type, base64: file.bytes.toString('base64') };
}
