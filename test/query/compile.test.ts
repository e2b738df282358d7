import { compileQ as compileFragment, compileQText as compileTextFragment, FieldMap, MAX_DATEADD_YEARS, MAX_LISTED_FIELDS, parseQ, queryFields, type QExpr, type QueryFieldMap } from '../../src/query/index.js';
import { appErrorOf, badRequestOf, fields, shown } from './support.js';
import { raw, sql } from '../../src/sql.js';

// The fragment as `?`-placeholder text and its values, for reading expectations at a glance.
const compileQ = (ast: QExpr, f: QueryFieldMap) => shown(compileFragment(ast, f));
const compileQText = (q: string | undefined, f: QueryFieldMap) => {
  const c = compileTextFragment(q, f);
  return c && shown(c);
};

const compile = (q: string) => compileQ(parseQ(q), fields);

const compileError = (q: string) => badRequestOf(() => compile(q)).message;

const GUID = '0F8FAD5B-D9CB-469F-A165-70867728950E';

describe('compileQ: comparisons by type', () => {
  it.each([
    ["[name] eq 'Home'", 'name_key("t"."name") = name_key(?)', ['Home']],
    ["NAME ne 'Home'", 'name_key("t"."name") <> name_key(?)', ['Home']],
    ["name gt 'a'", 'name_key("t"."name") > name_key(?)', ['a']],
    ["name ge 'a'", 'name_key("t"."name") >= name_key(?)', ['a']],
    ["name lt 'a'", 'name_key("t"."name") < name_key(?)', ['a']],
    ["name le 'a'", 'name_key("t"."name") <= name_key(?)', ['a']],
    ['name eq 5', 'name_key("t"."name") = name_key(?)', ['5']],
    // A bare number compared with text is its text as written, not as JavaScript reads it.
    ['name eq 007', 'name_key("t"."name") = name_key(?)', ['007']],
    ['name eq 12345678901234567891', 'name_key("t"."name") = name_key(?)', ['12345678901234567891']],
    ['name eq 1.50', 'name_key("t"."name") = name_key(?)', ['1.50']],
    ['name eq true', 'name_key("t"."name") = name_key(?)', ['true']],
    ["[first name] eq 'O''Brien'", 'name_key("t"."first_name") = name_key(?)', ["O'Brien"]],
    ["[odd]]name] eq 'x'", 'name_key("t"."odd") = name_key(?)', ['x']],
    ['scope eq 1', '"t"."scope" = ?::bigint', [1]],
    ["scope = '5'", '"t"."scope" = ?::bigint', [5]],
    ["scope > '-5'", '"t"."scope" > ?::bigint', [-5]],
    ["enabled eq 'true'", '"t"."enabled" = ?::boolean', [true]],
    ["enabled eq 'FALSE'", '"t"."enabled" = ?::boolean', [false]],
    ["enabled eq '1'", '"t"."enabled" = ?::boolean', [true]],
    ['enabled eq 0', '"t"."enabled" = ?::boolean', [false]],
    ['enabled ne true', '"t"."enabled" <> ?::boolean', [true]],
    [`id eq '${GUID}'`, '"t"."id" = ?::uuid', [GUID.toLowerCase()]],
    // A datetime field as shown (cut to the millisecond), after an index-friendly range on the stored value.
    ["createDate gt '2024-01-01'", `"t"."create_date" > ?::timestamp AND date_trunc('milliseconds', "t"."create_date") > ?::timestamp`, ['2024-01-01T00:00:00', '2024-01-01T00:00:00']],
    ["createDate le '2024-01-01T13:45'", `"t"."create_date" < ?::timestamp + interval '1 millisecond' AND date_trunc('milliseconds', "t"."create_date") <= ?::timestamp`, ['2024-01-01T13:45:00', '2024-01-01T13:45:00']],
    ["createDate lt '2024-02-29 23:59:59.123456Z'", `"t"."create_date" < ?::timestamp + interval '1 millisecond' AND date_trunc('milliseconds', "t"."create_date") < ?::timestamp`, ['2024-02-29T23:59:59.123456', '2024-02-29T23:59:59.123456']],
    // An offset says which UTC instant is meant (.NET's DateTime.ToString("o") writes seven digits and one).
    ["createDate ne '2024-01-01T01:30:00.1234567+02:00'", `date_trunc('milliseconds', "t"."create_date") <> ?::timestamp`, ['2023-12-31T23:30:00.1234567']],
    ["createDate ne '0001-01-01T05:00-0530'", `date_trunc('milliseconds', "t"."create_date") <> ?::timestamp`, ['0001-01-01T10:30:00']],
    ["createDate ne '2024-02-28T23:00-01:00'", `date_trunc('milliseconds', "t"."create_date") <> ?::timestamp`, ['2024-02-29T00:00:00']],
    ["createDate eq '2024-01-01T13:45:00.123'", `"t"."create_date" >= ?::timestamp AND "t"."create_date" < ?::timestamp + interval '1 millisecond' AND date_trunc('milliseconds', "t"."create_date") = ?::timestamp`, Array(3).fill('2024-01-01T13:45:00.123')],
    ["'2024-01-01' lt createDate", `"t"."create_date" > ?::timestamp AND ?::timestamp < date_trunc('milliseconds', "t"."create_date")`, ['2024-01-01T00:00:00', '2024-01-01T00:00:00']],
    ["createDate ne '2024-01-01'", `date_trunc('milliseconds', "t"."create_date") <> ?::timestamp`, ['2024-01-01T00:00:00']],
    ['name eq description', 'name_key("t"."name") = name_key("t"."description")', []],
    ['createDate lt modifyDate', `date_trunc('milliseconds', "t"."create_date") < date_trunc('milliseconds', "t"."modify_date")`, []],
    ['id eq ownerId', '"t"."id" = "t"."owner_id"', []],
    ['id eq name', 'name_key("t"."id"::text) = name_key("t"."name")', []],
    ["'x' eq name", 'name_key(?) = name_key("t"."name")', ['x']],
  ])('%s', (q, sql, params) => {
    expect(compile(q)).toEqual({ sql, params });
  });
});

