import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import type { Duplex } from 'node:stream';
import type { ApiOptions } from '../api/index.ts';
import { TrustedProxies } from '../auth/client-ip.ts';
import type { Gate, GateRequest } from '../auth/gate.ts';
import { SqliteStore } from '../auth/sqlite-store.ts';
import { internalError } from '../http/dispatcher.ts';
import { jsonResponse } from '../http/response.ts';
import { defaultWorkload } from '../http/work.ts';
import { BuildKeeper } from './build-keeper.ts';
import { ErrorLog } from './error-log.ts';
import type { BuildSource } from './build-source.ts';
import { LiveApi } from './live.ts';
import { jsonLines, type LineLog } from './log.ts';
import { METRICS_CONTENT_TYPE, ServerMetrics } from './metrics.ts';
import { OPS_PATHS, OpsEndpoints, opsEndpoint, type MetricsAccess } from './ops.ts';
import { QueryPool } from './query-pool.ts';
import { type Answer, type Pending, ResponseWriter } from './responses.ts';
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
  const { state } = live;
  state.setCheck('rate_limits', () => rateLimitsCheck(gate));
  const metrics = new ServerMetrics(live, gate && (() => gate.stats()));
  const ops = new OpsEndpoints(
    state,
    options.metrics ?? { enabled: true },
    options.metricsText?.(metrics) ?? (() => metrics.text()),
    METRICS_CONTENT_TYPE,
  );
  const proxies = gate?.proxies ?? options.proxies ?? new TrustedProxies();
  const trusts = proxyTrust(proxies);
  const writer = new ResponseWriter({
    log,
    metrics,
    proxies,
    quiet: options.quiet === true,
    reportError,
    // Without a gate nothing has routed the request before it is logged.
    routeOf: gate ? undefined : (url) => live.current.routeOf(url).route?.path,
  });
  const handle = requestHandler({ gate, live, ops, writer, trusts, reportError });

  const timeouts: TransportTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const guard = new ConnectionGuard({ ...DEFAULT_CONNECTION_LIMITS, ...options.connections }, trusts);
  const parserErrorHeaders = gate && ((socket: Duplex) => gate.anonymousHeaders((socket as Socket).remoteAddress));
  const server: Server = createHttpServer(handle, timeouts, parserErrorHeaders, guard);
  const sendWatch = new SendWatch(timeouts.sendMs, timeouts.checkIntervalMs);
  sendWatch.attach(server);
  // The private copy goes with a server that could not start.
  await listen(server, options.port, options.host, () => live.close());
  if (options.watch !== false && builds instanceof BuildKeeper) builds.watch();
  // An SQLite state's checkpoints (their fsyncs) in a thread, not in the commit of a request's count.
  const checkpoints = gate?.store instanceof SqliteStore ? StateCheckpoints.start(gate.store, log) : undefined;
  state.phase = 'serving';
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;

  // The threads are waited for: a process that exits while one of them loads its modules is aborted (threads.ts).
  const released = async () => {
    live.close();
    errors.close();
    sendWatch.close();
    await Promise.all([checkpoints?.close(), queryPool instanceof QueryPool ? queryPool.close() : undefined]);
  };
  return {
    url: `http://${host}:${port}`,
    port,
    live,
    reload: (reason) => live.reload(reason),
    state,
    metrics,
    close: () => {
      writer.closing = true;
      state.phase = 'stopping';
      return closeGracefully(server, released);
    },
  };
}

/** What `/readyz` says of the key and counter state. */
function rateLimitsCheck(gate: Gate | undefined): Record<string, unknown> & { status: 'ok' | 'degraded' } {
  if (!gate) return { status: 'ok', backend: 'off' };
  const { backend, status } = gate.status().rate_limits;
  return status === 'ok'
    ? { status: 'ok', backend }
    : { status: 'degraded', backend, detail: 'the key and counter state does not answer: calls are served uncounted until it is back' };
}

/** Whether a socket peer is a trusted proxy (whose X-Forwarded-For and X-Request-Id are believed), remembered per address. */
function proxyTrust(proxies: TrustedProxies): (peer: string | undefined) => boolean {
  const trusted = new Map<string, boolean>();
  return (peer) => {
    if (peer === undefined || proxies.size === 0) return false;
    let known = trusted.get(peer);
    if (known === undefined) {
      known = proxies.trusts(peer.startsWith('::ffff:') ? peer.slice(7) : peer);
      if (trusted.size >= 1_000) trusted.clear();
      trusted.set(peer, known);
    }
    return known;
  };
}

interface HandlerParts {
  gate: Gate | undefined;
  live: LiveApi;
  ops: OpsEndpoints;
  writer: ResponseWriter;
  trusts: (peer: string | undefined) => boolean;
  reportError: (error: unknown, request: GateRequest) => void;
}

/**
 * Node's request handler: the request read (its id, its headers checked), answered (answer below), and its
 * answer handed to the writer, at once or when it is ready.
 */
function requestHandler(parts: HandlerParts): (req: IncomingMessage, res: ServerResponse) => void {
  const { gate, writer, trusts, reportError } = parts;
  const ids = new RequestIds();
  const failure = (request: GateRequest, error: unknown): Answer => {
    reportError(error, request);
    return { response: internalError(request.method) };
  };
  return (req, res) => {
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
      // Without a gate the caller is the peer (the gate, when there is one, says who it is).
      caller: gate ? undefined : peer,
    };
    const endpoint = opsEndpoint(request.url);
    // A probe is logged at debug; a refused request, a probe's too, at info.
    const probe = endpoint !== undefined && request.invalid === undefined;
    const pending: Pending = {
      res,
      request,
      requestId,
      started,
      level: probe ? 'debug' : 'info',
      route: probe ? OPS_PATHS[endpoint] : undefined,
    };
    let answered: Answer | Promise<Answer>;
    try {
      answered = answer(parts, request, endpoint, req.headers, peer);
    } catch (error) {
      answered = failure(request, error);
    }
    if (answered instanceof Promise)
      answered.then(
        (settled) => writer.send(pending, settled),
        (error: unknown) => writer.send(pending, failure(request, error)),
      );
    else writer.queue(pending, answered);
  };
}

/**
 * Who answers a request: the server itself for one the HTTP layer refuses (without a gate, or for a probe; the
 * gate answers it with the anonymous headers), the operator endpoints (never counted), else the API behind
 * the gate when there is one.
 */
function answer(
  { gate, live, ops }: HandlerParts,
  request: GateRequest,
  endpoint: ReturnType<typeof opsEndpoint>,
  headers: IncomingMessage['headers'],
  peer: string | undefined,
): Answer | Promise<Answer> {
  if (request.invalid !== undefined && (!gate || endpoint !== undefined))
    return { response: jsonResponse(request.method, request.invalid.status, request.invalid.toBody(), request.invalid.headers) };
  if (gate && endpoint === undefined) return gate.respond(live.current, request);
  const response = endpoint !== undefined ? ops.answer(endpoint, request.method, headers, peer) : live.current.respond(request);
  return response instanceof Promise ? response.then((settled) => ({ response: settled })) : { response };
}

/** Listens on `port` and `host`; `failed` runs when it cannot (the port taken, the address not this machine's). */
function listen(server: Server, port: number, host: string, failed: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      failed();
      reject(error);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Stops accepting connections, waits up to SHUTDOWN_GRACE_MS for in-flight requests, then for `released`. */
async function closeGracefully(server: Server, released: () => Promise<void>): Promise<void> {
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
  await released();
}
