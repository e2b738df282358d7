import { parseFieldList } from '../../src/query/field-list.js';
import { badRequestOf } from './support.js';

const listError = (text: string) => badRequestOf(() => parseFieldList(text)).message;

describe('parseFieldList', () => {
  it.each([
    ['', []],
    ['name', ['name']],
    ['id,NAME', ['id', 'NAME']],
    ['id, firstName', ['id', 'firstName']],
    ['City, ZIP', ['City', 'ZIP']],
    [' a ,, b ,', ['a', 'b']],
    ['Notes & more, a]b, a[b', ['Notes & more', 'a]b', 'a[b']],
  ])('keeps every unbracketed spelling as before: %j', (text, names) => {
    expect(parseFieldList(text)).toEqual(names);
  });

  it.each([
    ['[x,y]', ['x,y']],
    ['[x,y],c', ['x,y', 'c']],
    ['c, [x,y] , d', ['c', 'x,y', 'd']],
    ['[a]]b]', ['a]b']],
    ['[[]', ['[']],
    ['[ padded ]', [' padded ']],
    ['[,],[]]]', [',', ']']],
    ['[name]', ['name']],
  ])('reads a bracketed item as q reads a bracketed name: %j', (text, names) => {
    expect(parseFieldList(text)).toEqual(names);
  });

  it.each([
    ['a, [x,y', 'Invalid fields: unterminated field name starting at position 4'],
    ['[a]]b', 'Invalid fields: unterminated field name starting at position 1'],
    ['[]', 'Invalid fields: empty field name at position 1'],
    ['a,[ ],b', 'Invalid fields: empty field name at position 3'],
    ['[a]b],c', "Invalid fields: expected ',' after the bracketed field name at position 4 (found 'b') (a ']' inside a bracketed field name is written ']]')"],
  ])('refuses %j with a 400 that says where', (text, message) => {
    expect(listError(text)).toBe(message);
  });
});