describe('compileQ: null', () => {
  it.each([
    ['name eq null', '"t"."name" IS NULL'],
    ['name ne null', '"t"."name" IS NOT NULL'],
    ['null eq scope', '"t"."scope" IS NULL'],
    ['name is null', '"t"."name" IS NULL'],
    ['createDate is not null', '"t"."create_date" IS NOT NULL'],
    ['substring(name, 1, 2) is null', 'substring("t"."name" from ?::int for ?::int) IS NULL'],
    ['null eq null', 'TRUE'],
    ['null ne null', 'FALSE'],
    ['null is not null', 'FALSE'],
  ])('%s', (q, sql) => {
    expect(compile(q).sql).toBe(sql);
  });

  it('types a lone literal tested for null', () => {
    expect(compile("'x' is null")).toEqual({ sql: '?::text IS NULL', params: ['x'] });
    expect(compile('1 eq null')).toEqual({ sql: '?::numeric IS NULL', params: [1] });
  });

  it('rejects null with other operators, like and between', () => {
    expect(compileError('scope gt null')).toBe("Invalid q: null can only be compared with eq or ne, not 'gt' at position 7");
    expect(compileError('name like null')).toBe("Invalid q: 'like' cannot be used with null at position 6");
    expect(compileError('scope between null and 1')).toBe("Invalid q: 'between' cannot be used with null at position 7");
    expect(compileError('null in (1)')).toBe("Invalid q: 'in' cannot have null on its left at position 6");
  });
});

