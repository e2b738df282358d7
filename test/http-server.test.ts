/** Whatever the app's handler did, a request gets an answer: one it ended without sending is a 500 envelope, not a wait for ever. */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createHttpServer } from '../src/http-server.js';
import { createLogger } from '../src/log.js';

type Handler = Parameters<typeof createHttpServer>[1];

async function answerOf(handle: Handler) {
  const server = createHttpServer({}, handle, createLogger('silent'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as { meta: { status: number; errors: { code: string; message: string }[] } } | { ok: boolean } };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

test('a handler that ends without answering (as the adapter does when Node refuses a header it sends): a 500 envelope, without the headers it had set', async () => {
  const r = await answerOf(async (_req, res) => {
    res.setHeader('x-from-app', 'set before the failure');
  });
  expect(r.status).toBe(500);
  expect(r.body).toMatchObject({ meta: { status: 500, errors: [{ code: 'INTERNAL_SERVER_ERROR', message: 'The answer could not be sent; the error is logged with this request id.' }] } });
  expect(r.headers.get('x-from-app')).toBeNull();
  expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
});

test('a handler that throws, or whose promise fails, before answering: a 500 envelope', async () => {
  for (const handle of [
    () => {
      throw new Error('thrown');
    },
    () => Promise.reject(new Error('rejected')),
  ] as Handler[]) {
    const r = await answerOf(handle);
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ meta: { status: 500 } });
  }
});

test('an answer the handler sent, at once or after its promise settled, is left as it is', async () => {
  const now = await answerOf((_req, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  expect([now.status, now.body]).toEqual([200, { ok: true }]);
  // Started (headers out) before the promise settles, finished after: still the handler's own.
  const streamed = await answerOf((_req, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"ok":');
    setTimeout(() => res.end('true}'), 50);
    return Promise.resolve();
  });
  expect([streamed.status, streamed.body]).toEqual([200, { ok: true }]);
});

/** What the app is handed as `req.url` for each raw request target. */
async function targetsSeen(targets: string[]): Promise<string[]> {
  const server = createHttpServer({}, (req, res: http.ServerResponse) => res.end(req.url), createLogger('silent'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const seen = [];
    for (const target of targets) {
      const sock = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
      let reply = '';
      sock.on('data', (d) => (reply += d));
      await new Promise((resolve) => sock.once('close', resolve).write(`GET ${target} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`));
      seen.push(reply.slice(reply.indexOf('\r\n\r\n') + 4));
    }
    return seen;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

test('doubled slashes in the path are made one before the app, also in an absolute-form target; the query, a fragment and %2F are left as sent', async () => {
  const cases: [string, string][] = [
    ['//graphql', '/graphql'],
    ['///GraphQL//?query=%7B__typename%7D', '/GraphQL/?query=%7B__typename%7D'],
    ['//api/v1//acme/main//sites//', '/api/v1/acme/main/sites/'],
    [`/${'/'.repeat(10_000)}x`, '/x'],
    ['/api/v1/acme/main/sites?q=name%20eq%20%27a//b%27&next=//x', '/api/v1/acme/main/sites?q=name%20eq%20%27a//b%27&next=//x'],
    ['//a#b//c?d//e', '/a#b//c?d//e'],
    ['/%2F%2Fgraphql%2F?x=%2F%2F', '/%2F%2Fgraphql%2F?x=%2F%2F'],
    ['http://h//graphql//?x=//', '/graphql/?x=//'],
    ['/graphql', '/graphql'],
  ];
  expect(await targetsSeen(cases.map(([target]) => target))).toEqual(cases.map(([, seen]) => seen));
});

test('a user and password in the host of an absolute-form target or the Host header, or a token in a query, are not repeated in the refusal or its log line', async () => {
  const lines: string[] = [];
  const log = createLogger('info', new Writable({ write: (chunk, _enc, done) => done(void lines.push(String(chunk))) }));
  const server = createHttpServer({}, (_req, res: http.ServerResponse) => res.end('served'), log);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const send = async (head: string) => {
    const sock = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    let reply = '';
    sock.on('data', (d) => (reply += d));
    await new Promise((resolve) => sock.once('close', resolve).write(`${head}\r\nConnection: close\r\n\r\n`));
    return reply;
  };
  try {
    const answers = [
      await send('GET http://user:pw-in-target@h/x HTTP/1.1\r\nHost: h'),
      await send('GET /x HTTP/1.1\r\nHost: user:pw-in-host@h'),
      await send('GET *?access_token=token-in-query HTTP/1.1\r\nHost: h'),
    ];
    for (const a of answers) expect(a).toMatch(/^HTTP\/1\.1 400 /);
    expect(answers[0]).toContain("The host of the request target must be host[:port] (a name, an IPv4 address or an IPv6 address in brackets; a port 1-65535), got '…@h' (a user and password go in the Authorization header, never in the host).");
    expect(answers[1]).toContain("got '…@h' (a user and password go in the Authorization header, never in the host)");
    expect(answers[2]).toContain("The request target must be a path or an absolute http URL, got '*?…'.");
    expect(lines).toHaveLength(3);
    for (const text of [...answers, ...lines]) expect(text).not.toMatch(/pw-in-target|pw-in-host|token-in-query|user:/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
