/**
 * MAX_CONNECTIONS and MAX_CONNECTIONS_PER_ADDRESS over raw sockets against the real server: a
 * connection past a limit is closed without an answer, the ones held stay usable, one that comes
 * after a release is served, and /metrics counts what is open and what was refused. The test
 * connects from several loopback addresses (127.0.0.x), which the server sees as several clients.
 */
import type net from 'node:net';
import { connect, splitAnswer } from './raw-socket.js';
import { startServer, stop, waitFor, type Started } from './server-process.js';

/** One answer read off a keep-alive connection: its head and body, once its Content-Length of body has come. */
function answer(sock: net.Socket): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    let reply = '';
    const onData = (d: Buffer) => {
      reply += d;
      const { head, body } = splitAnswer(reply);
      const length = /\r\ncontent-length: (\d+)/i.exec(head);
      if (body === undefined || !length || Buffer.byteLength(body) < Number(length[1])) return;
      sock.off('data', onData).off('close', onClose);
      resolve({ head, body });
    };
    const onClose = () => reject(new Error(`the connection closed before its answer: ${reply}`));
    sock.on('data', onData).once('close', onClose);
  });
}

async function get(sock: net.Socket, path: string): Promise<{ head: string; body: string }> {
  const reply = answer(sock);
  sock.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  return reply;
}

/** A connection from `from` that has been served once, and is kept open. */
async function held(port: number, from: string): Promise<net.Socket> {
  const sock = await connect(port, from);
  expect((await get(sock, '/healthz')).head).toMatch(/^HTTP\/1\.1 200 /);
  return sock;
}

/** What a connection from `from` receives before the server closes it, having sent nothing. */
async function closedAtOnce(port: number, from: string): Promise<string> {
  const sock = await connect(port, from);
  let received = '';
  sock.on('data', (d) => (received += d));
  await new Promise<void>((resolve, reject) => {
    sock.once('error', reject);
    sock.once('close', () => resolve());
  });
  return received;
}

