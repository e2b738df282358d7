/**
 * Which errors are "the database is away" (503) and which a client's hang-up (499): both can carry
 * ECONNRESET. The errors are Node's own, made by real sockets.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { clientClosedFrom } from '../../src/client-closed.js';
import { unavailableFrom } from '../../src/db/unavailable.js';

/** Listens on a free port with `server` until `fn` is done. */
async function listening<T>(server: net.Server, fn: (port: number) => Promise<T>): Promise<T> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await fn((server.address() as AddressInfo).port);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

test('a server that drops the TLS handshake (ECONNRESET, no syscall) is the database away: 503', async () => {
  const dropping = net.createServer((socket) => socket.destroy());
  const err = await listening(dropping, (port) =>
    new Promise<Error>((resolve) => tls.connect({ host: '127.0.0.1', port }).on('error', resolve)),
  );
  expect(err).toMatchObject({ code: 'ECONNRESET', message: expect.stringMatching(/before secure TLS connection was established/) });
  expect(err).not.toHaveProperty('syscall');
  expect(unavailableFrom(err)?.code).toBe('UNAVAILABLE');
  expect(unavailableFrom({ cause: err })?.code).toBe('UNAVAILABLE');
  expect(clientClosedFrom(err)).toBeUndefined();
});

test("a request whose client hung up mid-body (Node's 'aborted', ECONNRESET) is the client's: 499, not 503", async () => {
  let bodyError!: Promise<Error>;
  const server = http.createServer((req) => {
    bodyError = new Promise((resolve) => req.on('error', resolve));
    req.resume();
  });
  const err = await listening(server, async (port) => {
    const client = net.connect(port, '127.0.0.1');
    client.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npart');
    await new Promise<void>((resolve) => server.once('request', () => resolve()));
    client.destroy();
    return bodyError;
  });
  expect(err).toMatchObject({ code: 'ECONNRESET', message: 'aborted' });
  expect(unavailableFrom(err)).toBeUndefined();
  expect(clientClosedFrom(err)?.code).toBe('CLIENT_CLOSED_REQUEST');
});
