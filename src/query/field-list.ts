/** The names `fields=` lists. */
import { badRequest } from '../errors.js';
import { readBracketed } from './lexer.js';

/** A ']' inside a bracketed name that was not doubled ends the name early: say how to write one. */
const DOUBLE = "(a ']' inside a bracketed field name is written ']]')";

/**
 * `fields=`: names separated by commas. An item in brackets is read as `q` reads a bracketed name
 * (any character, `]]` for `]`), so `[x,y]` names the field `x,y`; any other item is the text up
 * to the next comma, trimmed, as always (`City, ZIP`). Empty items are skipped. Names keep their
 * case (the projection compares them case-insensitively).
 */
export function parseFieldList(text: string): string[] {
  const names: string[] = [];
  const fail = (problem: string, at: number, detail = '') => badRequest(`Invalid fields: ${problem} at position ${at + 1}${detail}`);
  let i = 0;
  while (i < text.length) {
    const start = i;
    while (i < text.length && /\s/.test(text[i])) i++;
    if (text[i] !== '[') {
      const comma = text.indexOf(',', start);
      const end = comma < 0 ? text.length : comma;
      const name = text.slice(start, end).trim();
      if (name !== '') names.push(name);
      i = end + 1;
      continue;
    }
    const field = readBracketed(text, i);
    if (!field) throw fail('unterminated field name starting', i);
    if (field.name.trim() === '') throw fail('empty field name', i);
    names.push(field.name);
    i = field.end;
    while (i < text.length && /\s/.test(text[i])) i++;
    if (i < text.length && text[i] !== ',') throw fail(`expected ',' after the bracketed field name`, i, ` (found '${text[i]}') ${DOUBLE}`);
    i++;
  }
  return names;
}