describe('compileQ: like', () => {
  it.each([
    ["userid like 'ad%'", `name_key("t"."user_id") LIKE name_key(?) ESCAPE ''`, ['ad%']],
    ["userId not like 'a_'", `name_key("t"."user_id") NOT LIKE name_key(?) ESCAPE ''`, ['a_']],
    ["name like 'C:\\dir\\'", `name_key("t"."name") LIKE name_key(?) ESCAPE ''`, ['C:\\dir\\']],
    ["scope like '1%'", `name_key("t"."scope"::text) LIKE name_key(?) ESCAPE ''`, ['1%']],
    ["id like '0f8f%'", `name_key("t"."id"::text) LIKE name_key(?) ESCAPE ''`, ['0f8f%']],
    ["createDate like '2024-01%'", `name_key(to_char(date_trunc('milliseconds', "t"."create_date"), 'YYYY-MM-DD"T"HH24:MI:SS.MS')) LIKE name_key(?) ESCAPE ''`, ['2024-01%']],
    ['name like 5', `name_key("t"."name") LIKE name_key(?) ESCAPE ''`, ['5']],
    ['name like description', `name_key("t"."name") LIKE name_key("t"."description") ESCAPE ''`, []],
    ["'abc' like 'a%'", `name_key(?::text) LIKE name_key(?::text) ESCAPE ''`, ['abc', 'a%']],
  ])('%s', (q, sql, params) => {
    expect(compile(q)).toEqual({ sql, params });
  });
});

describe('compileQ: between and in', () => {
  it.each([
    [
      "createDate between '2024-01-01' and '2024-02-01'",
      `"t"."create_date" >= ?::timestamp AND "t"."create_date" < ?::timestamp + interval '1 millisecond' AND date_trunc('milliseconds', "t"."create_date") BETWEEN ?::timestamp AND ?::timestamp`,
      ['2024-01-01T00:00:00', '2024-02-01T00:00:00', '2024-01-01T00:00:00', '2024-02-01T00:00:00'],
    ],
    ["createDate not between '2024-01-01' and '2024-02-01'", `date_trunc('milliseconds', "t"."create_date") NOT BETWEEN ?::timestamp AND ?::timestamp`, ['2024-01-01T00:00:00', '2024-02-01T00:00:00']],
    ["createDate in ('2024-01-01', null)", `(date_trunc('milliseconds', "t"."create_date") IN (?::timestamp) OR date_trunc('milliseconds', "t"."create_date") IS NULL)`, ['2024-01-01T00:00:00']],
    ['scope not between 1 and 3', '"t"."scope" NOT BETWEEN ?::bigint AND ?::bigint', [1, 3]],
    ["name between 'a' and 'm'", 'name_key("t"."name") BETWEEN name_key(?) AND name_key(?)', ['a', 'm']],
    ["name in ('a','b')", 'name_key("t"."name") IN (name_key(?), name_key(?))', ['a', 'b']],
    ["name not in ('a')", 'name_key("t"."name") NOT IN (name_key(?))', ['a']],
    ["scope in (1, '2')", '"t"."scope" IN (?::bigint, ?::bigint)', [1, 2]],
    [`id in ('${GUID}')`, '"t"."id" IN (?::uuid)', [GUID.toLowerCase()]],
    ["name in ('a', null)", '(name_key("t"."name") IN (name_key(?)) OR "t"."name" IS NULL)', ['a']],
    ["name not in ('a', null)", 'NOT (name_key("t"."name") IN (name_key(?)) OR "t"."name" IS NULL)', ['a']],
    ['name in (null)', '"t"."name" IS NULL', []],
    ['name not in (null)', '"t"."name" IS NOT NULL', []],
    ["name in (description, 'x')", 'name_key("t"."name") IN (name_key("t"."description"), name_key(?))', ['x']],
  ])('%s', (q, sql, params) => {
    expect(compile(q)).toEqual({ sql, params });
  });
});

