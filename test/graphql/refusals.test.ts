/** /graphql's refusals: every client mistake a 4xx with a GraphQL error body, never a 500 or an empty answer. */
import { Harness } from '../harness.js';
import { startServer, stop, type Started } from '../server-process.js';
import { newId } from '../../src/ids.js';

let h: Harness;
let token: string;

beforeAll(async () => ({ h, token } = await Harness.withTenant()));
afterAll(() => h.stop());

const post = (path: string, raw: string, contentType = 'application/json') =>
  h.request('POST', path, { token, raw, headers: { 'content-type': contentType } });

test('a query that is not a string is a 400 naming the parameter', async () => {
  const r = await post('/graphql', '{"query": 5}');
  expect(r.status).toBe(400);
  expect(r.body.errors[0].message).toMatch(/"query" param to be a string/);
});

test('a subscription is a 400 that says which operations there are, by POST and by GET', async () => {
  const byPost = await post('/graphql', JSON.stringify({ query: 'subscription S { sites { totalRecords } }' }));
  expect(byPost.status).toBe(400);
  expect(byPost.body.errors[0]).toMatchObject({ message: expect.stringMatching(/no subscription operations/), extensions: { code: 'BAD_REQUEST' } });
  const byGet = await h.request('GET', `/graphql?query=${encodeURIComponent('subscription { sites { totalRecords } }')}`, {
    token,
    headers: { accept: 'application/json' },
  });
  expect(byGet.status).toBe(400);
  expect(byGet.body.errors[0].extensions.code).toBe('BAD_REQUEST');
});

test('a GET whose variables or extensions are not JSON is a 400 naming the parameter, not a 500', async () => {
  for (const name of ['variables', 'extensions']) {
    const r = await h.request('GET', `/graphql?query=${encodeURIComponent('{ sites { totalRecords } }')}&${name}=notjson`, { token, headers: { accept: 'application/json' } });
    expect([name, r.status]).toEqual([name, 400]);
    expect(r.body.errors[0]).toMatchObject({ message: `The query parameter '${name}' must be a JSON object, got 'notjson'.`, extensions: { code: 'BAD_REQUEST' } });
  }
  const fine = await h.request('GET', `/graphql?query=${encodeURIComponent('{ sites { totalRecords } }')}&variables=${encodeURIComponent('{}')}`, { token, headers: { accept: 'application/json' } });
  expect(fine.status).toBe(200);
  expect(fine.body.data.sites.totalRecords).toBe(1);
});

test('a mutation sent by GET is a 405 METHOD_NOT_ALLOWED with Allow: POST, as every 405', async () => {
  const query = encodeURIComponent('mutation { deleteSite(id: "00000000-0000-0000-0000-000000000000") { id } }');
  for (const accept of ['application/json', 'application/graphql-response+json']) {
    const r = await h.request('GET', `/graphql?query=${query}`, { token, headers: { accept } });
    expect([accept, r.status, r.headers.get('allow')]).toEqual([accept, 405, 'POST']);
    expect(r.body.errors).toEqual([{ message: 'A mutation is sent by POST: GET runs queries only.', extensions: { code: 'METHOD_NOT_ALLOWED', developerMessage: 'A mutation is sent by POST: GET runs queries only.' } }]);
  }
});

