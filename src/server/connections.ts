import type http from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { anonymousSubject, normalizeAddress } from '../auth/client-ip.ts';
import { errorBody, ERROR_STATUS, type ErrorCode } from '../http/errors.ts';
import { COMMON_HEADERS, JSON_TYPE } from '../http/response.ts';
import { cut } from './send-watch.ts';

/** How many connections one server process keeps open: in all, and per client address. */
export interface ConnectionLimits {
  maxConnections: number;
  /** Per client address (IPv6: per /64, as the anonymous quota counts them). */
  maxPerClient: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { maxConnections: 2048, maxPerClient: 128 };
/** A refused connection gets its answer and this long to read it (its input is discarded), then it is closed. */
export const REFUSED_LINGER_MS = 1_000;

const REFUSED = Symbol('hcas.refusedConnection');

/**
 * Caps the connections of one server process, in all and per client address, so no client (and no number
 * of them) can hold more sockets, parsers and buffers than the caps allow. A connection over a cap is
 * answered at once, before its request is read: `429 too_many_connections` for a client over its share,
 * `503 server_busy` when the process is full, both with `Retry-After: 1` and `Connection: close`; then it
 * is closed. Trusted proxies (`--trust-proxy`) carry many clients on their connections: they count only
 * toward the total.
 */
export class ConnectionGuard {
  /** Connections open now (refused ones are not counted). */
  open = 0;
  /** Connections refused since the start, by reason (for the metrics). */
  readonly refused = { busy: 0, perClient: 0 };
  private readonly perClient = new Map<string, number>();
  private readonly limits: ConnectionLimits;
  private readonly exempt: (address: string) => boolean;

  constructor(limits: ConnectionLimits, exempt: (address: string) => boolean = () => false) {
    this.limits = limits;
    this.exempt = exempt;
  }

  /** Installs the guard before the HTTP server's own handling of each connection. */
  attach(server: http.Server): void {
    server.prependListener('connection', (socket: Socket) => this.admit(socket));
  }

  /** True for a connection the guard refused: the server must not answer its requests. */
  static isRefused(socket: Socket): boolean {
    return (socket as Socket & { [REFUSED]?: boolean })[REFUSED] === true;
  }

  private admit(socket: Socket): void {
    const address = normalizeAddress(socket.remoteAddress ?? '');
    const subject = this.exempt(address) ? undefined : anonymousSubject(address);
    if (this.open >= this.limits.maxConnections) {
      this.refused.busy++;
      refuse(
        socket,
        'server_busy',
        `This server process has ${this.limits.maxConnections.toLocaleString('en-US')} connections open, its limit; retry in a moment`,
      );
      return;
    }
    const fromClient = subject === undefined ? 0 : (this.perClient.get(subject) ?? 0);
    if (subject !== undefined && fromClient >= this.limits.maxPerClient) {
      this.refused.perClient++;
      const message = `Your address has ${this.limits.maxPerClient.toLocaleString('en-US')} connections open to this server process, the limit per client; reuse them (keep-alive) or close some`;
      refuse(socket, 'too_many_connections', message);
      return;
    }
    this.open++;
    if (subject !== undefined) this.perClient.set(subject, fromClient + 1);
    socket.once('close', () => {
      this.open--;
      if (subject === undefined) return;
      const left = (this.perClient.get(subject) ?? 1) - 1;
      if (left > 0) this.perClient.set(subject, left);
      else this.perClient.delete(subject);
    });
  }
}

/** Answers a connection before its request is read, then closes it; whatever it sends is read and dropped. */
function refuse(socket: Socket, code: ErrorCode, message: string): void {
  (socket as Socket & { [REFUSED]?: boolean })[REFUSED] = true;
  const body = `${JSON.stringify(errorBody(code, message))}\n`;
  const status = ERROR_STATUS[code];
  const headers = {
    'Content-Type': JSON_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    ...COMMON_HEADERS,
    'Retry-After': '1',
    Connection: 'close',
  };
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  socket.on('error', () => {});
  socket.end(head + body);
  // Reset, not closed: a client that has not read the answer by then leaves no orphaned socket behind.
  setTimeout(() => cut(socket), REFUSED_LINGER_MS).unref();
}
