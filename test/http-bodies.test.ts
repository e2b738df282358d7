/**
 * Request bodies the app refuses at the transport, over raw sockets against the real server, on
 * REST, the token endpoint and /graphql alike: each refusal is the error envelope of its face.
 */
import zlib from 'node:zlib';
import { connect, splitAnswer } from './raw-socket.js';
import { startServer, stop, type Started } from './server-process.js';
import { serverTenant } from './server-tenant.js';

let s: Started;
/** A tenant's REST root, and the header line with its administrator's token. */
let root = '';
let auth = '';

beforeAll(async () => {
  s = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, MAX_BODY_BYTES: '1024' });
  const t = await serverTenant(s, process.env.QUIRE_TEST_DATABASE_URL!, 'bodies');
  root = t.root;
  auth = `Authorization: Bearer ${t.token}\r\n`;
}, 60_000);
afterAll(async () => {
  if (s?.child.exitCode === null) await stop(s);
});

/** One path of each face (REST's under the tenant's root), with a Content-Type it takes. */
const faces = [
  ['REST', '/sites', 'application/json'],
  ['token', '/oauth/token', 'application/x-www-form-urlencoded'],
  ['GraphQL', '/graphql', 'application/json'],
] as const;
const pathOf = (face: string, path: string) => (face === 'REST' ? root + path : path);
/** The token line for the faces that take one: their bodies are read only for a sender with a valid token. */
const authOf = (face: string) => (face === 'token' ? '' : auth);

interface Answer {
  status: number;
  head: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** Whether the server ended the connection within `ms` of the request. */
  ended: boolean;
}

/**
 * Sends `raw` (and no more of the body it announces) and reads the answer; waits up to `ms` for the
 * server to end the connection. Every caller expects it to: the wait costs nothing then, and is
 * long enough that a stalled CI host does not pass for a server that kept the connection.
 */
async function send(raw: string | Buffer, ms = 10_000): Promise<Answer> {
  const sock = await connect(s.port);
  let reply = '';
  let ended = false;
  sock.on('data', (d) => (reply += d));
  sock.on('error', () => {});
  sock.once('end', () => (ended = true));
  const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
  const timer = setTimeout(() => sock.destroy(), ms);
  sock.write(raw);
  await closed;
  clearTimeout(timer);
  const { head, body } = splitAnswer(reply);
  return { status: Number(head.split(' ')[1]), head, body: body === undefined ? undefined : JSON.parse(body), ended };
}

/** Sends `raw`, then, once its whole answer is in, `GET /healthz` on the same connection: the heads of both answers. */
async function thenHealth(raw: string): Promise<string[]> {
  const sock = await connect(s.port);
  let reply = '';
  const answers = (): string[] => {
    const heads: string[] = [];
    for (let at = 0; ; ) {
      const end = reply.indexOf('\r\n\r\n', at);
      if (end < 0) return heads;
      const head = reply.slice(at, end);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (reply.length < end + 4 + length) return heads;
      heads.push(head);
      at = end + 4 + length;
    }
  };
  let asked = false;
  const both = new Promise<string[]>((resolve, reject) => {
    sock.on('data', (d) => {
      reply += d;
      const heads = answers();
      if (heads.length === 1 && !asked) {
        asked = true;
        sock.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      }
      if (heads.length === 2) resolve(heads);
    });
    sock.once('close', () => reject(new Error(`the connection closed after: ${reply}`)));
  });
  sock.write(raw);
  try {
    return await both;
  } finally {
    sock.destroy();
  }
}

