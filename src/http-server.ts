/**
 * The HTTP server in front of the app. Node answers what it cannot parse (src/client-error.ts);
 * what it parses but the adapter cannot take as it is, this answers before anything routes. The
 * adapter makes the request's URL as `http://` + Host + target: a Host such as `x:99999` or `a b`
 * threw there (a 500 with the stack on the wire), and so did an absolute-form target (`GET
 * http://host/path`, which HTTP/1.1 servers must take) or `*`; a Host such as `x/metrics?` chose
 * the path, past any path-based rule in front of the server. CONNECT, which Node hands over as a
 * bare socket, is answered here too, and `Expect` (100 Continue only once the body is read).
 * Doubled slashes in the path are made one here, for every route and `/graphql` alike.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterInFlight, answerClientError } from './client-error.js';
import type { Logger } from './log.js';
import { answeredMethod, statusMsg } from './rest/envelope.js';
import { requestIdFrom } from './rest/request-id.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** host[:port]: a name (letters, digits, `-._~`) or IPv4 address, or an IPv6 address in brackets; the port 1-65535. */
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;
const HOST_RULE = 'host[:port] (a name, an IPv4 address or an IPv6 address in brackets; a port 1-65535)';
/** An absolute-form target: its authority, then its path and query. */
const ABSOLUTE = /^https?:\/\/([^/?#]*)(.*)$/i;

const clip = (s: string) => s.slice(0, 64);

/**
 * Header lines a request may have. Node keeps 2,000 by default and drops the rest without a word
 * (an `Authorization` past them was "Authorization is required"); it is told to keep one more, so
 * a request past the limit is seen and refused (431) rather than read without some of its headers.
 */
export const MAX_HEADER_LINES = 2000;

function isHost(host: string): boolean {
  const m = HOST.exec(host);
  if (!m || (m[1] !== undefined && (Number(m[1]) < 1 || Number(m[1]) > 65535))) return false;
  // What the URL parser refuses all the same (`1.2.3.999`, `[:::]`) the adapter would throw on.
  return URL.canParse(`http://${host}/`);
}

/**
 * Headers of which Node keeps the first line and drops the others without a word, though a second
 * one changes what the request means: which host, whose credentials, what the body is.
 */
const ONCE = ['Host', 'Authorization', 'Content-Type'];

/** How many lines of each of ONCE the request has (by lower-cased name). */
function onceLines(req: IncomingMessage): Map<string, number> {
  const lines = new Map(ONCE.map((name) => [name.toLowerCase(), 0]));
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    const n = lines.get(name);
    if (n !== undefined) lines.set(name, n + 1);
  }
  return lines;
}

/**
 * A host refused, quoted as the message (which the log keeps) may: a user and password before an
 * `@` (`http://user:password@host/`) are left out.
 */
function shownHost(host: string): string {
  const at = host.lastIndexOf('@');
  return at === -1 ? `'${clip(host)}'` : `'…@${clip(host.slice(at + 1))}' (a user and password go in the Authorization header, never in the host)`;
}

/**
 * Why the request cannot be served as it came (RFC 9112 3.2), or undefined. An absolute-form target
 * is turned into its path, its authority becoming the Host (RFC 9112 3.2.2).
 */
function refusalOf(req: IncomingMessage): string | undefined {
  const lines = onceLines(req);
  const repeated = ONCE.find((name) => lines.get(name.toLowerCase())! > 1);
  if (repeated) return `The request has more than one ${repeated} header: send it once.`;
  if (lines.get('host') === 0 && req.httpVersion !== '1.0') return 'The request has no Host header, which HTTP/1.1 requires.';
  const target = req.url ?? '';
  if (target.startsWith('/')) {
    const host = req.headers.host;
    return host === undefined || isHost(host) ? undefined : `The Host header must be ${HOST_RULE}, got ${shownHost(host)}.`;
  }
  const absolute = ABSOLUTE.exec(target);
  // Quoted without its query, where a client may put a token or a password.
  if (!absolute) return `The request target must be a path or an absolute http URL, got '${clip(target.replace(/\?.*$/s, '?…'))}'.`;
  const [, authority, rest] = absolute;
  if (!isHost(authority)) return `The host of the request target must be ${HOST_RULE}, got ${shownHost(authority)}.`;
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
  req.headers.host = authority;
  return undefined;
}

/**
 * A transfer coding Node passes on but does not undo (`gzip, chunked`: Node takes the chunks off and
 * hands over the gzip bytes as if they were the body), or an HTTP version other than 1.x that Node
 * parses all the same (`HTTP/0.9`, `HTTP/2.0`): the status and code of the refusal, and why, or
 * undefined. RFC 9112 6.1 (501 for a transfer coding not understood), RFC 9110 15.6.6 (505).
 */
function unsupportedOf(req: IncomingMessage): { status: number; code: string; message: string } | undefined {
  if (req.httpVersionMajor !== 1) {
    const message = `HTTP/${clip(req.httpVersion)} is not supported: send the request as HTTP/1.1 (or HTTP/1.0).`;
    return { status: 505, code: 'HTTP_VERSION_NOT_SUPPORTED', message };
  }
  const codings: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === 'transfer-encoding') codings.push(...req.rawHeaders[i + 1].split(','));
  }
  // Node itself refuses a request whose last coding is not chunked, or chunked twice; identity changes no byte.
  const unknown = codings.map((c) => c.trim()).find((c) => !/^(chunked|identity)$/i.test(c));
  if (unknown === undefined) return undefined;
  const message = `The transfer coding '${clip(unknown)}' is not supported: send the body with 'Transfer-Encoding: chunked' alone, or with a Content-Length.`;
  return { status: 501, code: 'NOT_IMPLEMENTED', message };
}

