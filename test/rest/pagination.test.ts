/** The arithmetic of `pagination`'s links (src/rest/envelope.ts): which offsets first, last, next and previous name. */
import { pageOffsets, pagination } from '../../src/rest/envelope.js';

const at = (limit: number, offset: number, totalRecords: number) => pageOffsets({ limit, offset, totalRecords });

describe('pageOffsets', () => {
  test('pages from 0: last is the page of the last record; next and previous step by limit', () => {
    expect(at(3, 0, 10)).toEqual({ last: 9, next: 3, previous: undefined });
    expect(at(3, 3, 10)).toEqual({ last: 9, next: 6, previous: 0 });
    expect(at(3, 9, 10)).toEqual({ last: 9, next: undefined, previous: 6 });
    expect(at(5, 0, 10)).toEqual({ last: 5, next: 5, previous: undefined });
    expect(at(5, 5, 10)).toEqual({ last: 5, next: undefined, previous: 0 });
  });

  test('an offset that is no multiple of limit: last is in step with next (offset + a multiple of limit)', () => {
    expect(at(3, 1, 10)).toEqual({ last: 7, next: 4, previous: 0 });
    expect(at(3, 4, 10)).toEqual({ last: 7, next: 7, previous: 1 });
    expect(at(3, 7, 10)).toEqual({ last: 7, next: undefined, previous: 4 });
    // Following next from 1 lands on last.
    let page = at(3, 1, 10);
    let offset = 1;
    while (page.next !== undefined) page = at(3, (offset = page.next), 10);
    expect(offset).toBe(page.last);
  });

  test('an offset past the end: previous is the last page that has records, not offset - limit (an empty page)', () => {
    expect(at(3, 100, 4)).toEqual({ last: 1, next: undefined, previous: 1 });
    expect(at(3, 99, 4)).toEqual({ last: 3, next: undefined, previous: 3 });
    expect(at(2, 4, 4)).toEqual({ last: 2, next: undefined, previous: 2 });
    expect(at(200, 500, 4)).toEqual({ last: 0, next: undefined, previous: 0 });
    // No page in step holds a record: the first page.
    expect(at(3, 2, 1)).toEqual({ last: 0, next: undefined, previous: 0 });
  });

  test('nothing to page: no records, or limit 0', () => {
    expect(at(3, 0, 0)).toEqual({ last: 0, next: undefined, previous: undefined });
    expect(at(3, 6, 0)).toEqual({ last: 0, next: undefined, previous: undefined });
    expect(at(0, 0, 5)).toEqual({ last: 0 });
    expect(at(0, 2, 5)).toEqual({ last: 0 });
  });
});

test('pagination names those offsets in its links, keeping the other parameters', () => {
  const request = new Request('http://x/api/v1/a/b/lists?limit=3&offset=100&q=name%20ne%20%27%27');
  const p = pagination(request, { limit: 3, offset: 100, totalRecords: 4 });
  const offsetOf = (href: string) => new URL(href).searchParams.get('offset');
  expect([p.first, p.last, p.previous].map(offsetOf)).toEqual(['0', '1', '1']);
  expect(p.next).toBe('');
  expect(new URL(p.previous).searchParams.get('q')).toBe("name ne ''");
});