const request = (path: string, headers: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`;

/** The 413 of each face: the envelope's code, and on the token endpoint the OAuth keys. */
function expectTooLarge(face: string, r: Answer) {
  expect([face, r.status]).toEqual([face, 413]);
  if (face === 'GraphQL') expect(r.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  else expect(r.body.meta).toMatchObject({ status: 413, errors: [{ code: 'PAYLOAD_TOO_LARGE' }] });
  if (face === 'token') expect(r.body.error).toBe('invalid_request');
}

describe('a body over MAX_BODY_BYTES', () => {
  test.each(faces)('%s: a Content-Length over it is a 413 that closes the connection, without waiting for the body', async (face, path, type) => {
    const r = await send(request(pathOf(face, path), `${authOf(face)}Content-Type: ${type}\r\nContent-Length: 1000000000\r\n`) + 'a'.repeat(100));
    expectTooLarge(face, r);
    expect([face, r.head]).toEqual([face, expect.stringMatching(/\r\nconnection: close(\r\n|$)/i)]);
    expect([face, r.ended]).toEqual([face, true]);
  });

  test.each(faces)('%s: a chunked body that passes it is a 413 that closes the connection, without waiting for its end', async (face, path, type) => {
    const r = await send(request(pathOf(face, path), `${authOf(face)}Content-Type: ${type}\r\nTransfer-Encoding: chunked\r\n`) + `800\r\n${'a'.repeat(0x800)}\r\n`);
    expectTooLarge(face, r);
    expect([face, r.head]).toEqual([face, expect.stringMatching(/\r\nconnection: close(\r\n|$)/i)]);
    expect([face, r.ended]).toEqual([face, true]);
  });
});

describe('an answer sent before the body has arrived', () => {
  const closes = (r: Answer) => {
    expect(r.head).toMatch(/\r\nconnection: close(\r\n|$)/i);
    expect(r.ended).toBe(true);
  };

  test('a 401 on an upload closes the connection: the rest of a gigabyte is not read', async () => {
    const r = await send(request('/api/v1/acme/main/files', 'Authorization: Bearer nope\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: 1000000000\r\n') + '--XX\r\n');
    expect(r.status).toBe(401);
    expect(r.body.meta.errors[0].code).toBe('UNAUTHORIZED');
    closes(r);
  });

  test.each([
    ['REST', 'no token', ''],
    ['REST', 'a token that is none', 'Authorization: Bearer nope\r\n'],
    ['GraphQL', 'no token', ''],
    ['GraphQL', 'a token that is none', 'Authorization: Bearer nope\r\n'],
  ])('%s with %s: a 401 before the body is read, which closes the connection', async (face, _case, header) => {
    // Less than MAX_BODY_BYTES announced and only part of it sent: the answer cannot wait for the rest.
    const path = face === 'REST' ? `${root}/sites` : '/graphql';
    const r = await send(request(path, `${header}Content-Type: application/json\r\nContent-Length: 1000\r\n`) + '{"name": "');
    expect(r.status).toBe(401);
    expect(face === 'REST' ? r.body.meta.errors[0].code : r.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    closes(r);
  });

  test.each(faces)('%s: a 415 closes the connection', async (face, path, type) => {
    const r = await send(request(pathOf(face, path), `Content-Type: ${type}\r\nContent-Encoding: gzip\r\nContent-Length: 1000\r\n`) + 'a'.repeat(10));
    expect([face, r.status]).toEqual([face, 415]);
    closes(r);
  });

  test('POST emails, whose refusals go out as HTTP 200: a Content-Length over its limit is a 413 in meta.status that closes the connection all the same', async () => {
    const r = await send(request('/api/v1/acme/main/emails', 'Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: 1000000000\r\n') + '--XX\r\n');
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ status: 413, errors: [{ code: 'PAYLOAD_TOO_LARGE' }] });
    closes(r);
  });

  test('a 404 or 405 closes the connection, the body chunked', async () => {
    for (const [method, path, status] of [['PUT', '/nothing', 404], ['PATCH', '/api/v1/acme/main/sites', 405]] as const) {
      const r = await send(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`);
      expect([method, r.status]).toEqual([method, status]);
      expect(r.body.meta.status).toBe(status);
      closes(r);
    }
  });

  test('an answer after the whole body, or to a request without one, keeps the connection', async () => {
    // Read whole, then refused (a site needs a description too).
    const body = '{"name":"x"}';
    for (const raw of [request(`${root}/sites`, `${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`) + body, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n']) {
      const heads = await thenHealth(raw);
      expect([raw, heads[0]]).toEqual([raw, expect.stringMatching(/\r\nconnection: keep-alive(\r\n|$)/i)]);
      // The same connection answers the next request: it was kept, however long the first took.
      expect([raw, heads[1]]).toEqual([raw, expect.stringMatching(/^HTTP\/1\.1 200 /)]);
    }
  });
});

