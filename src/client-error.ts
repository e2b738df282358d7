/**
 * Node's own refusals, for requests it cannot parse (a malformed request line or header, a head
 * over MAX_HEADER_BYTES, a head that arrives too slowly, a request cut short), answered as the error envelope
 * instead of Node's bare `400`/`431`. The request was never parsed, so `meta` has no method or href.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { statusMsg } from './rest/envelope.js';

const refusals: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
    message: 'The request line and headers are too large: shorten the URL (send a long q in fewer characters) or the headers.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request did not arrive in time.' },
  // The client closed its side mid-request: the request may be valid, only not all there.
  HPE_INVALID_EOF_STATE: {
    status: 400,
    code: 'BAD_REQUEST',
    message: 'The request ended early: the connection was closed before its headers, or the body its Content-Length (or chunked encoding) declares, were complete. Send all of it.',
  },
};
const malformed = { status: 400, code: 'BAD_REQUEST', message: 'The request is not valid HTTP/1.1: check the request line and headers.' };

type InFlight = ServerResponse & { req?: IncomingMessage };

/** Sockets whose refusal is written or waits: Node reports each later chunk's parse error again. */
const answering = new WeakSet<Socket>();

export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (answering.has(socket)) return;
  answering.add(socket);
  if (err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  afterInFlight(socket, (inFlight) => {
    // A peer that went away gets no answer; one that sent half a request after the answer began gets no second one.
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const r = refusals[err.code ?? ''] ?? malformed;
    const body = JSON.stringify({
      meta: { status: r.status, statusMsg: statusMsg(r.status), errors: [{ code: r.code, message: r.message, developerMessage: r.message }] },
    });
    socket.end(
      `HTTP/1.1 ${r.status} ${statusMsg(r.status)}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/**
 * Calls `then` once no answer to a request parsed whole is still being made on `socket`, with the
 * one in flight left (a request still arriving: its own body is what failed), if any. A pipelined
 * request Node parsed before the bad one (or a CONNECT) is answered first, in order (RFC 9112
 * 9.3.2): Node hands the refusal over while that answer is still being made, and written then, the
 * refusal took its place and the answer was lost (a POST committed and was told 400). The next
 * such answer becomes the socket's own when one finishes, so this waits for each in turn.
 */
export function afterInFlight(socket: Socket, then: (inFlight: InFlight | undefined) => void, done?: InFlight): void {
  const attached = (socket as Socket & { _httpMessage?: InFlight | null })._httpMessage ?? undefined;
  // One that finished may stay attached until Node moves on to the next: it is no longer in flight.
  const inFlight = attached === done ? undefined : attached;
  if (inFlight?.req?.complete && socket.writable) {
    const next = () => {
      inFlight.off('finish', next).off('close', next);
      setImmediate(() => afterInFlight(socket, then, inFlight));
    };
    if (inFlight.writableFinished) next();
    else inFlight.on('finish', next).on('close', next);
    return;
  }
  then(inFlight);
}
