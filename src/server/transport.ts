import http, { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody, type ErrorCode, ERROR_STATUS } from '../http/errors.ts';
import { COMMON_HEADERS, JSON_TYPE } from '../http/response.ts';
import type { ConnectionGuard } from './connections.ts';

/** How long a client may take; a slow or stalled client is cut off instead of holding a connection. */
export interface TransportTimeouts {
  /** From the first byte of a request to the end of its headers (slowloris defence). */
  headersMs: number;
  /** From the first byte of a request to its end (GET requests have no body, so barely longer). */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
  /** How often Node looks for connections past their deadlines: the timeouts bite up to this much later. */
  checkIntervalMs: number;
  /**
   * A connection on which nothing moves for this long, or whose client takes less than 64 KiB of its answer
   * in it (a client that stopped reading, so the server cannot write), is reset (send-watch.ts), and what it
   * held (buffers, a build kept open for its answer) released.
   */
  sendMs: number;
}

export const DEFAULT_TIMEOUTS: TransportTimeouts = {
  headersMs: 10_000,
  requestMs: 15_000,
  keepAliveMs: 5_000,
  checkIntervalMs: 1_000,
  sendMs: 30_000,
};

/** Extra headers for an answer to a request that could not be parsed (the gate's rate-limit headers). */
export type ParserErrorHeaders = (socket: Duplex) => Promise<Record<string, string>> | Record<string, string>;

/**
 * The Node HTTP server, with the timeouts above, the connection caps of `guard`, and a JSON error body in
 * the API's error shape (instead of Node's bare status line) for requests the HTTP parser rejects:
 * malformed (400), too slow (408), header section over 16 KiB (431). The connection is closed after such
 * an answer.
 */
export function createHttpServer(
  handle: http.RequestListener,
  timeouts: Partial<TransportTimeouts> = {},
  extraHeaders?: ParserErrorHeaders,
  guard?: ConnectionGuard,
): http.Server {
  const limits = { ...DEFAULT_TIMEOUTS, ...timeouts };
  const options = {
    headersTimeout: limits.headersMs,
    requestTimeout: limits.requestMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
    // HTTP/1.1 without Host is answered by the server (request-headers.ts), in the API's error shape and with
    // the rate-limit headers, not by Node's bare 400.
    requireHostHeader: false,
  };
  const server = http.createServer(options, handle);
  guard?.attach(server);
  server.keepAliveTimeout = limits.keepAliveMs;
  // No socket timeout (Node's default, 0): the send watch cuts a connection on which nothing moves for sendMs,
  // from one timer for all (send-watch.ts), where Node's refreshes a timer on every read and write.
  // A client may send its request and then close its side (shutdown, `nc -q`): Node's default then drops an
  // answer that is not ready yet (a count to wait for, a first compression). Half-open, the answer is sent
  // and then the connection closed.
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // The parser failed, but a HEAD request line may have been read: its answer has no body.
    const head = (error as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
    answerRaw(socket, ...describe(error), head, extraHeaders);
  });
  // CONNECT asks for a tunnel, which Node hands over as a bare socket (without a listener: closed unanswered).
  server.on('connect', (_request: http.IncomingMessage, socket: Duplex) => {
    socket.on('error', () => {});
    const message = 'CONNECT asks for a tunnel, and this server is not a proxy; send GET, HEAD or OPTIONS with a path under /api/v1/';
    answerRaw(socket, 'bad_request', message, false, extraHeaders);
  });
  return server;
}

/**
 * Writes an error answer straight to a socket the HTTP server no longer answers on (a request it could not
 * parse, a CONNECT): the status line, the usual headers and the rate-limit headers of the client's
 * anonymous window, the JSON body (none for HEAD), then the connection is closed.
 */
function answerRaw(socket: Duplex, code: ErrorCode, message: string, head: boolean, extraHeaders?: ParserErrorHeaders): void {
  const body = Buffer.from(`${JSON.stringify(errorBody(code, message))}\n`);
  const write = (headers: Record<string, string>) => {
    if (!socket.writable) return;
    const lines = Object.entries({
      'Content-Type': JSON_TYPE,
      'Content-Length': String(body.length),
      ...COMMON_HEADERS,
      ...headers,
      Connection: 'close',
    });
    const status = ERROR_STATUS[code];
    const statusAndHeaders = Buffer.from(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`,
      'latin1',
    );
    socket.end(head ? statusAndHeaders : Buffer.concat([statusAndHeaders, body]));
  };
  if (!extraHeaders) {
    write({});
    return;
  }
  Promise.resolve()
    .then(() => extraHeaders(socket))
    .then(write, () => write({}));
}

function describe(error: NodeJS.ErrnoException): [ErrorCode, string] {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return ['request_timeout', 'The request was not received in time; send the request line and headers without pausing'];
    case 'HPE_HEADER_OVERFLOW':
      return ['headers_too_large', 'The request line and headers are over 16 KiB; send fewer or shorter headers'];
    default:
      return ['bad_request', 'The request is not valid HTTP/1.1; check the request line and headers'];
  }
}
