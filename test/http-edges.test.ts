/**
 * What Node answers before the app sees a request, over raw sockets against the real server:
 * malformed requests and over-long heads get the error envelope, a long `q` works up to
 * MAX_HEADER_BYTES, a keep-alive client answered during shutdown is told `Connection: close`,
 * and a request target, Host or method (CONNECT) the app cannot take is refused before it routes.
 */
import { randomUUID } from 'node:crypto';
import { connect, splitAnswer } from './raw-socket.js';
import { startServer, stop, waitFor, type Started } from './server-process.js';
import { serverTenant } from './server-tenant.js';

let s: Started;

beforeAll(async () => {
  s = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, LOG_LEVEL: 'debug', MAX_HEADER_BYTES: '32768' });
}, 60_000);
afterAll(async () => {
  if (s?.child.exitCode === null) await stop(s);
});

/**
 * Sends `raw` and collects everything until the server closes the connection; a reset fails the
 * test. `cut`: the client then closes its side, as one whose request was cut short does.
 */
async function exchange(raw: string, on = s, cut = false): Promise<{ head: string; body: string }> {
  const sock = await connect(on.port);
  let reply = '';
  sock.on('data', (d) => (reply += d));
  const closed = new Promise<void>((resolve, reject) => {
    sock.once('error', reject);
    sock.once('close', () => resolve());
  });
  if (cut) sock.end(raw);
  else sock.write(raw);
  await closed;
  const { head, body = '' } = splitAnswer(reply);
  return { head, body };
}

test('a malformed request gets a 400 envelope, not Node\'s bare answer', async () => {
  for (const raw of ['GET / HTTP/1.1\r\nHost x\r\n\r\n', 'NOT A REQUEST\r\n\r\n', 'GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n']) {
    const r = await exchange(raw);
    expect(r.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(r.head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(r.head).toContain(`Content-Length: ${Buffer.byteLength(r.body)}`);
    expect(JSON.parse(r.body)).toMatchObject({ meta: { status: 400, statusMsg: 'Bad Request', errors: [{ code: 'BAD_REQUEST' }] } });
  }
});

test('a request cut short (a head, or a body shorter than its Content-Length or chunks) is a 400 saying it ended early, not that it is no HTTP', async () => {
  const cutShort = [
    'GET /healthz HTTP/1.1\r\nHost: x\r\n',
    'POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type',
    'POST /oauth/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab',
  ];
  for (const raw of cutShort) {
    const r = await exchange(raw, s, true);
    expect(r.head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(r.body).meta.errors).toEqual([expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringMatching(/^The request ended early: .*Content-Length/) })]);
  }
});