/**
 * The target with each run of `/` in its path made one (`//graphql`, `/api/v1//x//sites`), as a
 * client joining a base URL that ends in `/` makes them: every route, REST's, `/graphql` (whose
 * endpoint pattern, a URLPattern, reads a leading `//` as a host) and the fixed paths, sees one
 * spelling. The query and any fragment are left as sent, and so is `%2F`: it is no separator.
 */
function withSingleSlashes(target: string): string {
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  if (!path.includes('//')) return target;
  // One match per run, however long: no backtracking.
  return path.replace(/\/{2,}/g, '/') + (end === -1 ? '' : target.slice(end));
}

/** The error envelope, as Node's own refusals get it: no href, since the URL is what is wrong; logged with its request id. */
function envelopeOf(req: IncomingMessage, status: number, code: string, message: string, log: Logger) {
  const given = req.headers['x-request-id'];
  const requestId = requestIdFrom(typeof given === 'string' ? given : undefined);
  log.info({ requestId, method: req.method, status, reason: message }, 'request refused');
  const body = JSON.stringify({
    meta: { status, statusMsg: statusMsg(status), method: answeredMethod(req.method), errors: [{ code, message, developerMessage: message }] },
  });
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    connection: 'close',
  };
  return { headers, body };
}

export function refuse(req: IncomingMessage, res: ServerResponse, message: string, log: Logger, status = 400, code = 'BAD_REQUEST'): void {
  const { headers, body } = envelopeOf(req, status, code, message, log);
  res.writeHead(status, headers);
  res.end(body);
}

/**
 * `Expect: 100-continue`: `100 Continue` goes out when the app first reads the body, so a request
 * refused before that (a 401 or 403 on its token, a 413 on its declared length, a 404, 405 or 415)
 * is answered without asking the client for a body it would upload for nothing. Node's own way
 * sent `100 Continue` at once. A body never read gets none: the answer closes the connection
 * (src/plugins/use-connection-close.ts).
 */
