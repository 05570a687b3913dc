import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { pipeline, type Duplex, type Readable } from 'node:stream';
import type { ApiOptions } from '../api/index.ts';
import { withHeaders } from '../auth/answers.ts';
import { clientAddress, TrustedProxies } from '../auth/client-ip.ts';
import type { Gate, GateRequest } from '../auth/gate.ts';
import { SqliteStore } from '../auth/sqlite-store.ts';
import { redactKeys } from '../auth/keys.ts';
import { internalError } from '../http/dispatcher.ts';
import { jsonResponse, type ApiResponse } from '../http/response.ts';
import { defaultWorkload } from '../http/work.ts';
import { BuildKeeper } from './build-keeper.ts';
import { ErrorLog } from './error-log.ts';
import type { BuildSource } from './build-source.ts';
import { LiveApi } from './live.ts';
import { isoTime, jsonLines, logs, type LevelledLog, type LineLog } from './log.ts';
import type { RequestRecord } from './request-line.ts';
import { METRICS_CONTENT_TYPE, ServerMetrics } from './metrics.ts';
import { OPS_PATHS, OpsEndpoints, opsEndpoint, type MetricsAccess } from './ops.ts';
import { QueryPool } from './query-pool.ts';
import { proxyRequestId, RequestIds } from './request-id.ts';
import type { ServingState } from './serving-state.ts';
import { ConnectionGuard, DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './connections.ts';
import { requestError } from './request-headers.ts';
import { SendWatch } from './send-watch.ts';
import { StateCheckpoints } from './state-checkpoints.ts';
import { createHttpServer, DEFAULT_TIMEOUTS, type TransportTimeouts } from './transport.ts';

export interface ServerOptions {
  db: string;
  port: number;
  host: string;
  /** No request log lines (lifecycle events are still logged). */
  quiet?: boolean;
  /** Reload when the database file is replaced (default true). */
  watch?: boolean;
  /** Where private copies of the database file are made (default: the system temp folder); false serves the file itself. */
  snapshotDir?: string | false;
  /** The builds to serve when another process checks them (a cluster worker: its primary); default a keeper of `db`. */
  builds?: BuildSource;
  /** Where JSON log lines go (default: stdout, batched, info level). */
  log?: LineLog;
  api?: ApiOptions;
  /** API keys, plans and rate limits (src/auth); without it every caller is served, uncounted and unlimited. */
  gate?: Gate;
  /** Proxies whose X-Forwarded-For and X-Request-Id are believed when there is no gate (with one: the gate's). */
  proxies?: TrustedProxies;
  /** `/metrics`: on by default, for loopback callers not behind a proxy, and for callers with the token. */
  metrics?: MetricsAccess;
  /** Where `/metrics` gets its text (a cluster worker asks the primary for every worker's sum); default this process's. */
  metricsText?: (local: ServerMetrics) => () => Promise<string>;
  /** Overrides of the client timeouts (default: DEFAULT_TIMEOUTS; `hcas serve --send-timeout` sets one, tests shorten them). */
  timeouts?: Partial<TransportTimeouts>;
  /** Overrides of the connection caps (default: `hcas serve`'s settings, else DEFAULT_CONNECTION_LIMITS). */
  connections?: Partial<ConnectionLimits>;
}

export interface RunningServer {
  url: string;
  port: number;
  live: LiveApi;
  /** Takes the database file again (SIGHUP): checked, and swapped in if it is a good build. */
  reload(reason: string): void;
  /** What `/readyz` reports; the parts that own a state keep it current. */
  state: ServingState;
  metrics: ServerMetrics;
  /** Stops accepting connections and resolves once in-flight requests have been answered. */
  close(): Promise<void>;
}

/** How long `close` waits for in-flight requests before cutting the remaining connections. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** The folder of private copies: the option, else the system temp folder; none when the file itself is served. */
function snapshotFolder(option: string | false | undefined): string | undefined {
  return option === false ? undefined : (option ?? tmpdir());
}

/** The plan label of requests served with limits off, and of the operator endpoints. */
const NO_PLAN = 'none';

/**
 * Starts the HTTP server: the `Api` of the current build answers every request (behind the gate when there
 * is one), and each request is logged as one JSON line and counted in the metrics. Node's server hands each
 * request straight to `handle`: routing is the dispatcher's (src/http/dispatcher.ts), which `hcas get` calls
 * without a socket. `/healthz`, `/readyz` and `/metrics` are answered before the gate: never counted.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.log ?? jsonLines(process.stdout);
  // Unexpected errors: the first of each kind with its stack, repeats summed up once a minute.
  const errors = new ErrorLog(log);
  const reportError = (error: unknown, request: { method: string; url: string }) => errors.report(error, request);
  const { gate } = options;
  gate?.attach(log, reportError);
  const builds = options.builds ?? (await BuildKeeper.open({ file: options.db, snapshotDir: snapshotFolder(options.snapshotDir), log }));
  // One work queue, one set of stream slots and one pool of query workers for the process, whichever build answers.
  const workload = options.api?.workload ?? defaultWorkload();
  const queryPool = options.api?.queryPool ?? new QueryPool({}, log);
  const live = new LiveApi(builds, { ...options.api, workload, queryPool, reportError, ...(gate && { status: () => gate.status() }) }, log);
  const state = live.state;
  state.setCheck('rate_limits', () => {
    if (!gate) return { status: 'ok', backend: 'off' };
    const { backend, status } = gate.status().rate_limits;
    return status === 'ok'
      ? { status: 'ok', backend }
      : { status: 'degraded', backend, detail: 'the key and counter state does not answer: calls are served uncounted until it is back' };
  });
  const metrics = new ServerMetrics(live, gate && (() => gate.stats()));
  const metricsAccess = options.metrics ?? { enabled: true };
  const ops = new OpsEndpoints(state, metricsAccess, options.metricsText?.(metrics) ?? (() => metrics.text()), METRICS_CONTENT_TYPE);
  const proxies = gate?.proxies ?? options.proxies ?? new TrustedProxies();
  const trusted = new Map<string, boolean>();
  const trusts = (peer: string | undefined): boolean => {
    if (peer === undefined || proxies.size === 0) return false;
    let known = trusted.get(peer);
    if (known === undefined) {
      known = proxies.trusts(peer.startsWith('::ffff:') ? peer.slice(7) : peer);
      if (trusted.size >= 1_000) trusted.clear();
      trusted.set(peer, known);
    }
    return known;
  };
  const timeouts: TransportTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const guard = new ConnectionGuard({ ...DEFAULT_CONNECTION_LIMITS, ...options.connections }, trusts);
  const ids = new RequestIds();
  const logRequests = !options.quiet && logs(log, 'info');
  const logProbes = logs(log, 'debug');
  let closing = false;

  const finished = (request: GateRequest, requestId: string, status: number, bytes: number, started: number, level: 'info' | 'debug') => {
    const seconds = (performance.now() - started) / 1000;
    if (!gate && request.route === undefined && level === 'info') request.route = live.current.routeOf(request.url).route?.path;
    metrics.record(request.route, status, request.plan ?? NO_PLAN, seconds);
    if (level === 'info' ? !logRequests : !logProbes) return;
    const record: RequestRecord = {
      time: isoTime(),
      level,
      request_id: requestId,
      method: request.method,
      // API keys are never logged: they travel in headers, and one sent in the query by mistake is redacted.
      path: redactKeys(request.url),
      route: request.route,
      status,
      duration_ms: Math.round(seconds * 1e6) / 1000,
      bytes,
      client: request.client ?? clientAddress(request.remoteAddress, request.headers?.['x-forwarded-for'], proxies),
      key_id: request.keyId,
      plan: request.plan,
    };
    if (level === 'info' && 'request' in log) (log as LevelledLog).request(record);
    else log(record);
  };

  // The hot path allocates little: the request object the gate notes the caller on, then a synchronous write.
  const send = (
    res: ServerResponse,
    response: ApiResponse,
    request: GateRequest,
    requestId: string,
    started: number,
    level: 'info' | 'debug',
  ) => {
    // Requests the HTTP layer refuses end their connection (docs/api.md, "Errors"): a repeated Host may mean two
    // proxies read two different requests, so nothing more is read from that connection.
    if (closing || response.status === 414 || request.invalid?.code === 'bad_request') res.setHeader('Connection', 'close');
    // The gate adds X-Request-Id to every answer it makes; anything else gets it here.
    const headers = 'X-Request-Id' in response.headers ? response.headers : withHeaders(response, request.responseHeaders!).headers;
    res.writeHead(response.status, headers);
    if (response.stream) return sendStream(res, response.stream, request, requestId, started);
    // A small cached answer goes as text: with the headers, one string and one write (response.ts, `text`).
    if (response.text !== undefined) res.end(response.text, 'latin1');
    else res.end(response.body);
    finished(request, requestId, response.status, response.body.length, started, level);
  };
  // A streamed body (exports) is written as the client reads it; a client that goes away stops the producer,
  // and one that stops reading (or reads a trickle) is cut by the send watch, releasing the build its answer holds.
  const sendStream = (res: ServerResponse, stream: Readable, request: GateRequest, requestId: string, started: number) => {
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => (bytes += chunk.length));
    pipeline(stream, res, (error) => {
      if (error && (error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') reportError(error, request);
      finished(request, requestId, 200, bytes, started, 'info');
    });
  };
  // Answers ready at once are written together at the end of the event-loop turn, as the ones that wait for
  // a count are: the server then wakes its clients once per turn rather than once per answer, and the kernel's
  // loopback work is most of a request's CPU (bench/request-path.ts, the bare server's row).
  let queued: Array<{
    res: ServerResponse;
    response: ApiResponse;
    request: GateRequest;
    requestId: string;
    started: number;
    level: 'info' | 'debug';
  }> = [];
  const writeQueued = () => {
    const batch = queued;
    queued = [];
    for (const item of batch) send(item.res, item.response, item.request, item.requestId, item.started, item.level);
  };
  const failure = (request: GateRequest, error: unknown) => {
    reportError(error, request);
    return internalError(request.method);
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (ConnectionGuard.isRefused(req.socket)) return; // answered and closing (connections.ts)
    const started = performance.now();
    const peer = req.socket.remoteAddress;
    const fromProxy = trusts(peer) ? proxyRequestId(req.headers) : undefined;
    const requestId = fromProxy ?? ids.next();
    const request: GateRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      remoteAddress: peer,
      proxyRequestId: fromProxy,
      responseHeaders: { 'X-Request-Id': requestId },
      invalid: requestError(req.rawHeaders, req.httpVersionMajor, req.httpVersionMinor),
    };
    const endpoint = opsEndpoint(request.url);
    let level: 'info' | 'debug' = 'info';
    let response: ApiResponse | Promise<ApiResponse>;
    try {
      if (request.invalid !== undefined && (!gate || endpoint !== undefined)) {
        // Without a gate (or for a probe) the server answers it; the gate answers it with the anonymous headers.
        response = jsonResponse(request.method, request.invalid.status, request.invalid.toBody(), request.invalid.headers);
      } else if (endpoint !== undefined) {
        level = 'debug';
        request.route = OPS_PATHS[endpoint];
        response = ops.answer(endpoint, request.method, req.headers, peer);
      } else {
        if (gate) response = gate.respond(live.current, request);
        else {
          request.caller = peer;
          response = live.current.respond(request);
        }
      }
    } catch (error) {
      response = failure(request, error);
    }
    if (response instanceof Promise) {
      response.then(
        (settled) => send(res, settled, request, requestId, started, level),
        (error: unknown) => send(res, failure(request, error), request, requestId, started, level),
      );
    } else {
      if (queued.length === 0) setImmediate(writeQueued);
      queued.push({ res, response, request, requestId, started, level });
    }
  };

  const parserErrorHeaders = gate && ((socket: Duplex) => gate.anonymousHeaders((socket as Socket).remoteAddress));
  const server: Server = createHttpServer(handle, timeouts, parserErrorHeaders, guard);
  const sendWatch = new SendWatch(timeouts.sendMs, timeouts.checkIntervalMs);
  sendWatch.attach(server);
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      live.close(); // the private copy goes with the server that could not start
      reject(error);
    };
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  if (options.watch !== false && builds instanceof BuildKeeper) builds.watch();
  // An SQLite state's checkpoints (their fsyncs) in a thread, not in the commit of a request's count.
  const checkpoints = gate?.store instanceof SqliteStore ? StateCheckpoints.start(gate.store, log) : undefined;
  state.phase = 'serving';
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    url: `http://${host}:${port}`,
    port,
    live,
    reload: (reason) => live.reload(reason),
    state,
    metrics,
    close: () => {
      closing = true;
      state.phase = 'stopping';
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        server.close(() => {
          clearTimeout(force);
          live.close();
          errors.close();
          sendWatch.close();
          void checkpoints?.close();
          if (queryPool instanceof QueryPool) void queryPool.close();
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
