import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import polka from 'polka';
import { internalError, type ApiOptions } from './api.ts';
import { LiveApi } from './live.ts';
import { jsonLines, type LineLog } from './log.ts';
import type { ApiResponse } from './response.ts';

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
 * Starts the HTTP server: Polka is the transport (one middleware), the `Api` of the current build answers
 * every request, and each request is logged as one JSON line.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? jsonLines(process.stdout);
  const reportError = (error: unknown, request: { method: string; url: string }) =>
    log({ time: new Date().toISOString(), event: 'error', method: request.method, path: request.url, error: error instanceof Error ? error.stack : String(error) });
  const live = new LiveApi(options.db, { ...options.api, reportError }, log);
  let closing = false;

  // The hot path allocates no closures: one request object for the API, then a synchronous write.
  const send = (req: IncomingMessage, res: ServerResponse, response: ApiResponse, started: number) => {
    if (closing) res.setHeader('Connection', 'close');
    res.writeHead(response.status, response.headers);
    res.end(response.body);
    if (!options.quiet) {
      const duration = Math.round((performance.now() - started) * 1000) / 1000;
      log({ time: new Date().toISOString(), method: req.method, path: req.url, status: response.status, duration_ms: duration, bytes: response.body.length });
    }
  };
  const failure = (req: IncomingMessage, error: unknown) => {
    reportError(error, { method: req.method ?? '', url: req.url ?? '' });
    return internalError(req.method ?? 'GET');
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const started = options.quiet ? 0 : performance.now();
    let response: ApiResponse | Promise<ApiResponse>;
    try {
      response = live.current.respond({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    } catch (error) {
      response = failure(req, error);
    }
    if (response instanceof Promise) {
      response.then((settled) => send(req, res, settled, started), (error: unknown) => send(req, res, failure(req, error), started));
    } else {
      send(req, res, response, started);
    }
  };

  const app = polka().use(handle);
  const server: Server = await new Promise((resolve, reject) => {
    app.listen(options.port, options.host);
    const listening = app.server as Server;
    listening.once('listening', () => resolve(listening));
    listening.once('error', reject);
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