describe('compileQ: boolean structure', () => {
  it('joins and, parenthesises or, wraps not', () => {
    expect(compile("userid like 'ad%' and enabled eq 'true'")).toEqual({
      sql: `name_key("t"."user_id") LIKE name_key(?) ESCAPE '' AND "t"."enabled" = ?::boolean`,
      params: ['ad%', true],
    });
    expect(compile('scope eq 1 or scope eq 2 and enabled eq true')).toEqual({
      sql: '("t"."scope" = ?::bigint OR "t"."scope" = ?::bigint AND "t"."enabled" = ?::boolean)',
      params: [1, 2, true],
    });
    expect(compile("not (name eq 'x' or description = 'y')")).toEqual({
      sql: 'NOT (name_key("t"."name") = name_key(?) OR name_key("t"."description") = name_key(?))',
      params: ['x', 'y'],
    });
    expect(compile('not scope eq 1')).toEqual({ sql: 'NOT ("t"."scope" = ?::bigint)', params: [1] });
    expect(compile('(scope eq 1 or scope eq 2) and (scope eq 3 or scope eq 4)')).toEqual({
      sql: '("t"."scope" = ?::bigint OR "t"."scope" = ?::bigint) AND ("t"."scope" = ?::bigint OR "t"."scope" = ?::bigint)',
      params: [1, 2, 3, 4],
    });
  });

  it('keeps params in placeholder order through nesting', () => {
    const { sql, params } = compile("substring(name, 2, 3) in ('a', 'b') or not (scope between 1 and 9 and dateadd(hour, 4, createDate) gt '2024-01-01')");
    expect(sql).toBe(
      '(name_key(substring("t"."name" from ?::int for ?::int)) IN (name_key(?), name_key(?)) OR ' +
        `NOT ("t"."scope" BETWEEN ?::bigint AND ?::bigint AND (date_trunc('milliseconds', "t"."create_date") + (?::int * interval '1 hour')) > ?::timestamp))`,
    );
    expect(params).toEqual([2, 3, 'a', 'b', 1, 9, 4, '2024-01-01T00:00:00']);
  });
});

describe('compileQ: functions', () => {
  it.each([
    ["substring(name,1,3) eq 'Hom'", 'name_key(substring("t"."name" from ?::int for ?::int)) = name_key(?)', [1, 3, 'Hom']],
    ["substring(scope, 1, 1) eq '4'", 'name_key(substring("t"."scope"::text from ?::int for ?::int)) = name_key(?)', [1, 1, '4']],
    ["substring('abc', '2', 0) eq ''", 'name_key(substring(?::text from ?::int for ?::int)) = name_key(?)', ['abc', 2, 0, '']],
    [
      "modifyDate gt dateadd(day,-7,'2024-05-01')",
      `"t"."modify_date" > (?::timestamp + (?::int * interval '1 day')) AND date_trunc('milliseconds', "t"."modify_date") > (?::timestamp + (?::int * interval '1 day'))`,
      ['2024-05-01T00:00:00', -7, '2024-05-01T00:00:00', -7],
    ],
    [
      "dateadd(month,1,[createDate]) lt '2025-01-01'",
      `(date_trunc('milliseconds', "t"."create_date") + (?::int * interval '1 month')) < ?::timestamp`,
      [1, '2025-01-01T00:00:00'],
    ],
    [
      "dateadd('YEAR', 1, dateadd(second, 30, createDate)) eq modifyDate",
      `((date_trunc('milliseconds', "t"."create_date") + (?::int * interval '1 second')) + (?::int * interval '1 year')) = date_trunc('milliseconds', "t"."modify_date")`,
      [30, 1],
    ],
    ["dateadd(minute, 5, createDate) like '2024%'", `name_key(to_char((date_trunc('milliseconds', "t"."create_date") + (?::int * interval '1 minute')), 'YYYY-MM-DD"T"HH24:MI:SS.MS')) LIKE name_key(?) ESCAPE ''`, [5, '2024%']],
  ])('%s', (q, sql, params) => {
    expect(compile(q)).toEqual({ sql, params });
  });

  it('rejects bad function arguments', () => {
    expect(compileError("dateadd(day, 1, name) gt '2024-01-01'")).toBe("Invalid q: dateadd needs a date-time, but 'name' is a string at position 1");
    expect(compileError("dateadd(day, 1, scope) gt '2024-01-01'")).toBe("Invalid q: dateadd needs a date-time, but 'scope' is an integer at position 1");
    expect(compileError("dateadd(day, 1.5, createDate) gt '2024-01-01'")).toBe('Invalid q: 1.5 is not an integer (the amount of dateadd) at position 14');
    expect(compileError("dateadd(day, scope, createDate) gt '2024-01-01'")).toBe('Invalid q: the amount of dateadd must be an integer literal at position 14');
    expect(compileError("dateadd(day, 1, 'soon') gt createDate")).toBe("Invalid q: 'soon' is not a valid date-time (compared with dateadd) at position 17");
    expect(compileError("dateadd(day, 1, null) gt createDate")).toBe('Invalid q: dateadd needs a date-time, not null at position 1');
    expect(compileError("substring(name, 1, -1) eq 'x'")).toBe('Invalid q: the length of substring cannot be negative at position 20');
    expect(compileError("substring(name, 'a', 1) eq 'x'")).toBe("Invalid q: 'a' is not an integer (the start of substring) at position 17");
    expect(compileError("substring(name, 1, 3000000000) eq 'x'")).toBe('Invalid q: 3000000000 is out of range (the length of substring) at position 20');
    expect(compileError("substring(null, 1, 1) eq 'x'")).toBe('Invalid q: substring needs a value, not null at position 1');
  });

  it(`limits the total shift of nested dateadds to ${MAX_DATEADD_YEARS} years`, () => {
    expect(() => compile(`dateadd(year, ${MAX_DATEADD_YEARS}, createDate) gt '2024-01-01'`)).not.toThrow();
    expect(compileError(`dateadd(year, 2000, dateadd(month, 24001, createDate)) gt '2024-01-01'`)).toBe(
      `Invalid q: dateadd moves the date too far (more than ${MAX_DATEADD_YEARS} years in total) at position 15`,
    );
  });
});