test('pipelined requests parsed whole before a malformed one are answered first, in order, then the 400 (it took their place)', async () => {
  const refusal = /^HTTP\/1\.1 400 Bad Request\r\n[^]*\r\nConnection: close\r\n\r\n\{"meta":\{"status":400,/;
  for (const pipelined of ['GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n']) {
    const r = await exchange(`${pipelined}GARBAGE\r\n\r\n`);
    const answers = `${r.head}\r\n\r\n${r.body}`.split(/(?=HTTP\/1\.1 )/);
    const paths = [...pipelined.matchAll(/GET (\/\w+)/g)].map((m) => m[1]);
    expect([pipelined, answers.length]).toEqual([pipelined, paths.length + 1]);
    for (const [i, path] of paths.entries()) {
      expect([path, answers[i].split('\r\n')[0]]).toEqual([path, 'HTTP/1.1 200 OK']);
      expect([path, answers[i]]).toEqual([path, expect.stringContaining(path === '/readyz' ? '"status":"ready"' : '{"status":"ok"}')]);
    }
    expect(answers[paths.length]).toMatch(refusal);
  }
  // A request whose own body is malformed is refused at once, as before: nothing of it is in flight.
  const own = await exchange('POST /oauth/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
  expect(`${own.head}\r\n\r\n${own.body}`).toMatch(refusal);
});

test('a token request declaring a body over MAX_BODY_BYTES is refused before it is read, naming the token limit (64 KiB), not MAX_BODY_BYTES', async () => {
  const r = await exchange(`POST /oauth/token HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${20 * 1024 * 1024}\r\n\r\n`);
  expect(r.head).toMatch(/^HTTP\/1\.1 413 /);
  expect(JSON.parse(r.body)).toMatchObject({ error: 'invalid_request', meta: { status: 413, errors: [{ code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than the limit of 65536 bytes.' }] } });
});

test('a URL under MAX_HEADER_BYTES is served (a long q); one over it is a 431 envelope that says what to shorten', async () => {
  const q = (n: number) => encodeURIComponent(`name eq '${'a'.repeat(n)}'`);
  const long = await fetch(`http://127.0.0.1:${s.port}/api/v1/acme/main/sites?q=${q(24_000)}`);
  // Past Node's default limit of 16 KB, and answered by the app: no token, so a 401 envelope.
  expect(long.status).toBe(401);
  expect(((await long.json()) as { meta: { status: number } }).meta.status).toBe(401);

  const over = await exchange(`GET /api/v1/acme/main/sites?q=${q(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  expect(over.head).toMatch(/^HTTP\/1\.1 431 /);
  const body = JSON.parse(over.body);
  expect(body.meta).toMatchObject({ status: 431, errors: [{ code: 'REQUEST_HEADER_FIELDS_TOO_LARGE' }] });
  expect(body.meta.errors[0].message).toMatch(/shorten the URL/);
});

test('a request of more than 2000 header lines is a 431 envelope, and 2000 are all read: Node kept about 1000 and dropped the rest unread', async () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `x-${i}: a\r\n`).join('');
  // Host, 1997 more, Authorization, Connection: 2000 lines are read whole (the token is seen: 401 invalid_token, not "required").
  const at = await exchange(`GET /api/v1/acme/main/sites HTTP/1.1\r\nHost: x\r\n${lines(1997)}Authorization: Bearer not-a-token\r\nConnection: close\r\n\r\n`);
  expect(at.head).toMatch(/^HTTP\/1\.1 401 /);
  expect(JSON.parse(at.body).meta.errors[0].message).toBe('The access token is invalid.');
  const over = await exchange(`GET /api/v1/acme/main/sites HTTP/1.1\r\nHost: x\r\n${lines(1998)}Authorization: Bearer not-a-token\r\nConnection: close\r\n\r\n`);
  expect(over.head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  expect(over.head).toMatch(new RegExp(`\r\ncontent-length: ${Buffer.byteLength(over.body)}(\r\n|$)`, 'i'));
  const message = 'The request has more than 2000 header lines: send fewer (headers past them were not read).';
  expect(JSON.parse(over.body)).toEqual({
    meta: { status: 431, statusMsg: 'Request Header Fields Too Large', method: 'GET', errors: [{ code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', message, developerMessage: message }] },
  });
});

test('meta.href without PUBLIC_URL is the Host, then the path and query as sent, doubled slashes made one', async () => {
  const r = await exchange(`GET /api/v1//acme/main/sites?q=name%20eq%20'None' HTTP/1.1\r\nHost: quire.example:8080\r\nConnection: close\r\n\r\n`);
  expect(r.head).toMatch(/^HTTP\/1\.1 401 /);
  expect(JSON.parse(r.body).meta.href).toBe(`http://quire.example:8080/api/v1/acme/main/sites?q=name%20eq%20'None'`);
});

test('during shutdown a keep-alive client gets Connection: close on its last answer, then an orderly close', async () => {
  const body = 'grant_type=password&client_id=x&client_secret=y&username=u&password=p';
  const sock = await connect(s.port);
  let reply = '';
  let reset: Error | undefined;
  sock.on('data', (d) => (reply += d));
  sock.on('error', (e) => (reset = e));
  const ended = new Promise<void>((resolve) => sock.once('end', () => resolve()));
  // First a whole request on the keep-alive connection, then a second one cut short by the signal.
  sock.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
  await new Promise<void>((resolve) => sock.once('data', () => resolve()));
  expect(reply).toMatch(/Connection: keep-alive/i);
  reply = '';
  sock.write(`POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
  await waitFor(s.child, s.stdout, /"path":"\/oauth\/token".*"msg":"request received"/);
  s.child.kill('SIGTERM');
  await waitFor(s.child, s.stdout, /"msg":"shutting down/);
  sock.write(body.slice(10));
  await ended;
  expect(reply).toMatch(/^HTTP\/1\.1 401 /);
  expect(reply).toMatch(/\r\nconnection: close\r\n/i);
  expect(reset).toBeUndefined();
  await waitFor(s.child, s.stdout, /"msg":"stopped"/);
});

describe('REQUEST_TIMEOUT_SECONDS', () => {
  let slow: Started;
  beforeAll(async () => {
    slow = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, REQUEST_TIMEOUT_SECONDS: '6' });
  }, 60_000);
  afterAll(async () => {
    if (slow?.child.exitCode === null) await stop(slow);
  });

  /** A token request whose body arrives in `parts` pieces `gapMs` apart; what the server answers, and when it closed. */
  async function trickle(parts: number, gapMs: number): Promise<string> {
    const body = 'grant_type=password&client_id=x&client_secret=y&username=u&password=p';
    const sock = await connect(slow.port);
    let reply = '';
    sock.on('data', (d) => (reply += d));
    sock.on('error', () => {});
    const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
    sock.write(`POST /oauth/token HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n`);
    const size = Math.ceil(body.length / parts);
    for (let i = 0; i < body.length && !sock.destroyed; i += size) {
      await new Promise((r) => setTimeout(r, gapMs));
      sock.write(body.slice(i, i + size));
    }
    await closed;
    return reply;
  }

  test('a body that arrives slowly but within the limit is served', async () => {
    // About 1.5 seconds of body: more than Node checks on its own, well under the limit (6 s).
    expect(await trickle(5, 300)).toMatch(/^HTTP\/1\.1 401 /);
  }, 30_000);

  test('a request still arriving after the limit gets a 408 envelope and the connection is closed', async () => {
    const reply = await trickle(10, 1000);
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));
    expect(body.meta).toMatchObject({ status: 408, errors: [{ code: 'REQUEST_TIMEOUT' }] });
  }, 30_000);
});

describe('the request target and Host, checked before anything routes', () => {
  let g: Started;
  beforeAll(async () => {
    g = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL! });
  }, 60_000);
  afterAll(async () => {
    if (g?.child.exitCode === null) await stop(g);
  });
  /** A 400 envelope with a request id, no stack, and its line in the log. */
  async function expectRefused(raw: string) {
    const r = await exchange(raw.replace('\r\n', '\r\nConnection: close\r\n'), g);
    expect([raw, r.head.split('\r\n')[0]]).toEqual([raw, 'HTTP/1.1 400 Bad Request']);
    expect(r.head).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
    expect(r.head).toMatch(new RegExp(`\r\ncontent-length: ${Buffer.byteLength(r.body)}\r\n`, 'i'));
    expect(r.body).not.toMatch(/Error|\n\s+at /);
    const body = JSON.parse(r.body);
    expect(body).toEqual({ meta: { status: 400, statusMsg: 'Bad Request', method: expect.any(String), errors: [{ code: 'BAD_REQUEST', message: expect.any(String), developerMessage: expect.any(String) }] } });
    const id = /\r\nx-request-id: ([\w.-]+)\r\n/i.exec(r.head)?.[1];
    expect(id).toBeDefined();
    await waitFor(g.child, g.stdout, new RegExp(`"requestId":"${id}".*"status":400`), 5000);
    return body.meta.errors[0].message as string;
  }

  test('an absolute-form target is served by its path (HTTP/1.1 servers must accept it)', async () => {
    const health = await exchange('GET http://evil.example/healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', g);
    expect(health.head).toMatch(/^HTTP\/1\.1 200 /);
    const served = {
      'http://evil.example/api/v1/acme/prod/sites': [401, 'http://evil.example/api/v1/acme/prod/sites'],
      'HTTPS://evil.example:8443/api/v1/acme/prod/sites?limit=1': [401, 'http://evil.example:8443/api/v1/acme/prod/sites?limit=1'],
      'http://evil.example': [404, 'http://evil.example/'],
      'http://evil.example?x=1': [404, 'http://evil.example/?x=1'],
    };
    for (const [target, [status, href]] of Object.entries(served)) {
      const r = await exchange(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, g);
      expect([target, r.head.split(' ')[1]]).toEqual([target, String(status)]);
      // Its authority is the request's host, not the Host header (RFC 9112 3.2.2); the path is the target's own.
      expect([target, JSON.parse(r.body).meta.href]).toEqual([target, href]);
    }
    expect(await expectRefused('GET ftp://evil.example/healthz HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/request target/);
    expect(await expectRefused('GET http://evil.example:99999/healthz HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/host of the request target/);
  });

  test('OPTIONS * is a 400 envelope, not a stack trace', async () => {
    expect(await expectRefused('OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/request target/);
  });

  test('CONNECT is a 405 envelope with an empty Allow, then the connection is closed: this server is no proxy', async () => {
    for (const target of ['example.com:443', '127.0.0.1:5432', '/graphql']) {
      // Nothing after the head is read as a tunnel's bytes: the answer comes, then the close.
      const r = await exchange(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n\x16\x03\x01`, g);
      expect([target, r.head.split('\r\n')[0]]).toEqual([target, 'HTTP/1.1 405 Method Not Allowed']);
      expect(r.head).toMatch(/\r\nallow: ?(\r\n|$)/i);
      expect(r.head).toMatch(/\r\nconnection: close(\r\n|$)/i);
      expect(r.head).toMatch(new RegExp(`\r\ncontent-length: ${Buffer.byteLength(r.body)}(\r\n|$)`, 'i'));
      const message = 'This server is not a proxy: CONNECT is not supported.';
      expect(JSON.parse(r.body)).toEqual({
        meta: { status: 405, statusMsg: 'Method Not Allowed', method: 'CONNECT', errors: [{ code: 'METHOD_NOT_ALLOWED', message, developerMessage: message }] },
      });
      const id = /\r\nx-request-id: ([\w.-]+)/i.exec(r.head)?.[1];
      await waitFor(g.child, g.stdout, new RegExp(`"requestId":"${id}".*"status":405`), 5000);
    }
  });

  test('a CONNECT pipelined after a request is answered after that request\'s answer, which it took the place of', async () => {
    const r = await exchange('GET /readyz HTTP/1.1\r\nHost: x\r\n\r\nCONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', g);
    const answers = `${r.head}\r\n\r\n${r.body}`.split(/(?=HTTP\/1\.1 )/);
    expect(answers.map((a) => a.split('\r\n')[0])).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 405 Method Not Allowed']);
    expect(answers[0]).toContain('"status":"ready"');
    expect(answers[1]).toContain('"code":"METHOD_NOT_ALLOWED"');
  });

  test('a Host the adapter cannot make a URL of is a 400 envelope, not a stack trace', async () => {
    for (const host of ['x:99999', 'x:80:80', 'a b', '[::1', '%00', '1.2.3.999']) {
      expect(await expectRefused(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`)).toMatch(/Host/);
    }
  });

  test('a Host that is not host[:port] is a 400 envelope: it no longer chooses the path', async () => {
    for (const host of ['x/metrics?', 'x/api/v1/acme/prod/users/me?', 'x?', 'x#', 'user@x', 'x:0', 'x:', '']) {
      expect(await expectRefused(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`)).toMatch(/Host/);
    }
    const graphql = '{"query":"{__typename}"}';
    expect(await expectRefused(`POST /graphql HTTP/1.1\r\nHost: x/metrics?\r\nContent-Type: application/json\r\nContent-Length: ${graphql.length}\r\n\r\n${graphql}`)).toMatch(/Host/);
    expect(await expectRefused('GET http://user@evil.example/healthz HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/host of the request target/);
    // One Host, and one for HTTP/1.1 (RFC 9112 3.2), where Node's own refusal was a bare 400.
    expect(await expectRefused('GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n')).toMatch(/more than one Host/);
    expect(await expectRefused('GET /healthz HTTP/1.1\r\n\r\n')).toMatch(/no Host/);
  });

  test('two Authorization or Content-Type headers are a 400: Node kept the first and dropped the other unread', async () => {
    const token = 'grant_type=password&client_id=x&client_secret=y&username=u&password=p';
    for (const [name, headers] of [
      ['Authorization', 'Authorization: Bearer a\r\nauthorization: Bearer b\r\n'],
      ['Content-Type', 'Content-Type: application/x-www-form-urlencoded\r\nContent-Type: application/json\r\n'],
    ]) {
      const message = await expectRefused(`POST /oauth/token HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${token.length}\r\n\r\n${token}`);
      expect([name, message]).toEqual([name, `The request has more than one ${name} header: send it once.`]);
    }
  });

  test('a transfer coding other than chunked is a 501 envelope, then the connection is closed: its bytes were read as the body', async () => {
    const body = '{"query":"{__typename}"}';
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    for (const [coding, named] of [['gzip, chunked', 'gzip'], ['deflate,chunked', 'deflate'], ['x-foo, chunked', 'x-foo']]) {
      for (const path of ['/graphql', '/oauth/token', '/api/v1/acme/prod/folders']) {
        const r = await exchange(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: ${coding}\r\n\r\n${chunked}`, g);
        expect([coding, path, r.head.split('\r\n')[0]]).toEqual([coding, path, 'HTTP/1.1 501 Not Implemented']);
        expect(r.head).toMatch(/\r\nconnection: close(\r\n|$)/i);
        expect(r.head).toMatch(new RegExp(`\r\ncontent-length: ${Buffer.byteLength(r.body)}(\r\n|$)`, 'i'));
        const message = `The transfer coding '${named}' is not supported: send the body with 'Transfer-Encoding: chunked' alone, or with a Content-Length.`;
        expect(JSON.parse(r.body)).toEqual({
          meta: { status: 501, statusMsg: 'Not Implemented', method: 'POST', errors: [{ code: 'NOT_IMPLEMENTED', message, developerMessage: message }] },
        });
      }
    }
    // chunked in any case, and identity (which changes no byte), are read as before.
    for (const coding of ['Chunked', 'identity, chunked']) {
      const r = await exchange(`POST /graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: ${coding}\r\n\r\n${chunked}`, g);
      expect([coding, r.head.split('\r\n')[0]]).toEqual([coding, 'HTTP/1.1 401 Unauthorized']);
    }
  });

  test('an HTTP version Node parses but that is not 1.x (0.9, 2.0) is a 505 envelope, then the connection is closed', async () => {
    for (const version of ['0.9', '2.0']) {
      for (const raw of [`GET /healthz HTTP/${version}\r\nHost: x\r\n\r\n`, `GET /healthz HTTP/${version}\r\n\r\n`]) {
        const r = await exchange(raw, g);
        expect([raw, r.head.split('\r\n')[0]]).toEqual([raw, 'HTTP/1.1 505 HTTP Version Not Supported']);
        expect(r.head).toMatch(/\r\nconnection: close(\r\n|$)/i);
        expect(r.head).toMatch(new RegExp(`\r\ncontent-length: ${Buffer.byteLength(r.body)}(\r\n|$)`, 'i'));
        const message = `HTTP/${version} is not supported: send the request as HTTP/1.1 (or HTTP/1.0).`;
        const meta = { status: 505, statusMsg: 'HTTP Version Not Supported', method: 'GET', errors: [{ code: 'HTTP_VERSION_NOT_SUPPORTED', message, developerMessage: message }] };
        expect(JSON.parse(r.body)).toEqual({ meta });
      }
    }
  });

  test('a Host that is host[:port] is served, and HTTP/1.0 needs none', async () => {
    for (const host of ['localhost', 'localhost:8080', 'EXAMPLE.com.', 'my_service.internal', '127.0.0.1:1', '[::1]:65535', '[2001:db8::7]']) {
      const r = await exchange(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`, g);
      expect([host, r.head.split('\r\n')[0]]).toEqual([host, 'HTTP/1.1 200 OK']);
    }
    expect((await exchange('GET /healthz HTTP/1.0\r\n\r\n', g)).head).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('requests of a tenant, over raw sockets', () => {
  const PUBLIC_URL = 'https://public.example.test/quire';
  let t: Started;
  /** A tenant's REST root, and the header line with its administrator's token. */
  let root = '';
  let auth = '';
  beforeAll(async () => {
    t = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, LOG_LEVEL: 'debug', MAX_BODY_BYTES: '1024', PUBLIC_URL });
    const tenant = await serverTenant(t, process.env.QUIRE_TEST_DATABASE_URL!, 'edges');
    root = tenant.root;
    auth = `Authorization: Bearer ${tenant.token}\r\n`;
  }, 60_000);
  afterAll(async () => {
    if (t?.child.exitCode === null) await stop(t);
  });

  test('meta.href under PUBLIC_URL is the path and query as sent, doubled slashes made one', async () => {
    const target = `${root.replace('/api/v1/', '/api/v1//')}/sites?q=name%20eq%20'None'&limit=5`;
    const r = await exchange(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\n${auth}Connection: close\r\n\r\n`, t);
    expect(r.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(r.body).meta.href).toBe(`${PUBLIC_URL}${root}/sites?q=name%20eq%20'None'&limit=5`);
  });

  describe('a client that closes the connection before its body is in', () => {
    /**
     * Sends `head` (with X-Request-Id `id`), and once the server has it, `rest`; then hangs up, or
     * with `wait` reads until the server closes. The server's answer, if any.
     */
    async function partly(id: string, head: string, rest: string, wait = false): Promise<string> {
      const sock = await connect(t.port);
      let reply = '';
      sock.on('data', (d) => (reply += d));
      sock.on('error', () => {});
      const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
      sock.write(`${head.replace('\r\n', `\r\nX-Request-Id: ${id}\r\n`)}`);
      await waitFor(t.child, t.stdout, new RegExp(`"requestId":"${id}".*"msg":"request received"`), 5000);
      sock.write(rest, () => (wait ? undefined : sock.destroy()));
      await closed;
      // Its access line: the request's end, whatever it was.
      await waitFor(t.child, t.stdout, new RegExp(`"requestId":"${id}".*"msg":"request"`), 5000);
      return reply;
    }

    test.each([
      ['REST', () => `${root}/sites`, 'application/json', true],
      ['GraphQL', () => '/graphql', 'application/json', true],
      ['token', () => '/oauth/token', 'application/x-www-form-urlencoded', false],
      ['REST multipart', () => `${root}/sites`, 'multipart/form-data; boundary=b', true],
    ])('%s: its request ends as 499 (client closed), not as the database away (503, a warning)', async (_face, path, type, withToken) => {
      const id = randomUUID();
      const head = `POST ${path()} HTTP/1.1\r\nHost: x\r\n${withToken ? auth : ''}Content-Type: ${type}\r\nContent-Length: 100\r\n\r\n`;
      await partly(id, head, '{"na');
      const access = t.stdout().split('\n').find((l) => l.includes(`"requestId":"${id}"`) && l.includes('"msg":"request"'));
      expect(JSON.parse(access!)).toMatchObject({ level: 30, status: 499 });
      // Noted at debug, under the request's id on every face.
      expect(t.stdout()).toMatch(new RegExp(`"level":20,.*"requestId":"${id}".*"msg":"client closed the connection before its request was read"`));
      expect(t.stdout()).not.toMatch(/database unavailable|"level":[456]0,.*"requestId"/);
    });

    test.each([
      ['with a Content-Length (once read by Yoga\'s parser, which said 400)', 'Content-Length: 1000', (body: string) => body],
      ['chunked (read by the body limit first)', 'Transfer-Encoding: chunked', (body: string) => `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n`],
    ])('a multipart /graphql upload cut short, %s: its request ends as 499 in the access line and the metrics, noted at debug', async (_how, framing, framed) => {
      const id = randomUUID();
      const head = `POST /graphql HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: multipart/form-data; boundary=b\r\n${framing}\r\n\r\n`;
      const operations = JSON.stringify({ query: '{ __typename }', variables: { f: null } });
      const parts = `--b\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${operations}\r\n--b\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0": ["variables.f"]}\r\n--b\r\nContent-Disposition: form-data; name="0"; filename="a.txt"\r\n\r\nthe fi`;
      const closedCount = async () => {
        const metrics = await (await fetch(`http://127.0.0.1:${t.port}/metrics`)).text();
        return Number(/^http_requests_total\{method="POST",route="\/graphql",status="499"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
      };
      const before = await closedCount();
      await partly(id, head, framed(parts));
      expect(await closedCount()).toBe(before + 1);
      const access = t.stdout().split('\n').find((l) => l.includes(`"requestId":"${id}"`) && l.includes('"msg":"request"'));
      expect(JSON.parse(access!)).toMatchObject({ level: 30, status: 499 });
      expect(t.stdout()).toMatch(new RegExp(`"level":20,.*"requestId":"${id}".*"msg":"client closed the connection before its request was read"`));
      expect(t.stdout()).not.toMatch(new RegExp(`"level":[456]0,.*"requestId":"${id}"`));
    });

    test('a chunked body Node refuses as malformed midway: Node answers 400, the request ends as 499, nothing is counted a 503', async () => {
      const id = randomUUID();
      const head = `POST ${root}/sites HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"na\r\n`;
      expect(await partly(id, head, 'zz\r\nxx\r\n', true)).toMatch(/^HTTP\/1\.1 400 /);
      expect(t.stdout()).not.toMatch(/database unavailable/);
      expect(t.stdout()).toMatch(new RegExp(`"requestId":"${id}".*"status":499.*"msg":"request"`));
      const metrics = await (await fetch(`http://127.0.0.1:${t.port}/metrics`)).text();
      expect(metrics).toMatch(/^http_requests_total\{method="POST",route="\/api\/v1\/:customeralias\/:databasealias\/sites",status="499"\} \d+$/m);
      expect(metrics).not.toMatch(/status="503"/);
    });
  });

  describe('Expect', () => {
    /**
     * Sends `head` (with Connection: close) and, when the server answers `100 Continue`, `body`; every
     * byte the server sent until it closed the connection.
     */
    async function expecting(head: string, body: string): Promise<string> {
      const sock = await connect(t.port);
      let reply = '';
      sock.on('data', (d) => {
        reply += d;
        if (reply === 'HTTP/1.1 100 Continue\r\n\r\n') sock.write(body);
      });
      sock.on('error', () => {});
      const closed = new Promise<void>((resolve) => sock.once('close', () => resolve()));
      sock.write(head.replace('\r\n', '\r\nConnection: close\r\n'));
      await closed;
      return reply;
    }
    const site = '{"name":"Expected","description":""}';
    const query = '{"query":"{__typename}"}';
    const post = (path: string, headers: string, body: string) =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;

    test('one other than 100-continue is a 417 envelope, on REST and /graphql, not Node\'s bare 417', async () => {
      for (const path of [`${root}/sites`, '/graphql']) {
        const reply = await expecting(post(path, `${auth}Expect: 200-ok\r\n`, site), site);
        expect([path, reply.split('\r\n')[0]]).toEqual([path, 'HTTP/1.1 417 Expectation Failed']);
        const at = reply.indexOf('\r\n\r\n');
        expect(reply.slice(0, at)).toMatch(new RegExp(`\r\ncontent-length: ${Buffer.byteLength(reply.slice(at + 4))}(\r\n|$)`, 'i'));
        expect(reply.slice(0, at)).toMatch(/\r\nx-request-id: [\w-]+(\r\n|$)/i);
        const message = "The server meets no expectation but 100-continue: send the request without 'Expect: 200-ok'.";
        expect(JSON.parse(reply.slice(at + 4))).toEqual({
          meta: { status: 417, statusMsg: 'Expectation Failed', method: 'POST', errors: [{ code: 'EXPECTATION_FAILED', message, developerMessage: message }] },
        });
      }
    });

    test('100-continue: a request refused on its head (no or a bad token, a length over the limit) gets its answer, not 100 Continue', async () => {
      const big = `{"name":"${'x'.repeat(2000)}"}`;
      for (const [path, headers, body, status] of [
        [`${root}/sites`, '', site, 401],
        [`${root}/sites`, 'Authorization: Bearer not-a-token\r\n', site, 401],
        ['/graphql', 'Authorization: Bearer not-a-token\r\n', query, 401],
        [`${root}/sites`, auth, big, 413],
        [`${root}/nowhere`, auth, site, 404],
      ] as const) {
        const reply = await expecting(post(path, `${headers}Expect: 100-continue\r\n`, body), body);
        expect([path, status, reply.split('\r\n')[0]]).toEqual([path, status, expect.stringMatching(new RegExp(`^HTTP/1\\.1 ${status} `))]);
      }
    });

    test('100-continue: an accepted request gets 100 Continue, then its answer to the body sent after it', async () => {
      for (const [path, body, status] of [
        [`${root}/sites`, site, 200],
        ['/graphql', query, 200],
      ] as const) {
        const reply = await expecting(post(path, `${auth}Expect: 100-continue\r\n`, body), body);
        expect([path, reply.split('\r\n').slice(0, 3)]).toEqual([path, ['HTTP/1.1 100 Continue', '', expect.stringMatching(new RegExp(`^HTTP/1\\.1 ${status} `))]]);
      }
    });
  });
});