describe('a document whose operation cannot be chosen is a 400 that says why and lists the choices', () => {
  const two = 'query A { sites { totalRecords } } query B { groups { totalRecords } }';
  test.each([
    ['a name the document lacks', { query: two, operationName: 'C' }, "The query has no operation named 'C'; it has 'A', 'B'."],
    ['several operations and no operationName', { query: two }, "Send operationName: the query has 2 operations: 'A', 'B'."],
    ['a name where the one operation has none', { query: '{ sites { totalRecords } }', operationName: 'A' }, "The query has no operation named 'A'; it has one without a name."],
    ['only fragments', { query: 'fragment F on Site { id }' }, 'The query has no operation to execute, only fragments: add a query or a mutation.'],
    ['an operationName that is not a string', { query: two, operationName: 5 }, "The parameter 'operationName' must be a string, the name of an operation in the query, got 5."],
  ])('%s', async (_, body, message) => {
    const r = await post('/graphql', JSON.stringify(body));
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([{ message, extensions: { code: 'BAD_REQUEST', developerMessage: message } }]);
  });

  test('the list of operations is bounded', async () => {
    const many = Array.from({ length: 12 }, (_, i) => `query Q${i} { sites { totalRecords } }`).join(' ');
    const r = await post('/graphql', JSON.stringify({ query: many }));
    expect(r.body.errors[0].message).toBe("Send operationName: the query has 12 operations: 'Q0', 'Q1', 'Q2', 'Q3', 'Q4', 'Q5', 'Q6', 'Q7', 'Q8', 'Q9' and 2 more.");
  });

  test('"operationName": null, which many clients send, means none: the one operation runs; of several, the 400', async () => {
    const one = await post('/graphql', JSON.stringify({ query: '{ sites { totalRecords } }', operationName: null }));
    expect([one.status, one.body]).toEqual([200, { data: { sites: { totalRecords: 1 } } }]);
    const several = await post('/graphql', JSON.stringify({ query: two, operationName: null }));
    expect([several.status, several.body.errors[0].message]).toEqual([400, "Send operationName: the query has 2 operations: 'A', 'B'."]);
  });
});

test('a GET that sends a parameter twice with different values is a 400 naming both, as REST answers; the same value twice is read', async () => {
  const q = (text: string) => encodeURIComponent(text);
  for (const [name, a, b] of [
    ['query', '{ sites { totalRecords } }', '{ groups { totalRecords } }'],
    ['operationName', 'A', 'B'],
    ['variables', '{}', '{"x":1}'],
  ]) {
    const base = name === 'query' ? '' : `query=${q('query A { sites { totalRecords } } query B { groups { totalRecords } }')}&`;
    const r = await h.request('GET', `/graphql?${base}${name}=${q(a)}&${name}=${q(b)}`, { token, headers: { accept: 'application/json' } });
    expect([name, r.status]).toEqual([name, 400]);
    expect(r.body.errors[0]).toMatchObject({ message: `The query parameter '${name}' was sent 2 times with different values ('${a}' and '${b}'): send it once.`, extensions: { code: 'BAD_REQUEST' } });
  }
  const same = await h.request('GET', `/graphql?query=${q('{ sites { totalRecords } }')}&query=${q('{ sites { totalRecords } }')}`, { token, headers: { accept: 'application/json' } });
  expect([same.status, same.body]).toEqual([200, { data: { sites: { totalRecords: 1 } } }]);
});

// Doubled slashes are made one by Node's server in front of the app: tested below, on the wire.
test('/GraphQL in another case, with or without a trailing slash, answers as /graphql', async () => {
  for (const path of ['/GraphQL', '/GRAPHQL/', '/graphql/']) {
    const r = await post(path, JSON.stringify({ query: '{ sites { totalRecords } }' }));
    expect([path, r.status]).toEqual([path, 200]);
    expect(r.body.data.sites.totalRecords).toBe(1);
  }
});