describe('compileQ: comparisons without a field', () => {
  it.each([
    ['1 eq 1', '?::numeric = ?::numeric', [1, 1]],
    ["1 eq '1.0'", '?::numeric = ?::numeric', [1, 1]],
    ["'a' eq 'A'", 'name_key(?::text) = name_key(?::text)', ['a', 'A']],
    ["true ne 'false'", '?::boolean <> ?::boolean', [true, false]],
    ['2 between 1 and 3', '?::numeric BETWEEN ?::numeric AND ?::numeric', [2, 1, 3]],
  ])('%s', (q, sql, params) => {
    expect(compile(q)).toEqual({ sql, params });
  });

  it('rejects values that do not fit the inferred type', () => {
    expect(compileError("1 eq 'one'")).toBe("Invalid q: 'one' is not a number at position 6");
  });
});

describe('compileQ: errors', () => {
  it('names an unknown field and its position, and lists the known ones for developers as records spell them', () => {
    const error = appErrorOf(() => compile("foo eq 'x'"));
    expect(error.message).toBe("Invalid q: unknown field 'foo' at position 1");
    expect(error.developerMessage).toContain('Known fields: id, name, description, userId, [first name], [odd]]name], scope, enabled, createDate, modifyDate, ownerId.');
    // The names listed are looked up in any case, as ever.
    expect(compile("userId eq 'x' and USERID eq 'x' and createdate is null")).toMatchObject({ sql: expect.stringContaining('"t"."user_id"') });
    expect(compileError("name eq 'x' and [no such] eq 1")).toBe("Invalid q: unknown field 'no such' at position 17");
  });

  it('names a field as it is stored, not as q escapes it, and lists names as q writes them', () => {
    const error = appErrorOf(() => compile("[no]]such] eq 'x'"));
    expect(error.message).toBe("Invalid q: unknown field 'no]such' at position 1");
    expect(error.developerMessage).toContain('Known fields: id, name, description, userId, [first name], [odd]]name], scope,');
    expect(compileError('[odd]]name] eq createDate')).toBe("Invalid q: cannot compare 'odd]name' (string) with 'createDate' (datetime) at position 13");
  });

  it(`lists at most ${MAX_LISTED_FIELDS} known fields and counts the rest`, () => {
    const names = Array.from({ length: MAX_LISTED_FIELDS + 7 }, (_, i) => `f${i}`);
    const many = queryFields(Object.fromEntries(names.map((n) => [n, { sql: 't.x', type: 'string' as const }])));
    const error = appErrorOf(() => compileQ(parseQ("nope eq 'x'"), many));
    expect(error.developerMessage).toContain(`Known fields: ${names.slice(0, MAX_LISTED_FIELDS).join(', ')} and 7 more.`);
    const exactly = queryFields(Object.fromEntries(names.slice(0, MAX_LISTED_FIELDS).map((n) => [n, { sql: 't.x', type: 'string' as const }])));
    expect(appErrorOf(() => compileQ(parseQ("nope eq 'x'"), exactly)).developerMessage).toMatch(new RegExp(`f${MAX_LISTED_FIELDS - 1}\\.$`));
  });

  it.each([
    ["scope eq 'x'", "Invalid q: 'x' is not an integer (compared with 'scope') at position 10"],
    ['scope eq 1.5', "Invalid q: 1.5 is not an integer (compared with 'scope') at position 10"],
    ['scope eq true', "Invalid q: true is not an integer (compared with 'scope') at position 10"],
    // Named as written, not as JavaScript rounded it.
    ['scope eq 9007199254740993', "Invalid q: 9007199254740993 is out of range for an integer (compared with 'scope') at position 10"],
    ["substring(name, 99999999999999999, 1) eq 'x'", 'Invalid q: 99999999999999999 is out of range (the start of substring) at position 17'],
    ["scope in (1, 'two')", "Invalid q: 'two' is not an integer (compared with 'scope') at position 14"],
    ["enabled eq 'yes'", "Invalid q: 'yes' is not a boolean (compared with 'enabled') at position 12"],
    ['enabled eq 2', "Invalid q: 2 is not a boolean (compared with 'enabled') at position 12"],
    ["id eq 'abc'", "Invalid q: 'abc' is not a GUID (compared with 'id') at position 7"],
    [`id eq '{${GUID}}'`, `Invalid q: '{${GUID}}' is not a GUID (compared with 'id') at position 7`],
    ["createDate gt 'yesterday'", "Invalid q: 'yesterday' is not a valid date-time (compared with 'createDate') at position 15"],
    ["createDate gt '2024-02-30'", "Invalid q: '2024-02-30' is not a valid date-time (compared with 'createDate') at position 15"],
    ["createDate gt '2023-02-29'", "Invalid q: '2023-02-29' is not a valid date-time (compared with 'createDate') at position 15"],
    ["createDate gt '2024-01-01T24:00'", "Invalid q: '2024-01-01T24:00' is not a valid date-time (compared with 'createDate') at position 15"],
    ["createDate gt '2024-01-01T10:00+24:00'", "Invalid q: '2024-01-01T10:00+24:00' is not a valid date-time (compared with 'createDate') at position 15"],
    ["createDate gt '2024-01-01+02:00'", "Invalid q: '2024-01-01+02:00' is not a valid date-time (compared with 'createDate') at position 15"],
    ["createDate gt '9999-12-31T23:00-02:00'", "Invalid q: '9999-12-31T23:00-02:00' is not a valid date-time (compared with 'createDate') at position 15"],
    ['createDate gt 20240101', "Invalid q: 20240101 is not a valid date-time (compared with 'createDate') at position 15"],
    ['scope eq createDate', "Invalid q: cannot compare 'scope' (integer) with 'createDate' (datetime) at position 7"],
    ["substring(name, 1, 2) eq createDate", 'Invalid q: cannot compare substring(...) (string) with \'createDate\' (datetime) at position 23'],
  ])('%s', (q, message) => {
    expect(compileError(q)).toBe(message);
  });

  it('omits the position for hand-built ASTs without one', () => {
    const ast: QExpr = { kind: 'compare', op: 'eq', left: { kind: 'field', name: 'nope' }, right: { kind: 'number', value: 1 } };
    expect(appErrorOf(() => compileQ(ast, fields)).message).toBe("Invalid q: unknown field 'nope'");
  });
});

