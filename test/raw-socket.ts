/**
 * Raw TCP clients of a test server, for what fetch cannot send: bytes as written, bodies cut
 * short, hang-ups midway.
 */
import net from 'node:net';

/**
 * A connection to the server on 127.0.0.1:`port`, once it is open (a refused one rejects); `from`,
 * another loopback address (127.0.0.2), is the address the server sees it come from.
 */
export function connect(port: number, from?: string): Promise<net.Socket> {
  const sock = net.connect({ port, host: '127.0.0.1', localAddress: from });
  return new Promise((resolve, reject) => {
    sock.once('connect', () => resolve(sock));
    sock.once('error', reject);
  });
}

/** An answer read off a socket as text, split at the blank line that ends its head (no body: none came). */
export function splitAnswer(reply: string): { head: string; body?: string } {
  const at = reply.indexOf('\r\n\r\n');
  return at < 0 ? { head: reply } : { head: reply.slice(0, at), body: reply.slice(at + 4) };
}