describe('a body with a Content-Encoding', () => {
  const bodies: Record<string, string> = {
    REST: '{"name":"compressed"}',
    token: 'grant_type=password&client_id=x&client_secret=y&username=u&password=p',
    GraphQL: '{"query":"{ __typename }"}',
  };
  const encode: Record<string, (b: Buffer) => Buffer> = { gzip: zlib.gzipSync, deflate: zlib.deflateSync, br: zlib.brotliCompressSync };
  const post = (path: string, type: string, encoding: string, body: Buffer) =>
    send(Buffer.concat([Buffer.from(request(path, `Connection: close\r\nContent-Type: ${type}\r\nContent-Encoding: ${encoding}\r\nContent-Length: ${body.length}\r\n`)), body]));

  test.each(faces)('%s: gzip, deflate or br is a 415 that says to send it uncompressed, not its bytes read as text', async (face, path, type) => {
    for (const [encoding, compress] of Object.entries(encode)) {
      const r = await post(pathOf(face, path), type, encoding, compress(Buffer.from(bodies[face])));
      expect([face, encoding, r.status]).toEqual([face, encoding, 415]);
      expect(r.head).toMatch(/\r\naccept-encoding: identity(\r\n|$)/i);
      const message = `Request bodies with Content-Encoding '${encoding}' are not supported; send the body uncompressed.`;
      if (face === 'GraphQL') expect(r.body.errors).toEqual([{ message, extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', developerMessage: message } }]);
      else expect(r.body.meta).toMatchObject({ status: 415, statusMsg: 'Unsupported Media Type', errors: [{ code: 'UNSUPPORTED_MEDIA_TYPE', message }] });
      if (face === 'token') expect(r.body.error).toBe('invalid_request');
    }
    // Any coding but identity, also in a list.
    const listed = await post(pathOf(face, path), type, 'identity, x-custom', Buffer.from(bodies[face]));
    expect([face, listed.status]).toEqual([face, 415]);
    expect(JSON.stringify(listed.body)).toContain("Content-Encoding 'x-custom'");
  });

  test.each(faces)('%s: identity is the body as sent', async (face, path, type) => {
    // No token or client: each face's 401, its body read as plain.
    const r = await post(pathOf(face, path), type, 'identity', Buffer.from(bodies[face]));
    expect([face, r.status]).toEqual([face, 401]);
  });
});

describe('a multipart /graphql request whose operations or map is wrong', () => {
  const part = (name: string, value: string, file?: string) =>
    `--XX\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${file}"` : ''}\r\n\r\n${value}\r\n`;
  const ops = part('operations', '{"query":"{ __typename }"}');
  const refused: [string, string, RegExp][] = [
    ['no operations', part('a', '1'), /^Missing multipart form field "operations"\.$/],
    ['operations not JSON', part('operations', 'nope'), /^Multipart form field "operations" must be a valid JSON string\.$/],
    ['operations null', part('operations', 'null'), /^Multipart form field "operations" must be a JSON object .*, got null\.$/],
    ['operations a number', part('operations', '5'), /^Multipart form field "operations" must be a JSON object .*, got 5\.$/],
    ['map not JSON', ops + part('map', 'nope'), /^Multipart form field "map" must be a valid JSON string\.$/],
    ['map an array', ops + part('map', '[1]'), /^Multipart form field "map" must be a JSON object whose values are arrays of paths/],
    ['a path not a string', ops + part('map', '{"0":[1]}') + part('0', 'hi', 'a.txt'), /^Multipart form field "map" must be a JSON object/],
    ['a path not in an array', ops + part('map', '{"0":"variables.file"}') + part('0', 'hi', 'a.txt'), /^Multipart form field "map" must be a JSON object .* Got "variables.file" for "0"\.$/],
    ['map null', ops + part('map', 'null'), /^Multipart form field "map" must be a JSON object/],
    ['a file part the request lacks', ops + part('map', '{"1":["variables.file"]}') + part('0', 'hi', 'a.txt'), /^Multipart form field "map" names the file part "1", which the request does not have\.$/],
    ['a text part, not a file', ops + part('map', '{"0":["variables.file"]}') + part('0', 'hi'), /^Multipart form field "map" names the part "0", which is a text field, not a file\.$/],
  ];

  /** By Content-Length, or chunked (the body limit's own parser reads it first). */
  const post = (body: string, chunked: boolean) =>
    fetch(`http://127.0.0.1:${s.port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=XX', authorization: auth.slice('Authorization: '.length).trim() },
      body: chunked ? new Blob([body]).stream() : body,
      duplex: 'half',
    } as RequestInit);

  test.each(refused)('%s is a 400 with code BAD_REQUEST, by Content-Length and chunked', async (_case, parts, message) => {
    for (const chunked of [false, true]) {
      const r = await post(`${parts}--XX--\r\n`, chunked);
      const body = (await r.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect([chunked, r.status]).toEqual([chunked, 400]);
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].message).toMatch(message);
      expect(body.errors[0].extensions.code).toBe('BAD_REQUEST');
    }
  });

  test('a well-formed one is parsed and runs', async () => {
    for (const chunked of [false, true]) {
      const r = await post(`${ops}${part('map', '{"0":["variables.file"]}')}${part('0', 'hi', 'a.txt')}--XX--\r\n`, chunked);
      expect([chunked, r.status, await r.json()]).toEqual([chunked, 200, { data: { __typename: 'Query' } }]);
    }
  });
});

describe('a multipart REST body with a text part that has no name', () => {
  const token = () => auth.slice('Authorization: '.length).trim();
  const post = (path: string, body: string) =>
    fetch(`http://127.0.0.1:${s.port}${root}${path}`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=XX', authorization: token() }, body });

  // busboy hands such a part on as named `undefined`, which stopped the whole server (an uncaught TypeError).
  test('is a 400 saying to name it, on a body route, an upload and the token endpoint; the server goes on', async () => {
    const body = '--XX\r\nContent-Disposition: form-data\r\n\r\nx\r\n--XX--\r\n';
    for (const path of ['/sites', '/documents']) {
      const r = await post(path, body);
      const sent = (await r.json()) as { meta: { status: number; errors: { message: string }[] } };
      expect([path, r.status, sent.meta.status]).toEqual([path, 400, 400]);
      expect(sent.meta.errors[0].message).toMatch(/^A text part of the multipart request body has no name: .*form-data; name=/);
    }
    // The token endpoint reads such a body too, before any token: one request stopped the server for everyone.
    const r = await fetch(`http://127.0.0.1:${s.port}/oauth/token`, { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=XX' }, body });
    expect([r.status, ((await r.json()) as { error_description: string }).error_description]).toEqual([400, expect.stringMatching(/^A text part of the multipart request body has no name/)]);
    expect(s.child.exitCode).toBeNull();
    expect((await fetch(`http://127.0.0.1:${s.port}${root}/sites`, { headers: { authorization: token() } })).status).toBe(200);
  });
});