describe('compileQ: column expressions', () => {
  it('uses the caller’s SQL verbatim and wraps complex expressions before casting', () => {
    const custom = queryFields({
      full: { sql: `coalesce("u"."first", '') || "u"."last"`, type: 'string' },
      n: { sql: '"u"."a" + 1', type: 'integer' },
    });
    expect(compileQ(parseQ("full eq 'x'"), custom).sql).toBe(`name_key(coalesce("u"."first", '') || "u"."last") = name_key(?)`);
    expect(compileQ(parseQ("n like '1%'"), custom).sql).toBe(`name_key(("u"."a" + 1)::text) LIKE name_key(?) ESCAPE ''`);
  });
});

describe('compileQ: a field whose NULL reads as the empty string', () => {
  const unset: QueryFieldMap = new FieldMap([['v', { sql: raw('"t"."v"'), type: 'string', nullIsEmpty: true, foldsCaseOnly: true, eqHint: (x: string) => sql`hint(${x})` }]]);
  it.each([
    ["v eq ''", `lower(coalesce("t"."v", '')) = lower(?)`],
    ["'' eq v", `lower(?) = lower(coalesce("t"."v", ''))`],
    ["v ne ''", `lower(coalesce("t"."v", '')) <> lower(?)`],
    ["v in ('', 'a')", `lower(coalesce("t"."v", '')) IN (lower(?), lower(?))`],
    ["v not in ('', 'a')", `lower(coalesce("t"."v", '')) NOT IN (lower(?), lower(?))`],
    // Any other value keeps the plain field and its index hint.
    ["v eq 'a'", 'hint(?) AND lower("t"."v") = lower(?)'],
    // Negated, no hint: false for a row without the key, where the comparison is NULL (as `ne` is).
    ["not (v eq 'a')", 'NOT (lower("t"."v") = lower(?))'],
    ["not (v eq 'a' or v eq 'b')", 'NOT (lower("t"."v") = lower(?) OR lower("t"."v") = lower(?))'],
    ["not (not (v eq 'a')) and v eq 'b'", 'NOT (NOT (lower("t"."v") = lower(?))) AND hint(?) AND lower("t"."v") = lower(?)'],
    ["v in ('a')", 'lower("t"."v") IN (lower(?))'],
    ["v like ''", `"t"."v" ILIKE ? ESCAPE ''`],
    ['v is null', '"t"."v" IS NULL'],
  ])('%s', (q, expected) => {
    expect(compileQ(parseQ(q), unset).sql).toBe(expected);
  });
});

