/** The one ISO 8601 reader (src/scalars.ts): the DateTime scalar and the REST fields that take dates. */
import { isoInstant, parseDateTime } from '../src/scalars.js';

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

test.each(['tomorrow', '2030-02-30', '2023-02-29T00:00:00', '2030-13-01', '2030-01-01T25:00:00', '2030-01-31T12', ''])('%j is no date', (text) => {
  expect(isoInstant(text)).toBeUndefined();
  expect(() => parseDateTime(text)).toThrow('Expected a date-time like 2024-01-31T13:45:00');
});
