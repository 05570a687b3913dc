import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pipeline, type Duplex, type Readable } from 'node:stream';
import type { ApiOptions } from '../api/index.ts';
import type { Gate } from '../auth/gate.ts';
import { redactKeys } from '../auth/keys.ts';
import { internalError } from '../http/dispatcher.ts';
import type { ApiResponse } from '../http/response.ts';
import { LiveApi } from './live.ts';
import { jsonLines, type LineLog } from './log.ts';
import { createHttpServer, type TransportTimeouts } from './transport.ts';

export interface ServerOptions {
  db: string;
  port: number;
  host: string;
  /** No request log lines (lifecycle events are still logged). */
  quiet?: boolean;
  /** Reload when the database file is replaced (default true). */
  watch?: boolean;
  /** Where JSON log lines go (default: stdout, batched). */
  log?: LineLog;
  api?: ApiOptions;
  /** API keys, plans and rate limits (src/auth); without it every caller is served, uncounted and unlimited. */
  gate?: Gate;
  /** Overrides of the client timeouts (tests shorten them). */
  timeouts?: Partial<TransportTimeouts>;
}

export interface RunningServer {
  url: string;
  port: number;
  live: LiveApi;
  /** Stops accepting connections and resolves once in-flight requests have been answered. */
  close(): Promise<void>;
}

/** How long `close` waits for in-flight requests before cutting the remaining connections. */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Starts the HTTP server: the `Api` of the current build answers every request (behind the gate when there
 * is one), and each request is logged as one JSON line. Node's server hands each request straight to
 * `handle`: routing is the dispatcher's (src/http/dispatcher.ts), which `hcas get` calls without a socket.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? jsonLines(process.stdout);
  const reportError = (error: unknown, request: { method: string; url: string }) =>
    log({
      time: new Date().toISOString(), event: 'error', method: request.method, path: redactKeys(request.url),
      error: error instanceof Error ? error.stack : String(error),
    });
  const { gate } = options;
  gate?.attach(log, reportError);
  const live = new LiveApi(options.db, { ...options.api, reportError, ...(gate && { status: () => gate.status() }) }, log);
  let closing = false;

  // The hot path allocates no closures: one request object for the API, then a synchronous write.
  const send = (req: IncomingMessage, res: ServerResponse, response: ApiResponse, started: number) => {
    if (closing) res.setHeader('Connection', 'close');
    res.writeHead(response.status, response.headers);
    if (response.stream) return sendStream(req, res, response.stream, started);
    res.end(response.body);
    if (!options.quiet) logRequest(req, response.status, started, response.body.length);
  };
  const logRequest = (req: IncomingMessage, status: number, started: number, bytes: number) => {
    const duration = Math.round((performance.now() - started) * 1000) / 1000;
    // API keys are never logged: they travel in headers, and one sent in the query by mistake is redacted.
    log({ time: new Date().toISOString(), method: req.method, path: redactKeys(req.url ?? ''), status, duration_ms: duration, bytes });
  };
  // A streamed body (exports) is written as the client reads it; a client that goes away stops the producer.
  const sendStream = (req: IncomingMessage, res: ServerResponse, stream: Readable, started: number) => {
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    pipeline(stream, res, (error) => {
      if (error && (error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') reportError(error, { method: req.method ?? '', url: req.url ?? '' });
      if (!options.quiet) logRequest(req, 200, started, bytes);
    });
  };
  const failure = (req: IncomingMessage, error: unknown) => {
    reportError(error, { method: req.method ?? '', url: req.url ?? '' });
    return internalError(req.method ?? 'GET');
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const started = options.quiet ? 0 : performance.now();
    let response: ApiResponse | Promise<ApiResponse>;
    try {
      const request = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
      response = gate ? gate.respond(live.current, { ...request, remoteAddress: req.socket.remoteAddress }) : live.current.respond(request);
    } catch (error) {
      response = failure(req, error);
    }
    if (response instanceof Promise) {
      response.then((settled) => send(req, res, settled, started), (error: unknown) => send(req, res, failure(req, error), started));
    } else {
      send(req, res, response, started);
    }
  };

  const parserErrorHeaders = gate && ((socket: Duplex) => gate.anonymousHeaders((socket as Socket).remoteAddress));
  const server: Server = createHttpServer(handle, options.timeouts, parserErrorHeaders);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (options.watch !== false) live.watch();
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    url: `http://${host}:${port}`,
    port,
    live,
    close: () => {
      closing = true;
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        server.close(() => {
          clearTimeout(force);
          live.close();
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
