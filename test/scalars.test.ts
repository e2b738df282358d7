/** The one ISO 8601 reader (src/scalars.ts): the DateTime scalar and the REST fields that take dates. */
import { parseValue, type GraphQLError, type ListValueNode } from 'graphql';
import { DateTime, isoInstant, parseDateTime, scalarResolvers } from '../src/scalars.js';

test.each([
  ['2030-01-31', '2030-01-31T00:00:00.000Z'],
  ['2030-01-31T12:00:00', '2030-01-31T12:00:00.000Z'],
  ['2030-01-31 12:00', '2030-01-31T12:00:00.000Z'],
  ['2030-01-31T12:00:00.5+02:00', '2030-01-31T10:00:00.500Z'],
  [' 2024-02-29T00:00:00Z ', '2024-02-29T00:00:00.000Z'],
])('%s is %s (no zone: UTC)', (text, iso) => {
  expect(isoInstant(text)?.toISOString()).toBe(iso);
  expect(parseDateTime(text).toISOString()).toBe(iso);
});

// Years outside 1 to 9999 once in UTC: PostgreSQL would keep year 0 as 1 BC, which no read renders.
test.each(['tomorrow', '2030-02-30', '2023-02-29T00:00:00', '2030-13-01', '2030-01-01T25:00:00', '2030-01-31T12', '', '0000-12-31T23:00:00Z', '0001-01-01T00:00:00+05:00', '9999-12-31T23:00:00-05:00'])('%j is no date', (text) => {
  expect(isoInstant(text)).toBeUndefined();
  // The years are named: 9999-12-31T23:00:00-05:00 is written well and still refused.
  expect(() => parseDateTime(text)).toThrow('Expected a date-time like 2024-01-31T13:45:00, from year 1 to 9999 in UTC');
});

test('DateTime writes what the database reads back as text in UTC, whatever the process\'s time zone, years below 100 included', () => {
  const zone = process.env.TZ;
  // Node applies a changed TZ at once; Date's own parsing would read a zone-less text in it.
  process.env.TZ = 'America/New_York';
  try {
    expect(DateTime.serialize('2026-11-25 10:00:00')).toBe('2026-11-25T10:00:00.000');
    expect(DateTime.serialize('2026-11-25 10:00:00.123456+00')).toBe('2026-11-25T10:00:00.123');
    expect(DateTime.serialize('2026-11-25 15:30:00+05:30')).toBe('2026-11-25T10:00:00.000');
    expect(DateTime.serialize('0050-06-01 00:00:00+00')).toBe('0050-06-01T00:00:00.000');
    expect(DateTime.serialize(new Date('2026-11-25T10:00:00Z'))).toBe('2026-11-25T10:00:00.000');
    expect(() => DateTime.serialize('yesterday')).toThrow('invalid date');
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
});

test('the first and last instants PostgreSQL keeps readably are dates', () => {
  expect(isoInstant('0001-01-01T00:00:00Z')?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
  expect(isoInstant('9999-12-31T23:59:59Z')?.toISOString()).toBe('9999-12-31T23:59:59.000Z');
});

test('a JSON value written inline is kept as a variable would be: own keys, no number past a double, no variable inside', () => {
  const literal = (text: string) => scalarResolvers.JSON.parseLiteral(parseValue(text), undefined);
  const kept = literal('{ __proto__: { a: 1 }, constructor: 1, list: [1, 2.5, "x", true, null] }') as Record<string, unknown>;
  expect(Object.getOwnPropertyDescriptor(kept, '__proto__')?.value).toEqual({ a: 1 });
  expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
  expect(JSON.parse(JSON.stringify(kept))).toEqual(JSON.parse('{"__proto__":{"a":1},"constructor":1,"list":[1,2.5,"x",true,null]}'));
  expect(() => literal('{ n: 1e400 }')).toThrow('too large to keep');
  expect(() => literal('{ n: $x }')).toThrow('send the whole value as a variable');
});

test('a literal a scalar refuses is placed at the literal (graphql-js reports the error as thrown: without nodes, no locations)', () => {
  const refusal = (scalar: keyof typeof scalarResolvers, text: string) => {
    try {
      // On a line of its own, inside a list, so that its location is its own and not the text's start.
      scalarResolvers[scalar].parseLiteral((parseValue(`[\n  ${text}]`) as ListValueNode).values[0], undefined);
    } catch (e) {
      return e as GraphQLError;
    }
    throw new Error(`${scalar} took ${text}`);
  };
  for (const [scalar, text, message] of [
    ['UUID', '5', 'UUID must be a string'],
    ['UUID', '"abc"', 'Value is not a valid UUID: "abc"'],
    ['DateTime', '"garbage"', 'Expected a date-time like 2024-01-31T13:45:00, from year 1 to 9999 in UTC, got "garbage"'],
    ['DateTime', 'true', 'DateTime must be a string'],
    ['ReleaseState', '7', 'Expected 1 (or Released) or 0 (or Unreleased), got 7'],
    // Names every object answers to are no state (they were taken, and reached the database: a 500 on REST).
    ['ReleaseState', '"constructor"', 'Expected 1 (or Released) or 0 (or Unreleased), got "constructor"'],
    ['ReleaseState', '"__proto__"', 'Expected 1 (or Released) or 0 (or Unreleased), got "__proto__"'],
    ['UploadCheckIn', '"constructor"', 'Expected true or 0 (check the document in), or false or 1 (leave it as it is), got "constructor"'],
    ['UploadCheckIn', '2', 'Expected true or 0 (check the document in), or false or 1 (leave it as it is), got 2'],
    ['DataScope', '1.5', "DataScope must be 0 (the creator's own) or 1 (global)"],
    ['CheckInStatus', 'true', 'CheckInStatus must be 0 (check in) or 1 (check out), the values of checkInStatus'],
    ['CheckInStatus', '2', 'Expected 0 (check in) or 1 (check out), the values of checkInStatus, got 2'],
    ['LinkedObjectType', '17', 'Expected a whole number from 0 to 16, or 99, got 17'],
    ['LinkedObjectType', '"1.5"', 'Expected a whole number from 0 to 16, or 99, got "1.5"'],
    ['LinkedObjectType', '[99]', 'LinkedObjectType must be a whole number from 0 to 16, or 99'],
    ['JSON', '{ a: [1, 1e400] }', 'JSON holds a number too large to keep (1e400): send it as a string.'],
  ] as const) {
    const e = refusal(scalar, text);
    expect([scalar, text, e.message]).toEqual([scalar, text, message]);
    expect([scalar, text, e.locations?.[0].line]).toEqual([scalar, text, 2]);
  }
  // The nested refusal is placed at the nested value, not at the object holding it.
  expect(refusal('JSON', '{ a: [1, 1e400] }').locations).toEqual([{ line: 2, column: 12 }]);
});