test('a body in a media type GraphQL does not take is a 415 with an error that names the right one', async () => {
  const r = await post('/graphql', JSON.stringify({ query: '{ sites { totalRecords } }' }), 'text/plain');
  expect(r.status).toBe(415);
  expect(r.headers.get('content-length')).toBe(String(Buffer.byteLength(r.text)));
  expect(r.body.errors[0]).toMatchObject({ message: expect.stringMatching(/application\/json.*not text\/plain/), extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
});

describe('a body is read as REST reads one', () => {
  const query = JSON.stringify({ query: '{ sites { totalRecords } }' });
  const send = (raw: string | Uint8Array, headers: Record<string, string>) => h.request('POST', '/graphql', { token, raw, headers });

  test('a byte order mark before the JSON is taken, as REST takes it', async () => {
    const r = await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(query)]), { 'content-type': 'application/json' });
    expect([r.status, r.body]).toEqual([200, { data: { sites: { totalRecords: 1 } } }]);
  });

  test('a charset other than UTF-8 is a 415 that says to send UTF-8; utf-8 and us-ascii, any case, are read', async () => {
    for (const charset of ['utf-16', 'ISO-8859-1', '"utf-16le"']) {
      const r = await send(query, { 'content-type': `application/json; charset=${charset}` });
      expect([charset, r.status]).toEqual([charset, 415]);
      const declared = charset.replace(/"/g, '');
      expect(r.body.errors[0]).toMatchObject({ message: `The request body is declared as charset=${declared}: send it as UTF-8 (charset=utf-8, or no charset).`, extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    }
    for (const charset of ['utf-8', 'UTF-8', 'us-ascii', '"utf-8"']) {
      const r = await send(query, { 'content-type': `application/json;charset=${charset}` });
      expect([charset, r.status, r.body]).toEqual([charset, 200, { data: { sites: { totalRecords: 1 } } }]);
    }
  });

  test('the media type is read without regard to case, as RFC 9110 says (the Java client sends application/JSON)', async () => {
    for (const type of ['application/JSON', 'Application/Json; charset=UTF-8', 'APPLICATION/GRAPHQL+JSON']) {
      const r = await send(query, { 'content-type': type });
      expect([type, r.status, r.body]).toEqual([type, 200, { data: { sites: { totalRecords: 1 } } }]);
    }
    for (const [raw, message] of [['{', 'POST body sent invalid JSON.'], ['5', 'POST body is expected to be object but received number'], ['null', 'POST body is expected to be object but received null']]) {
      const r = await send(raw, { 'content-type': 'application/JSON' });
      expect([raw, r.status < 500, r.body.errors?.[0]?.message]).toEqual([raw, true, message]);
    }
  });

  test('an empty body is a 400 that says it is empty', async () => {
    for (const raw of ['', ' \n']) {
      const r = await send(raw, { 'content-type': 'application/json' });
      expect([raw, r.status]).toEqual([raw, 400]);
      expect(r.body.errors[0]).toMatchObject({ message: 'The request body is empty: send a JSON object with `query`.', extensions: { code: 'BAD_REQUEST' } });
    }
  });

  test('a body without a Content-Type is a 415 that says to send one', async () => {
    // Bytes, so that fetch adds no Content-Type of its own.
    const r = await send(new TextEncoder().encode(query), {});
    expect(r.status).toBe(415);
    expect(r.body.errors[0]).toMatchObject({ message: 'The request has no Content-Type: send `Content-Type: application/json` with a JSON body.', extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });
});

test('U+0000 written as an escape in a query\'s literal is a 400 like one in a variable, never a 500 from PostgreSQL', async () => {
  for (const query of [String.raw`{ sites(q: "name eq 'a\u0000b'") { totalRecords } }`, String.raw`{ formTemplate(id: "a\u0000") { id } }`]) {
    const r = await post('/graphql', JSON.stringify({ query }));
    expect([query, r.status]).toEqual([query, 400]);
    expect(r.body.errors[0]).toMatchObject({ message: expect.stringMatching(/must not contain NUL/), extensions: { code: 'BAD_REQUEST' } });
  }
  // An escaped backslash before u0000 is no NUL: the query runs.
  const plain = await post('/graphql', JSON.stringify({ query: String.raw`{ sites(q: "name eq 'a\\u0000'") { totalRecords } }` }));
  expect(plain.status).toBe(200);
  expect(plain.body.data.sites.totalRecords).toBe(0);
});

describe('limits and variables are refused as GraphQL-over-HTTP asks: a code, and 400 under application/graphql-response+json', () => {
  const aliases = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: sites { totalRecords }`).join(' ')} }`;
  const deep = '{ sites { items { groups { users { groups { users { groups { users { id } } } } } } } } }';
  const byAccept = async (body: object, accept: string) =>
    h.request('POST', '/graphql', { token, raw: JSON.stringify(body), headers: { 'content-type': 'application/json', accept } });

  test.each([
    ['too many aliases', { query: aliases }, 'Aliases limit of 15 exceeded, found 20.'],
    ['too deep', { query: deep }, 'Query depth limit of 8 exceeded, found 9.'],
  ])('%s is a validation failure, with no "Syntax Error" in its message', async (_, body, message) => {
    const strict = await byAccept(body, 'application/graphql-response+json');
    expect(strict.status).toBe(400);
    expect(strict.body).toEqual({ errors: [{ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
    const legacy = await byAccept(body, 'application/json');
    expect(legacy.status).toBe(200);
    expect(legacy.body.errors[0]).toMatchObject({ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    expect(legacy.body.data).toBeUndefined();
  });

  test('too many tokens is a parse failure, with no "Syntax Error" in its message', async () => {
    const query = `{ ${'__typename '.repeat(2001)}}`;
    const strict = await byAccept({ query }, 'application/graphql-response+json');
    expect(strict.status).toBe(400);
    expect(strict.body).toEqual({ errors: [{ message: 'Token limit of 2000 exceeded.', extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] });
  });

  test('a literal nested past 128 levels is a parse failure saying so, before the parser runs out of stack', async () => {
    // Under the token limit, 1990 levels ran graphql-js's recursive parser out of stack: a 500.
    const nested = (n: number) => `mutation { createPersistedData(input: {name: "x", scope: 1, persistedData: ${'['.repeat(n)}${']'.repeat(n)}}) { id } }`;
    // The operation's braces, the argument's parentheses and the input's braces are 3 levels.
    for (const query of [nested(5000), nested(126)]) {
      const strict = await byAccept({ query }, 'application/graphql-response+json');
      expect(strict.status).toBe(400);
      expect(strict.body).toEqual({ errors: [{ message: 'The query nests brackets, braces and parentheses more than 128 levels deep.', extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] });
    }
    // 128 levels parse; the JSON scalar refuses what it cannot take, in its own words.
    const r = await byAccept({ query: nested(125) }, 'application/graphql-response+json');
    expect(r.body.errors[0].message).toBe('JSON nests more than 64 levels deep.');
  });

  test('a query with fragments is as deep as written inline: a spread is no level of its own', async () => {
    // Small pages: the read budget counts what the lists may read.
    const inline = '{ groups(limit: 2) { items { name users(limit: 2) { userid groups(limit: 2) { name } } } } }';
    const spread = '{ groups(limit: 2) { items { ...G } } } fragment G on Group { name users(limit: 2) { ...U } } fragment U on User { userid groups(limit: 2) { name } }';
    for (const query of [inline, spread]) {
      const r = await byAccept({ query }, 'application/graphql-response+json');
      expect([query, r.status, r.body.errors]).toEqual([query, 200, undefined]);
    }
    // Nine levels through fragments (and an inline fragment) are still too deep.
    const deepSpread = '{ sites { items { ...S } } } fragment S on Site { groups { users { ... on User { groups { users { groups { ...U } } } } } } } fragment U on Group { users { id } }';
    const r = await byAccept({ query: deepSpread }, 'application/graphql-response+json');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ errors: [{ message: 'Query depth limit of 8 exceeded, found 9.', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] });
  });

  test.each([
    ['of the wrong type', { id: 5 }, /^Variable "\$id" got invalid value 5; Expected type UUID\. Value is not a valid UUID: 5$/],
    ['missing', {}, /Variable "\$id" of required type "UUID!" was not provided/],
  ])('a variable %s is a BAD_REQUEST', async (_, variables, message) => {
    const body = { query: 'query($id: UUID!) { site(id: $id) { id } }', variables };
    const strict = await byAccept(body, 'application/graphql-response+json');
    expect(strict.status).toBe(400);
    expect(strict.body.errors[0]).toMatchObject({ message: expect.stringMatching(message), extensions: { code: 'BAD_REQUEST' } });
    expect(strict.body.errors[0].extensions.http).toBeUndefined();
    const legacy = await byAccept(body, 'application/json');
    expect(legacy.status).toBe(200);
    expect(legacy.body.errors[0]).toMatchObject({ message: expect.stringMatching(message), extensions: { code: 'BAD_REQUEST' } });
  });

  test.each([
    [
      'an element of a list',
      'mutation($input: DropDownListInput!) { createDropDownList(input: $input) { listID } }',
      { input: { name: 'n', items: [{ itemName: 'a' }, { itemName: 5 }] } },
      'Variable "$input" got invalid value 5 at "input.items[1].itemName"; Expected type String; String cannot represent a non string value: 5',
    ],
    [
      'a key an element does not take',
      'mutation($input: DropDownListInput!) { createDropDownList(input: $input) { listID } }',
      { input: { name: 'n', items: [{ itemName: 'a' }, { itemName: 'b', colour: 'red' }] } },
      'Variable "$input" got invalid value { itemName: "b", colour: "red" } at "input.items[1]"; Field "colour" is not defined by type DropDownListItemInput.',
    ],
    [
      'a null element where one is required',
      'mutation($id: UUID!, $input: SecurityActionsInput!) { updateFolderSecurityMembers(folderId: $id, input: $input) { successCount } }',
      { id: '00000000-0000-0000-0000-000000000000', input: { securityActions: [{ memberId: '00000000-0000-0000-0000-000000000000' }, null] } },
      'Variable "$input" got invalid value null at "input.securityActions[1]"; Expected non-nullable type SecurityActionInput! not to be null at value.securityActions[1].',
    ],
    [
      'an element missing a required key',
      'mutation($input: EmailInput!) { sendEmail(input: $input) { success } }',
      { input: { recipients: ['a@example.com'], fileUpload: [{ name: 'a.txt', base64: '' }, { name: 'b.txt' }] } },
      'Variable "$input" got invalid value { name: "b.txt" } at "input.fileUpload[1]"; Field value.fileUpload[1].base64 of required type String! was not provided.',
    ],
    [
      'a value in an object',
      'mutation($input: SecurityActionsInput!) { updateFolderSecurityMembers(folderId: "00000000-0000-0000-0000-000000000000", input: $input) { successCount } }',
      { input: { securityActions: [{ memberId: 'x' }] } },
      'Variable "$input" got invalid value "x" at "input.securityActions[0].memberId"; Expected type UUID. Value is not a valid UUID: "x"',
    ],
  ])('a refused value inside a variable (%s) is named by its path, not as a variable of its own', async (_, query, variables, message) => {
    const r = await byAccept({ query, variables }, 'application/graphql-response+json');
    expect(r.status).toBe(400);
    // The variable is named as its argument: its path is the input's (test/graphql/field-errors.test.ts).
    const field = /at "([^"]+)"/.exec(message)![1];
    expect(r.body.errors).toEqual([expect.objectContaining({ message, extensions: { code: 'BAD_REQUEST', field } })]);
  });

  test('an error of a resolved field keeps its own code and status', async () => {
    // A page's root is not nullable: its error leaves data null.
    const r = await byAccept({ query: `{ siteUsers(siteId: "${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}") { totalRecords } }` }, 'application/graphql-response+json');
    expect(r.status).toBe(404);
    expect(r.body.errors[0]).toMatchObject({ path: ['siteUsers'], extensions: { code: 'NOT_FOUND' } });
  });
});

describe('an execution error answers 200 under application/json (its code says what failed), its status under application/graphql-response+json while data is null', () => {
  const byAccept = (query: string, accept?: string) => h.request('POST', '/graphql', { token, body: { query }, headers: accept ? { accept } : {} });

  test('a record of another tenant: NOT_FOUND, 200 under application/json (and with no Accept), 404 under application/graphql-response+json', async () => {
    const other = await h.tenant();
    // The users of a site: a page, whose root is not nullable, so its error leaves data null.
    const query = `{ siteUsers(siteId: "${other.homeSiteId}") { totalRecords } }`;
    const notFound = { data: null, errors: [expect.objectContaining({ path: ['siteUsers'], extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })] };
    for (const accept of ['application/json', undefined]) {
      const r = await byAccept(query, accept);
      expect([accept, r.status]).toEqual([accept, 200]);
      expect(r.body).toEqual(notFound);
    }
    const strict = await byAccept(query, 'application/graphql-response+json');
    expect(strict.status).toBe(404);
    expect(strict.body).toEqual(notFound);
  });

  test('a refusal of a field whose siblings or parent were answered is a 200 under both: data is not null', async () => {
    // Every mutation, and every root field answering one record, is nullable: the operation's data holds its null.
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const r = await byAccept('mutation { runScript(name: "nope") }', accept);
      expect([accept, r.status]).toEqual([accept, 200]);
      expect(r.body).toEqual({ data: { runScript: null }, errors: [expect.objectContaining({ path: ['runScript'], extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })] });
      const site = await byAccept(`{ site(id: "${newId()}") { id } }`, accept);
      expect([accept, site.status]).toEqual([accept, 200]);
      expect(site.body).toEqual({ data: { site: null }, errors: [expect.objectContaining({ path: ['site'], extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })] });
    }
  });

  test('over the read budget is answered as the cost limit is, 200 under application/json and 400 under application/graphql-response+json', async () => {
    const query = '{ sites { items { users { groups { id } } } } }';
    const legacy = await byAccept(query, 'application/json');
    expect(legacy.status).toBe(200);
    expect(legacy.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^This operation may read \d+ rows/), extensions: { code: 'BAD_REQUEST' } });
    expect((await byAccept(query, 'application/graphql-response+json')).status).toBe(400);
  });
});

describe('errors on the wire carry a code and a message, no internal detail, whatever NODE_ENV', () => {
  let servers: Started[] = [];
  beforeAll(async () => {
    servers = await Promise.all(['production', 'development'].map((NODE_ENV) => startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, NODE_ENV })));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.filter((s) => s.child.exitCode === null).map((s) => stop(s)));
  });

  const bodies = ['{bad', '{"query": "{ __typename }"', '{"query": "{ nope }"}', '{"query": "{ sites { totalRecords } }"}', '{"query": "{ sites(limit: \\"x\\") { totalRecords } }"}'];

  test('/graphql with doubled slashes answers as /graphql from Node\'s server (src/http-server.ts), GET and POST; `//` in the query string is left as sent', async () => {
    const s = servers[0];
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const query = '{ sites { totalRecords } }';
    for (const path of ['//graphql', '/graphql//', '///GraphQL//']) {
      const post = await fetch(`http://127.0.0.1:${s.port}${path}`, { method: 'POST', headers, body: JSON.stringify({ query }) });
      expect([path, post.status, await post.json()]).toEqual([path, 200, { data: { sites: { totalRecords: 1 } } }]);
      const get = await fetch(`http://127.0.0.1:${s.port}${path}?query=${encodeURIComponent(query)}`, { headers });
      expect([path, get.status, await get.json()]).toEqual([path, 200, { data: { sites: { totalRecords: 1 } } }]);
    }
    // Slashes unescaped in the query string: the value the error quotes is the one sent.
    const quoting = encodeURIComponent('{ sites(limit: "a//b") { totalRecords } }').replace(/%2F/g, '/');
    const get = await fetch(`http://127.0.0.1:${s.port}//graphql?query=${quoting}`, { headers });
    expect(((await get.json()) as { errors: { message: string }[] }).errors[0].message).toContain('"a//b"');
  });

  test('invalid JSON is a 400 BAD_REQUEST without the parser\'s own error; other errors have none either, in production and development alike', async () => {
    const answers = await Promise.all(
      servers.map(async (s) => {
        const out = [];
        for (const body of bodies) {
          // With a token: a body is read only for a sender with one.
          const headers = { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${token}` };
          const r = await fetch(`http://127.0.0.1:${s.port}/graphql`, { method: 'POST', headers, body });
          out.push({ status: r.status, body: await r.json() });
        }
        return out;
      }),
    );
    const invalid = { status: 400, body: { errors: [{ message: 'POST body sent invalid JSON.', extensions: { code: 'BAD_REQUEST' } }] } };
    expect(answers[0].slice(0, 2)).toEqual([invalid, invalid]);
    for (const a of answers[0]) expect(JSON.stringify(a.body)).not.toMatch(/originalError|stack/);
    expect(answers[1]).toEqual(answers[0]);
  });
});

test('a literal a custom scalar refuses is a validation error placed at the literal, as a built-in scalar\'s is', async () => {
  for (const [query, message, column, field] of [
    ['{ user(id: 5) { id } }', 'UUID must be a string', 12, 'id'],
    ['{ user(id: "abc") { id } }', 'Value is not a valid UUID: "abc"', 12, 'id'],
    ['mutation { updateUser(id: "00000000-0000-0000-0000-000000000000", input: { passwordExpires: "garbage" }) { id } }', 'Expected a date-time like 2024-01-31T13:45:00, from year 1 to 9999 in UTC, got "garbage"', 93, 'input.passwordExpires'],
  ] as const) {
    const r = await post('/graphql', JSON.stringify({ query }));
    expect([query, r.status, r.body.errors]).toEqual([query, 200, [{ message, locations: [{ line: 1, column }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED', field } }]]);
  }
});