function continueOnRead(req: IncomingMessage, res: ServerResponse): IncomingMessage {
  const r = req as IncomingMessage & { _read(size: number): void };
  // Readable.read() calls _read for more of the body, whoever reads it (the adapter, the body limit, busboy).
  r._read = (size: number) => {
    delete (r as Partial<typeof r>)._read;
    // Node reads what is left of a request once its answer is out: no 100 after the answer.
    if (!res.headersSent) res.writeContinue();
    r._read(size);
  };
  return req;
}

/** An `Expect` other than `100-continue`: the 417 in the envelope (Node's own was bare). */
function refuseExpectation(req: IncomingMessage, res: ServerResponse, log: Logger): void {
  const message = `The server meets no expectation but 100-continue: send the request without 'Expect: ${clip(String(req.headers.expect))}'.`;
  refuse(req, res, message, log, 417, 'EXPECTATION_FAILED');
}

/**
 * CONNECT asks for a tunnel, which only a proxy makes: a 405 whose Allow is empty, since its
 * target (`host:port`) names nothing here that takes any method (RFC 9110 9.3.6, 15.5.6). Node
 * hands it over as a bare socket, which it closed without a word when nothing took it.
 */
function refuseConnect(req: IncomingMessage, socket: Duplex, log: Logger): void {
  const { headers, body } = envelopeOf(req, 405, 'METHOD_NOT_ALLOWED', 'This server is not a proxy: CONNECT is not supported.', log);
  const lines = Object.entries({ ...headers, allow: '' }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.on('error', () => socket.destroy());
  // After the answers to requests pipelined before it, which it would otherwise take the place of.
  afterInFlight(socket as Socket, () => socket.end(`HTTP/1.1 405 ${statusMsg(405)}\r\n${lines.join('')}\r\n${body}`, () => socket.destroy()));
}

/**
 * A 500 when the app's handling is over and no answer was started: the adapter catches a failure
 * to send one (a header value Node refuses, say) with a line on stderr and leaves the response
 * open, and the client would wait for ever. Headers the app had set go: they may be the cause.
 */
function answerUnanswered(req: IncomingMessage, res: ServerResponse, log: Logger): void {
  if (res.headersSent || res.writableEnded || res.destroyed || res.closed) return;
  const message = 'The answer could not be sent; the error is logged with this request id.';
  const { headers, body } = envelopeOf(req, 500, 'INTERNAL_SERVER_ERROR', message, log);
  log.error({ requestId: headers['x-request-id'], method: req.method }, 'the app ended without sending an answer');
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  res.writeHead(500, headers);
  res.end(body);
}

/** The server `npm start` and the benchmark run: Node's refusals and these checks, then `handle` (the app). */
export function createHttpServer(options: http.ServerOptions, handle: Handler, log: Logger): http.Server {
  // Node's own answer to a request without Host is a bare 400: refusalOf answers it in the envelope.
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    if (req.rawHeaders.length / 2 > MAX_HEADER_LINES) {
      const message = `The request has more than ${MAX_HEADER_LINES} header lines: send fewer (headers past them were not read).`;
      return refuse(req, res, message, log, 431, 'REQUEST_HEADER_FIELDS_TOO_LARGE');
    }
    const unsupported = unsupportedOf(req);
    if (unsupported !== undefined) return refuse(req, res, unsupported.message, log, unsupported.status, unsupported.code);
    const refusal = refusalOf(req);
    if (refusal !== undefined) return refuse(req, res, refusal, log);
    req.url = withSingleSlashes(req.url!);
    const done = () => answerUnanswered(req, res, log);
    try {
      void Promise.resolve(handle(req, res)).then(done, done);
    } catch {
      done();
    }
  };
  const server = http.createServer({ ...options, requireHostHeader: false }, serve);
  server.maxHeadersCount = MAX_HEADER_LINES + 1;
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => serve(continueOnRead(req, res), res));
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => refuseExpectation(req, res, log));
  server.on('clientError', answerClientError);
  server.on('connect', (req: IncomingMessage, socket: Duplex) => refuseConnect(req, socket, log));
  return server;
}
