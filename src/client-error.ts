/**
 * Node's own refusals, for requests it cannot parse (a malformed request line or header, a head
 * over MAX_HEADER_BYTES, a head that arrives too slowly, a request cut short), answered as the error envelope
 * instead of Node's bare `400`/`431`. The request was never parsed, so `meta` has no method or href.
 */
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

export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A peer that went away gets no answer; one that sent half a request after the answer began gets no second one.
  if (err.code === 'ECONNRESET' || !socket.writable || (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
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
}