/** The value of one sample of /metrics, asked on `sock` (0 when absent). */
async function metric(sock: net.Socket, series: string): Promise<number> {
  const line = (await get(sock, '/metrics')).body.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** Asks /metrics on `sock` until the server has seen the connections closed that the test closed. */
async function untilOpen(sock: net.Socket, n: number): Promise<void> {
  while ((await metric(sock, 'http_connections_open')) !== n);
}

const release = (sock: net.Socket) => new Promise<void>((resolve) => sock.once('close', () => resolve()).destroy());

describe('MAX_CONNECTIONS_PER_ADDRESS', () => {
  let s: Started;
  const open: net.Socket[] = [];
  beforeAll(async () => {
    s = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, MAX_CONNECTIONS_PER_ADDRESS: '2', TRUSTED_PROXIES: '127.0.0.3' });
  }, 60_000);
  afterAll(async () => {
    for (const sock of open) sock.destroy();
    if (s?.child.exitCode === null) await stop(s);
  });
  const keep = async (from: string) => {
    const sock = await held(s.port, from);
    open.push(sock);
    return sock;
  };

  test('past it a connection from that address is closed unanswered; the ones held, other addresses and one after a release are served', async () => {
    const [first, second] = [await keep('127.0.0.1'), await keep('127.0.0.1')];
    expect(await closedAtOnce(s.port, '127.0.0.1')).toBe('');
    const other = await keep('127.0.0.2');
    expect(await metric(other, 'http_connections_refused_total{reason="address_full"}')).toBe(1);
    expect(await metric(other, 'http_connections_open')).toBe(3);
    expect((await get(first, '/healthz')).head).toMatch(/^HTTP\/1\.1 200 /);
    expect((await get(second, '/healthz')).head).toMatch(/^HTTP\/1\.1 200 /);

    await release(second);
    await untilOpen(other, 2);
    await keep('127.0.0.1');
    expect(await closedAtOnce(s.port, '127.0.0.1')).toBe('');
    expect(await metric(other, 'http_connections_refused_total{reason="address_full"}')).toBe(2);
    expect(await metric(other, 'http_connections_refused_total{reason="server_full"}')).toBe(0);
    // One warning for both refusals, naming the setting and the address.
    await waitFor(s.child, s.stdout, /"level":40,.*"reason":"address_full","address":"127\.0\.0\.1","refusedSinceStart":1,.*MAX_CONNECTIONS_PER_ADDRESS \(2\) reached/);
    expect(s.stdout().match(/"reason":"address_full"/g)).toHaveLength(1);
  });

  test('a trusted proxy\'s connections are not counted by address', async () => {
    const proxied = [await keep('127.0.0.3'), await keep('127.0.0.3'), await keep('127.0.0.3')];
    expect((await get(proxied[0], '/healthz')).head).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('MAX_CONNECTIONS', () => {
  let s: Started;
  const open: net.Socket[] = [];
  beforeAll(async () => {
    // No limit per address (0): all three come from one.
    s = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, MAX_CONNECTIONS: '3', MAX_CONNECTIONS_PER_ADDRESS: '0', HEALTH_PORT: '0' });
  }, 60_000);
  afterAll(async () => {
    for (const sock of open) sock.destroy();
    if (s?.child.exitCode === null) await stop(s);
  });

  test('past it any connection is closed unanswered; the ones held and one after a release are served', async () => {
    for (let i = 0; i < 3; i++) open.push(await held(s.port, '127.0.0.1'));
    const [first, second, third] = open;
    expect(await closedAtOnce(s.port, '127.0.0.2')).toBe('');
    expect(await closedAtOnce(s.port, '127.0.0.1')).toBe('');
    expect(await metric(first, 'http_connections_refused_total{reason="server_full"}')).toBe(2);
    expect(await metric(first, 'http_connections_refused_total{reason="address_full"}')).toBe(0);
    expect(await metric(first, 'http_connections_open')).toBe(3);
    expect((await get(second, '/healthz')).head).toMatch(/^HTTP\/1\.1 200 /);

    await release(third);
    await untilOpen(first, 2);
    open[2] = await held(s.port, '127.0.0.2');
    expect(await closedAtOnce(s.port, '127.0.0.1')).toBe('');
    expect(await metric(first, 'http_connections_refused_total{reason="server_full"}')).toBe(3);
    await waitFor(s.child, s.stdout, /"level":40,.*"reason":"server_full",.*MAX_CONNECTIONS \(3\) reached/);
    expect(s.stdout().match(/"reason":"server_full"/g)).toHaveLength(1);
  });

  test('HEALTH_PORT answers probes and metrics while PORT is full, counted apart, up to 64 connections of its own; any other path there is a 404', async () => {
    // PORT still holds its three (the test above).
    expect(await closedAtOnce(s.port, '127.0.0.1')).toBe('');
    const healthPort = Number(/"healthPort":(\d+)/.exec(s.stdout())![1]);
    expect(healthPort).not.toBe(s.port);
    const probe = await connect(healthPort, '127.0.0.1');
    open.push(probe);
    expect((await get(probe, '/healthz')).head).toMatch(/^HTTP\/1\.1 200 /);
    expect(await get(probe, '/readyz')).toMatchObject({ head: expect.stringMatching(/^HTTP\/1\.1 200 /), body: '{"status":"ready","database":"up"}' });
    // Its connections are not PORT's: the gauge still reads three, and the refusal just made is counted.
    expect(await metric(probe, 'http_connections_open')).toBe(3);
    expect(await metric(probe, 'http_connections_refused_total{reason="server_full"}')).toBe(4);
    // Its own bound: 64 connections, the 65th closed as it comes.
    for (let i = 1; i < 64; i++) open.push(await held(healthPort, '127.0.0.1'));
    expect(await closedAtOnce(healthPort, '127.0.0.1')).toBe('');
    const api = await get(probe, '/api/v1/x/y/sites');
    expect(api.head).toMatch(/^HTTP\/1\.1 404 /);
    expect(JSON.parse(api.body).meta).toMatchObject({ status: 404, errors: [{ code: 'NOT_FOUND', message: 'HEALTH_PORT serves only /healthz, /readyz, /metrics; the API is on PORT.' }] });
  });
});