describe("compileQ: a typed field kept as text (a form's calendar or cell value) compared with ''", () => {
  const kept: QueryFieldMap = new FieldMap([
    ['d', { sql: sql`ts(${'d'})`, type: 'datetime', shownAsKept: true, keptText: sql`kept(${'d'})` }],
    ['n', { sql: sql`num(${'n'})`, type: 'numeric', keptText: sql`kept(${'n'})` }],
  ]);
  it.each([
    // eq and ne: whether it holds any text, as `eq ''` finds an unset text field.
    ["d eq ''", `coalesce(kept(?), '') = ''`],
    ["'' eq d", `coalesce(kept(?), '') = ''`],
    ["n ne ''", `coalesce(kept(?), '') <> ''`],
    ["not (n eq '')", `NOT (coalesce(kept(?), '') = '')`],
    // in: '' is that test, beside the other values compared as the type.
    ["d in ('')", `coalesce(kept(?), '') = ''`],
    ["d in ('', '2026-01-01')", `(coalesce(kept(?), '') = '' OR ts(?) IN (?::timestamp))`],
    ["n not in (5, '')", `NOT (coalesce(kept(?), '') = '' OR num(?) IN (?::numeric))`],
    // Other values compare as the type.
    ["d eq '2026-01-01'", 'ts(?) = ?::timestamp'],
    ['n ne 5', 'num(?) <> ?::numeric'],
  ])('%s', (q, expected) => {
    expect(compileQ(parseQ(q), kept).sql).toBe(expected);
  });
  it.each([
    ["d gt ''", "'' is not a valid date-time (compared with 'd')"],
    ["n le ''", "'' is not a number (compared with 'n')"],
    ["d between '' and '2026-01-01'", "'' is not a valid date-time (compared with 'd')"],
  ])('%s stays a 400', (q, message) => {
    expect(badRequestOf(() => compileQ(parseQ(q), kept)).message).toContain(message);
  });
});

describe('compileQText', () => {
  it('returns undefined when there is no filter', () => {
    expect(compileQText(undefined, fields)).toBeUndefined();
    expect(compileQText('', fields)).toBeUndefined();
    expect(compileQText(' \t\n', fields)).toBeUndefined();
  });

  it('parses and compiles', () => {
    expect(compileQText('scope eq 1', fields)).toEqual({ sql: '"t"."scope" = ?::bigint', params: [1] });
    expect(appErrorOf(() => compileQText('scope eq', fields)).status).toBe(400);
  });
});
